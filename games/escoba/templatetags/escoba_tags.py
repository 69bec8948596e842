from __future__ import annotations

import functools
import re
from pathlib import Path

from django import template
from django.template.loader import render_to_string
from django.utils.html import escape, format_html
from django.utils.safestring import mark_safe
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from cardclub.i18n_tags import language_of
from games.escoba import present

register = template.Library()


@register.filter
def escoba_card(card):
    """A card id or an already described card, described for the Escoba card template."""
    return present.card(card) if isinstance(card, str) else card


SUITS = ("o", "c", "e", "b")
FIGURES = (8, 9, 10)
_OUTER_SVG = re.compile(r"^<svg[^>]*>(.*)</svg>$", re.S)
# Each suit sign is one static file: the small cards show it as a CSS background (table.css),
# and the page's sprite takes its shapes from the same file, so it is drawn in one place.
_SUIT_FILES = Path(__file__).resolve().parent.parent / "static" / "escoba" / "suits"


def _inside(svg: str) -> str:
    """The inside of an SVG drawing (its shapes, without the outer ``<svg>``)."""
    return _OUTER_SVG.match(svg.strip()).group(1)


@functools.cache
def sprite() -> str:
    """Every suit sign and figure once, as SVG symbols, for a page that draws Escoba cards:
    each card then refers to its drawing instead of repeating it (a table fragment carried the
    same drawings twenty times and more)."""
    symbols = [
        format_html(
            '<symbol id="es-suit-{}" viewBox="0 0 40 40">{}</symbol>',
            suit,
            mark_safe(_inside((_SUIT_FILES / f"{suit}.svg").read_text())),  # noqa: S308
        )
        for suit in SUITS
    ] + [
        format_html(
            '<symbol id="es-figure-{}" viewBox="0 0 40 56">{}</symbol>',
            rank,
            mark_safe(_inside(render_to_string("escoba/figure.svg", {"rank": rank}))),  # noqa: S308
        )
        for rank in FIGURES
    ]
    return format_html(
        '<svg class="card-sprite" width="0" height="0" aria-hidden="true" focusable="false">{}</svg>',
        mark_safe("".join(symbols)),  # noqa: S308
    )


@register.simple_tag(takes_context=True, name="escoba_card_html")
def escoba_card_tag(context, card, small=False):
    """``escoba_card_html`` in a template, in the language the template is drawn in."""
    return escoba_card_html(card, small, language_of(context))


def escoba_card_html(card, small=False, language=None):
    """One Spanish card as HTML (``card``: an id like "7o" or a dict from ``present.card``),
    named for screen readers: a full card, or with ``small`` a mini card (``escoba_mini``).

    A tag rather than an ``{% include %}`` per card: a table draws a dozen cards on every move
    and poll, and the includes were the largest part of the time to draw it.
    """
    card_id = card if isinstance(card, str) else card["id"]
    return _card_html(card_id, bool(small), language or get_language())


@functools.lru_cache(maxsize=512)
def _card_html(card_id: str, small: bool, language: str | None) -> str:
    """``escoba_card_html`` once per card, size and language: a card's drawing is its face,
    the same for everybody, and drawing it anew was a sixth of an Escoba table's fragment."""
    c = present.card(card_id, language)
    if small:
        return escoba_mini(c, named=True)
    # The corner and the value are drawn by table.css from the rank class, and the pictures
    # are references to the page's sprite: a card is a few dozen bytes on every poll. A figure
    # holds its suit sign, which table.css places in its hand.
    figure = (
        format_html('<svg class="figure"><use href="#es-figure-{}"/></svg>', c["value"])
        if c["face"]
        else ""
    )
    # Only full-size cards (those on the table and in the hand) carry their id, for live.js to
    # mark the last move's cards. Small ones are drawn in the move lines too, where a card of a
    # hand already over is now in somebody's hand or the deck: its id there would say nothing
    # true and only look like a leak.
    return format_html(
        '<span class="ecard {suit} r{value}" role="img" aria-label="{name}" data-card="{id}">'
        '{figure}<svg class="suit"><use href="#es-suit-{suit}"/></svg></span>',
        suit=c["suit"],
        value=c["value"],
        name=c["name"],
        id=c["id"],
        figure=figure,
    )


@register.simple_tag
def escoba_mini(card, named=False):
    """A card drawn small: its corner (1–7, S, C, R) and its suit sign, which table.css draws.

    Most small cards sit beside words that already name them (a move line, the last move),
    inside a part hidden from screen readers: those carry no name of their own. ``named``
    gives one (an image named like the card) where nothing else names it, e.g. the replay's
    open hands.
    """
    c = escoba_card(card)
    if named:
        return format_html(
            '<i class="ek {}" role="img" aria-label="{}">{}</i>', c["suit"], c["name"], c["corner"]
        )
    return format_html('<i class="ek {}">{}</i>', c["suit"], c["corner"])


@register.simple_tag(takes_context=True)
def escoba_table_card(context, card, pick=False, small=False):
    """One card on the table: with ``pick``, a checkbox "pick" (its value the card) labelled by
    the card, for the member to move to check the cards to take; ``small`` on a crowded table.

    A full card hides its checkbox and rises when checked (table.css); a small one is the label
    itself, its checkbox shown and named by the card, its suit drawn from its ``data-card`` (no
    class: a table may hold forty cards). Both keep the card's id for live.js to mark the last
    move's cards.
    """
    card_id = card if isinstance(card, str) else card["id"]
    return _table_card(card_id, bool(pick), bool(small), language_of(context))


@functools.lru_cache(maxsize=512)
def _table_card(card_id: str, pick: bool, small: bool, language: str | None) -> str:
    """``escoba_table_card`` once per card, look and language, as ``_card_html``."""
    c = present.card(card_id, language)
    if not small:
        drawn = _card_html(card_id, False, language)
        if not pick:
            return drawn
        return format_html(
            '<label><input type="checkbox" name="pick" value="{}">{}</label>', c["id"], drawn
        )
    if not pick:
        return format_html(
            '<i class="ek {}" role="img" aria-label="{}" data-card="{}">{}</i>',
            c["suit"],
            c["name"],
            c["id"],
            c["corner"],
        )
    return format_html(
        '<label data-card="{0}"><input type="checkbox" name="pick" value="{0}" aria-label="{1}">'
        "{2}</label>",
        c["id"],
        c["name"],
        c["corner"],
    )


@register.filter
def sum_values(cards):
    return sum(card["value"] for card in cards)


@register.simple_tag(takes_context=True)
def escoba_score_rows(context, sides):
    """The rows of "This hand so far" (``present.table_context``'s ``escoba_sides``): per side
    its players, cards, oros, sevens, the 7 de oros, escobas and score against the target.
    In Python rather than a template loop with a loop per side: every fragment carries it."""
    names = {seat.index: seat.display_name for seat in context.get("seats") or ()}
    target = escape(context["view"]["target"])
    mine = ' class="mine"'
    said_yes = escape(_("yes"))
    yes = f'✔<span class="visually-hidden">{said_yes}</span>'
    rows = []
    for side in sides:
        who = " + ".join(escape(names.get(i, "")) for i in side["seats"])
        rows.append(
            f'<tr{mine if side["mine"] else ""}><th scope="row">{who}</th>'
            f"<td>{side['cards']}</td><td>{side['oros']}</td><td>{side['sevens']}</td>"
            f"<td>{yes if side['siete_de_oros'] else '—'}</td><td>{side['escobas']}</td>"
            f"<td><strong>{side['score']}</strong> / {target}</td></tr>"
        )
    return mark_safe("".join(rows))  # noqa: S308 (every value above is escaped)
