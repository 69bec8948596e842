from __future__ import annotations

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class SocialConfig(AppConfig):
    name = "cardclub.social"
    label = "social"
    verbose_name = _("Playing together")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from . import receivers

        receivers.connect()
