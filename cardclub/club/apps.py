from __future__ import annotations

from django.apps import AppConfig


class ClubConfig(AppConfig):
    """How the club runs, as a whole: the commands that serve it (``runclub``: web server,
    worker and scheduler together), queue its periodic work (``scheduler``) and fill a
    development club with its demo members (``seed_demo``). No models: what the club keeps
    belongs to the apps that keep it."""

    name = "cardclub.club"
    label = "club"

    def ready(self) -> None:
        from cardclub.club import receivers

        receivers.connect()
