from __future__ import annotations

from django.urls import path

from cardclub import converters  # noqa: F401  (registers <id:…> and the others)

from . import views

app_name = "leagues"
urlpatterns = [
    path("", views.league_list, name="list"),
    path("season/<id:pk>/", views.season_page, name="season"),
    path("season/<id:pk>/join/", views.join, name="join"),
    path("season/<id:pk>/withdraw/", views.withdraw, name="withdraw"),
    path("fixture/<id:pk>/ready/", views.ready, name="ready"),
    path("fixture/<id:pk>/unready/", views.unready, name="unready"),
]
