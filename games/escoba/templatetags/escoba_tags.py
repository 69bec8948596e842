from __future__ import annotations

import functools
import re

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


SUITS = ("o", "c", "e", "b")
FIGURES = (8, 9, 10)
_OUTER_SVG = re.compile(r"^<svg[^>]*>(.*)</svg>$", re.S)


def _drawing(template: str, context: dict) -> str:
    """The inside of one of the game's SVG drawings (its shapes, without the outer ``<svg>``)."""
    return _OUTER_SVG.match(render_to_string(template, context).strip()).group(1)


@functools.cache
def sprite() -> str:
    """Every suit sign and figure once, as SVG symbols, for a page that draws Escoba cards:
    each card then refers to its drawing instead of repeating it (a table fragment carried the
    same drawings twenty times and more)."""
    symbols = [
        format_html(
            '<symbol id="es-suit-{}" viewBox="0 0 40 40">{}</symbol>',
            suit,
            mark_safe(_drawing("escoba/suit.svg", {"suit": suit})),  # noqa: S308
        )
        for suit in SUITS
    ] + [
        format_html(
            '<symbol id="es-figure-{}" viewBox="0 0 40 56">{}</symbol>',
            rank,
            mark_safe(_drawing("escoba/figure.svg", {"rank": rank})),  # noqa: S308
        )
        for rank in FIGURES
    ]
    return format_html(
        '<svg class="card-sprite" width="0" height="0" aria-hidden="true" focusable="false">{}</svg>',
        mark_safe("".join(symbols)),  # noqa: S308
    )


def _suit_svg(suit: str) -> str:
    return format_html(
        '<svg class="suit" viewBox="0 0 40 40" aria-hidden="true" focusable="false">'
        '<use href="#es-suit-{}"></use></svg>',
        suit,
    )


def _figure_svg(rank: int) -> str:
    return format_html(
        '<svg class="figure" viewBox="0 0 40 56" aria-hidden="true" focusable="false">'
        '<use href="#es-figure-{}"></use></svg>',
        rank,
    )


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
