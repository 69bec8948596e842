from django.utils.translation import gettext_lazy as _

from games import registry


class EscobaConfig(registry.GameAppConfig):
    name = "games.escoba"
    label = "escoba"
    verbose_name = "Escoba de 15"
    title = "Escoba de 15"
    summary = _("The Spanish classic: capture cards that add up to fifteen and sweep the table.")
