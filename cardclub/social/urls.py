from __future__ import annotations

from django.urls import path

from cardclub import converters  # noqa: F401  (registers <id:…> and the others)

from . import views

app_name = "social"
urlpatterns = [
    path("watching/", views.watching, name="watching"),
    path("rematch/<id:pk>/", views.play_again, name="play_again"),
    path("rematch/<id:pk>/no/", views.rematch_no, name="rematch_no"),
    path("rematch/<id:pk>/leave/", views.rematch_leave, name="rematch_leave"),
    path("takeback/<id:pk>/", views.takeback_ask, name="takeback"),
    path("takeback/<id:pk>/answer/", views.takeback_answer, name="takeback_answer"),
    path("challenge/<username:username>/", views.challenge_new, name="challenge_new"),
    path("challenges/<id:pk>/", views.challenge_page, name="challenge"),
    path("challenges/<id:pk>/accept/", views.challenge_accept, name="challenge_accept"),
    path("challenges/<id:pk>/decline/", views.challenge_decline, name="challenge_decline"),
]
