from __future__ import annotations

from django.urls import path

from . import views

app_name = "leagues"
urlpatterns = [
    path("", views.league_list, name="list"),
    path("season/<int:pk>/", views.season_page, name="season"),
    path("season/<int:pk>/join/", views.join, name="join"),
    path("fixture/<int:pk>/start/", views.start, name="start"),
]
