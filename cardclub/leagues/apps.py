from __future__ import annotations

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LeaguesConfig(AppConfig):
    name = "cardclub.leagues"
    label = "leagues"
    verbose_name = _("Leagues")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from . import receivers

        receivers.connect()
