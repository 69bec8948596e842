from __future__ import annotations

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LeaguesConfig(AppConfig):
    name = "cardclub.leagues"
    label = "leagues"
    verbose_name = _("Leagues")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from games.streams import register_page_stream

        from . import live, receivers

        receivers.connect()
        # A cup's bracket reaches its open season pages through the push streams.
        register_page_stream("leagues:season_live", live.keys, live.first_events)
