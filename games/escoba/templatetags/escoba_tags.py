from __future__ import annotations

import functools

from django import template
from django.template.loader import render_to_string
from django.utils.html import format_html
from django.utils.safestring import mark_safe

from games.escoba import present

register = template.Library()


@register.filter
def escoba_card(card):
    """A card id or an already described card, described for the Escoba card template."""
    return present.card(card) if isinstance(card, str) else card


@functools.cache
def _suit_svg(suit: str) -> str:
    # The same four drawings on every page: render each once per process.
    # strip() returns a plain str: mark the rendered (already escaped) drawing safe again.
    return mark_safe(render_to_string("escoba/suit.svg", {"suit": suit}).strip())  # noqa: S308


@functools.cache
def _figure_svg(rank: int) -> str:
    # The sota, caballo and rey: one drawing each, rendered once per process.
    return mark_safe(render_to_string("escoba/figure.svg", {"rank": rank}).strip())  # noqa: S308


@register.simple_tag
def escoba_card_html(card, small=False):
    """One Spanish card as HTML (``card``: an id like "7o" or a dict from ``present.card``).

    A tag rather than an ``{% include %}`` per card: a table draws a dozen cards on every move
    and poll, and the includes were the largest part of the time to draw it.
    """
    c = escoba_card(card)
    # A figure card shows its figure holding a small suit sign; the others, the suit sign.
    picture = _suit_svg(c["suit"])
    if c["face"]:
        picture = format_html(
            '<span class="figure-box">{}<span class="figure-suit">{}</span></span>',
            _figure_svg(c["value"]),
            picture,
        )
    # Only full-size cards (those lying on the table) carry their id, for live.js to mark the
    # last move's cards. Small ones are drawn in the move lines too, where a card of a hand
    # already over is now in somebody's hand or the deck: its id there would say nothing true
    # and only look like a leak.
    data = format_html(' data-card="{}"', c["id"]) if not small else ""
    return format_html(
        '<span class="ecard suit-{suit}{small}{face}" role="img" aria-label="{name}" title="{name}"'
        "{data}>"
        '<span class="corner" aria-hidden="true">{corner}</span>{picture}'
        '<span class="value" aria-hidden="true">{value}</span></span>',
        suit=c["suit"],
        data=data,
        small=" small" if small else "",
        face=" face" if c["face"] else "",
        name=c["name"],
        corner=c["corner"],
        picture=picture,
        value=c["value"],
    )


@register.filter
def sum_values(cards):
    return sum(card["value"] for card in cards)
