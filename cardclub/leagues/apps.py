from __future__ import annotations

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LeaguesConfig(AppConfig):
    name = "cardclub.leagues"
    label = "leagues"
    verbose_name = _("Leagues")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.db.models.signals import post_save

        from games.actions import match_finished
        from games.streams import register_page_stream

        from . import live
        from .models import Tie
        from .signals import on_match_finished

        # A stable dispatch_uid: ready() may run twice, and a second connection would be harmless
        # here but wasteful.
        match_finished.connect(on_match_finished, dispatch_uid="leagues.on_match_finished")
        # A cup's bracket reaches its open season pages through the push streams.
        post_save.connect(live.tie_saved, sender=Tie, dispatch_uid="leagues.tie_saved")
        register_page_stream("leagues:season_live", live.keys, live.first_events)
