from __future__ import annotations

import functools

from django import template
from django.utils.html import escape, format_html
from django.utils.safestring import mark_safe
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from cardclub.i18n_tags import language_of
from games.schotten_totten import present
from games.templatetags.games_tags import _ordinal as ordinal

register = template.Library()


@register.simple_tag(takes_context=True, name="st_card_html")
def st_card_tag(context, card, small=False, named=True):
    """``st_card_html`` in a template, in the language the template is drawn in."""
    return st_card_html(card, small, named, language_of(context))


def st_card_html(card, small=False, named=True, language=None):
    """One clan card (``card``: an id like "R7" or a dict from ``present.card``).

    A tag rather than an include: a table draws up to sixty cards on every move and poll, so
    a card is one element and its value. table.css draws the rest from the card's id (its
    colour and, for colour-blind members, its symbol); the card's name is the value and the
    words around it, which only screen readers read. ``named=False`` leaves those words out,
    for cards in a part hidden from screen readers because words beside them name the cards
    (the last moves, the cards of a reason).
    """
    card_id = card["id"] if isinstance(card, dict) else card
    return _card_html(card_id, bool(small), bool(named), language or get_language())


@functools.lru_cache(maxsize=1024)
def _card_html(card_id: str, small: bool, named: bool, language: str | None) -> str:
    """``st_card_html`` once per card, size and language: a card's drawing is its face, the
    same for everybody, and a board draws dozens on every move and poll."""
    c = present.card(card_id)
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


@functools.lru_cache(maxsize=8)
def _stone_words(language: str) -> dict[str, str]:
    """The words every stone repeats, in ``language``, looked up once: nine stones per table on
    every move and poll, each said with the same few phrases. Escaped as the template's
    ``{% translate %}`` would; the phrases with a number (``%(n)s``) are filled in per stone."""
    first = escape(_("Completed first: wins the tie"))
    return {
        "stone": _("Stone %(n)s"),
        "claim_stone": _("Claim stone %(n)s"),
        "play_on": _("Play the picked card on stone %(n)s"),
        "claimed_by": _("claimed by %(name)s"),
        "claim": escape(_("Claim")),
        "play_here": escape(_("Play here")),
        "sure": escape(_("Yours for sure: claim it when you may")),
        # The tie-breaking mark: "1st" and, for screen readers, what it means.
        "first": f' <span class="st-first">{ordinal(1)}<span class="visually-hidden">'
        f" {first}</span></span>",
    }


def _side(cards, formation, first: bool, words: dict, language: str | None) -> str:
    """One side of a stone: its cards, then its formation (and the tie-breaking mark)."""
    drawn = "".join(st_card_html(c, language=language) for c in cards)
    if not formation:
        return drawn
    if first:
        return (
            f'{drawn}<small class="first">{escape(formation["name"])}'
            f" <b>{formation['total']}</b>{words['first']}</small>"
        )
    return f"{drawn}<small>{escape(formation['name'])} <b>{formation['total']}</b></small>"


@register.simple_tag(takes_context=True)
def st_stones(context, stones):
    """The board's nine stones (``present.board``'s ``stones``), one ``<li>`` each: the
    opponent's side, the stone (its claim button, or its number and owner) and the member's
    side (the button that plays the picked card there, why it cannot be claimed yet).

    In Python rather than a template loop: the loop was half the time to draw a Schotten
    Totten table, on every move and poll. The words come from ``_stone_words``, once per
    language; everything per stone is public (the board as this seat sees it).
    """
    language = language_of(context)
    words = _stone_words(language)
    replaying = context.get("replaying")
    names = {seat.index: seat.display_name for seat in context.get("seats") or ()}
    items = []
    for stone in stones:
        n = stone["number"]
        if stone["claim"] and not replaying:
            middle = (
                f'<button type="submit" name="code" value="{escape(stone["claim"])}"'
                f' class="st-claim" data-stone="{stone["index"]}"'
                f' aria-label="{words["claim_stone"] % {"n": n}}">{n}'
                f'<span class="st-claim-word" aria-hidden="true">{words["claim"]}</span></button>'
            )
        else:
            owner = stone["owner"]
            claimed = (
                ""
                if owner is None
                else '<span class="visually-hidden"> · '
                + words["claimed_by"] % {"name": escape(names.get(owner, ""))}
                + "</span>"
            )
            star = '<span class="st-star" aria-hidden="true">♛</span>' if stone["winning"] else ""
            middle = f"<span>{n}{claimed}{star}</span>"
        play = (
            f'<button type="submit" name="code" value="{escape(stone["play"])}"'
            f' aria-label="{words["play_on"] % {"n": n}}">{words["play_here"]}</button>'
            if stone["play"] and not replaying
            else ""
        )
        state = (stone["reason"] or {}).get("state")
        if state == "blocked":
            why = f'<a class="st-why" href="#st-why-{n}" aria-labelledby="st-why-{n}">?</a>'
        elif state == "later":
            why = f'<span class="st-sure" title="{words["sure"]}" aria-hidden="true">✓</span>'
        else:
            why = ""
        css = f' class="{escape(stone["css"])}"' if stone["css"] else ""
        opp_first, my_first = stone["tie_first"] == "opp", stone["tie_first"] == "me"
        opp = _side(stone["opp_cards"], stone["opp_formation"], opp_first, words, language)
        mine = _side(stone["my_cards"], stone["my_formation"], my_first, words, language)
        items.append(
            f'<li{css} aria-label="{words["stone"] % {"n": n}}"><div>{opp}</div>{middle}'
            f'<div class="mine">{mine}{play}{why}</div></li>\n'
        )
    return mark_safe("".join(items))  # noqa: S308 (every value above is escaped)


@register.simple_tag(takes_context=True)
def st_legend(context):
    """The colour key under the table: each colour's swatch and name."""
    return _legend(language_of(context))


@functools.lru_cache(maxsize=8)
def _legend(language: str | None) -> str:
    """The colour key once per language: it names only the six colours, the same on every
    table, and each move and poll carried it drawn anew."""
    return mark_safe(  # noqa: S308 (the names are escaped)
        "".join(
            f'<i class="c-{c["colour"]}"></i> {escape(c["colour_name"])} ' for c in present.legend()
        )
    )
