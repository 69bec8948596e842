from django.utils.translation import gettext_lazy as _

from games import registry


class ScoutConfig(registry.GameAppConfig):
    name = "games.scout"
    label = "scout"
    verbose_name = "Scout"
    title = "Scout"
    summary = _("Two to five players shed their hand with sets they may never reorder.")
