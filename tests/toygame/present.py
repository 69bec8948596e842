"""The toy game's table in words: the one required hook, ``describe_move``; every other hook of
``games.contract.Presentation`` keeps its default (the cards drawn by ``toygame/card.html``, no
extra table context, every recent event listed)."""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.translation import gettext as _

from games.contract import Presentation
from games.present import move_line


def describe_move(event: dict, names: Sequence[str]) -> dict:
    """A card laid, in words: "ana lays c7", with the card drawn beside it."""
    card = event["card"]
    return move_line(event, names, event["kind"], _("lays %(card)s") % {"card": card}, [card])


#: What the table machinery uses of this module (the contract: games/contract.py).
PRESENTATION = Presentation(describe_move=describe_move)
