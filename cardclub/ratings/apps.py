from __future__ import annotations

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RatingsConfig(AppConfig):
    name = "cardclub.ratings"
    label = "ratings"
    verbose_name = _("Ratings")

    def ready(self) -> None:
        from . import receivers

        receivers.connect()
