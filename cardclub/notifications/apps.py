from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class NotificationsConfig(AppConfig):
    name = "cardclub.notifications"
    label = "notifications"
    verbose_name = _("Notifications")

    def ready(self) -> None:
        # The other apps do not call us for their results: we listen (see receivers.py).
        from . import receivers

        receivers.connect()
