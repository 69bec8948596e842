from django.apps import AppConfig
from django.db.models.signals import post_save
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = _("Games")

    def ready(self):
        from games import push
        from games.models import Match

        # Every committed save of a match reaches its open pages, whoever saved it.
        post_save.connect(push.match_saved, sender=Match, dispatch_uid="games.push.match_saved")
