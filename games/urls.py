from django.urls import path

from cardclub import converters  # noqa: F401  (registers <id:…> and the others)
from games import streams, views

app_name = "games"
urlpatterns = [
    path("", views.lobby, name="lobby"),
    path("mine/", views.my_matches, name="my_matches"),
    path("mine/live/", streams.no_stream, name="my_matches_live"),
    path("mine/all/", views.all_my_matches, name="all_my_matches"),
    path("new/<str:game>/", views.new_table, name="new_table"),
    path("m/<id:pk>/", views.match_page, name="match"),
    path("m/<id:pk>/poll/", views.poll, name="poll"),
    path("m/<id:pk>/live/", streams.no_stream, name="live"),
    path("m/<id:pk>/move/", views.move, name="move"),
    path("m/<id:pk>/join/", views.join, name="join"),
    path("m/<id:pk>/leave/", views.leave, name="leave"),
    path("m/<id:pk>/resign/", views.resign, name="resign"),
    path("m/<id:pk>/replay/", views.replay, name="replay"),
    path("m/<id:pk>/log/", views.game_log, name="log"),
    path("m/<id:pk>/export.json", views.export, name="export"),
    path("invite/<token:token>/", views.invite, name="invite"),
    path("rules/", views.rules_index, name="rules_index"),
    path("rules/<str:game>/", views.rules, name="rules"),
]
