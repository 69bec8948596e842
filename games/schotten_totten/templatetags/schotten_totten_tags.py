from __future__ import annotations

import functools

from django import template
from django.template.loader import render_to_string
from django.utils.html import format_html
from django.utils.safestring import mark_safe

from games.schotten_totten import present

register = template.Library()


@functools.cache
def _symbol_svg(symbol: str) -> str:
    # Six drawings in all: each rendered once per process. strip() returns a plain str: mark
    # the rendered (already escaped) drawing safe again.
    return mark_safe(  # noqa: S308
        render_to_string("schotten_totten/symbol.svg", {"symbol": symbol}).strip()
    )


@register.simple_tag
def st_card_html(card, small=False):
    """One clan card (``card``: an id like "R7" or a dict from ``present.card``).

    A tag rather than an include of the card and another of its symbol: a table draws up to
    sixty cards on every move and poll.
    """
    c = st_card(card)
    return format_html(
        '<span class="stcard c-{}{}" role="img" aria-label="{}" title="{}" data-card="{}">'
        '<span class="v" aria-hidden="true">{}</span>{}</span>',
        c["colour"],
        " small" if small else "",
        c["name"],
        c["name"],
        c["id"],
        c["value"],
        _symbol_svg(c["symbol"]),
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
