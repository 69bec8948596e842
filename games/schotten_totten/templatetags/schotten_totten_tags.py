from __future__ import annotations

from django import template

from games.schotten_totten import present

register = template.Library()


@register.filter
def st_card(card):
    """A card id (``"R7"``) or an already described card, for the Schotten Totten card."""
    return card if isinstance(card, dict) else present.card(card)


@register.simple_tag
def st_context(view, moves=None, seat=None):
    """The table's context for pages that do not call ``present.table_context`` (the replay)."""
    # A page without a seat (the replay) has no ``seat_index``: it renders as a spectator.
    return present.board(view, moves or [], seat if isinstance(seat, int) else None)
