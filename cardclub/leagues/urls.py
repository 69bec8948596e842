from __future__ import annotations

from django.urls import path

from cardclub import converters  # noqa: F401  (registers <id:…> and the others)
from games.streams import no_stream

from . import export_views, views

app_name = "leagues"
urlpatterns = [
    path("", views.league_list, name="list"),
    path("season/<id:pk>/", views.season_page, name="season"),
    # The bracket's push stream: served by games/streams.py under ASGI; Django's answer is 204.
    path("season/<id:pk>/live/", no_stream, name="season_live"),
    path("season/<id:pk>/join/", views.join, name="join"),
    path("season/<id:pk>/withdraw/", views.withdraw, name="withdraw"),
    path("season/<id:pk>/pair/", views.propose_pair, name="propose_pair"),
    path("season/<id:pk>/pair/<id:pair_id>/", views.answer_pair, name="answer_pair"),
    path("season/<id:pk>/calendar.ics", export_views.season_calendar, name="season_calendar"),
    path("season/<id:pk>/standings.csv", export_views.standings_csv, name="standings_csv"),
    path("season/<id:pk>/crosstable.csv", export_views.crosstable_csv, name="crosstable_csv"),
    path("calendar/<str:token>.ics", export_views.member_calendar, name="member_calendar"),
    path("calendar/reset/", export_views.reset_calendar, name="reset_calendar"),
    path("fixture/<id:pk>/ready/", views.ready, name="ready"),
    path("fixture/<id:pk>/unready/", views.unready, name="unready"),
]
