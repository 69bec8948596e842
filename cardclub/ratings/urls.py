from __future__ import annotations

from django.urls import path

from . import views

app_name = "ratings"
urlpatterns = [
    path("", views.club, name="club"),
    path("<str:game>/", views.leaderboard, name="leaderboard"),
]
