from __future__ import annotations

from django.urls import path

from cardclub import converters  # noqa: F401  (registers <id:…> and the others)

from . import views

app_name = "chat"
urlpatterns = [
    path("m/<id:pk>/", views.fragment, name="messages"),
    path("m/<id:pk>/post/", views.post, name="post"),
]
