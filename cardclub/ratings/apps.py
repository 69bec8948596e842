from __future__ import annotations

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RatingsConfig(AppConfig):
    name = "cardclub.ratings"
    label = "ratings"
    verbose_name = _("Ratings")

    def ready(self) -> None:
        from games.actions import match_finished

        from .signals import on_match_finished

        # A stable dispatch_uid: ready() may run twice in some test set-ups, and a second
        # connection would rate every match twice.
        match_finished.connect(on_match_finished, dispatch_uid="ratings.on_match_finished")
