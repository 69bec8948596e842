from django.urls import path

from games import views

app_name = "games"
urlpatterns = [
    path("", views.lobby, name="lobby"),
    path("new/<str:game>/", views.new_table, name="new_table"),
    path("m/<int:pk>/", views.match_page, name="match"),
    path("m/<int:pk>/poll/", views.poll, name="poll"),
    path("m/<int:pk>/move/", views.move, name="move"),
    path("m/<int:pk>/join/", views.join, name="join"),
    path("m/<int:pk>/leave/", views.leave, name="leave"),
    path("m/<int:pk>/resign/", views.resign, name="resign"),
    path("m/<int:pk>/replay/", views.replay, name="replay"),
    path("invite/<str:token>/", views.invite, name="invite"),
    path("rules/", views.rules_index, name="rules_index"),
    path("rules/<str:game>/", views.rules, name="rules"),
]
