from django.utils.translation import gettext_lazy as _

from games import registry


class SchottenTottenConfig(registry.GameAppConfig):
    name = "games.schotten_totten"
    label = "schotten_totten"
    verbose_name = "Schotten Totten"
    title = "Schotten Totten"
    summary = _(
        "Two players fight over nine boundary stones with poker-like three-card formations."
    )
