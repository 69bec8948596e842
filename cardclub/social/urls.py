from __future__ import annotations

from django.urls import path

from cardclub import converters  # noqa: F401  (registers <id:…> and the others)

from . import views

app_name = "social"
urlpatterns = [
    path("rematch/<id:pk>/", views.play_again, name="play_again"),
    path("rematch/<id:pk>/no/", views.rematch_no, name="rematch_no"),
]
