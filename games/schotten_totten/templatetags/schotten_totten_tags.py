from __future__ import annotations

from django import template
from django.utils.html import format_html

from games.schotten_totten import present

register = template.Library()


@register.simple_tag
def st_card_html(card, small=False, named=True):
    """One clan card (``card``: an id like "R7" or a dict from ``present.card``).

    A tag rather than an include: a table draws up to sixty cards on every move and poll, so
    a card is one element and its value. table.css draws the rest from the card's id (its
    colour and, for colour-blind members, its symbol); the card's name is the value and the
    words around it, which only screen readers read. ``named=False`` leaves those words out,
    for cards in a part hidden from screen readers because words beside them name the cards
    (the last moves, the cards of a reason).
    """
    c = st_card(card)
    words = (c["before"], c["after"]) if named else ("", "")
    return format_html(
        '<i class="small" data-card="{}">{}{}{}</i>' if small else '<i data-card="{}">{}{}{}</i>',
        c["id"],
        format_html("<b>{}</b>", words[0]) if words[0] else "",
        c["value"],
        format_html("<b>{}</b>", words[1]) if words[1] else "",
    )


@register.filter
def st_card(card):
    """A card id (``"R7"``) or an already described card, for the Schotten Totten card."""
    return card if isinstance(card, dict) else present.card(card)


@register.simple_tag
def st_context(view, moves=None, seat=None):
    """The table's context for pages that do not call ``present.table_context`` (the replay)."""
    # A page without a seat (the replay) has no ``seat_index``: it renders as a spectator.
    return present.board(view, moves or [], seat if isinstance(seat, int) else None)
