from __future__ import annotations

import functools
from collections import Counter

from django import template
from django.utils.html import escape, format_html
from django.utils.safestring import mark_safe
from django.utils.translation import get_language, pgettext
from django.utils.translation import gettext as _

from cardclub.i18n_tags import language_of
from games.scout import present

register = template.Library()


@register.simple_tag(takes_context=True)
def scout_prepare(context):
    """Fill in the Scout table's context where the page did not (the replay page includes the
    table with only the engine's ``view``); the match page already merged it."""
    if "sc_players" not in context and context.get("view"):
        extra = present.table_context(
            context["view"], context.get("moves") or [], context.get("seat_index")
        )
        for key, value in extra.items():
            context[key] = value
    return ""


@register.simple_tag(takes_context=True, name="scout_card_html")
def scout_card_tag(context, card, small=False, marked=False, named=True):
    """``scout_card_html`` in a template, in the language the template is drawn in."""
    return scout_card_html(card, small, marked, named, language_of(context))


def scout_card_html(card, small=False, marked=False, named=True, language=None):
    """One card: the value in play large on top, the other end small and upside down below.

    One element per card, since a table draws dozens and every fragment carries them: the
    value in play is its text, the other end an ``<i>`` that CSS turns upside down, and the
    colours of both ends come from ``data-card`` (attribute selectors in table.css), which
    also lets static/js/live.js find the cards of the last move. A ``named`` card is an image
    named for screen readers; an unnamed one is for places that are hidden from them already
    (the last moves and the "Last move" panel say the move in words). A tag rather than an
    include, for the same reason; ``scout/card.html`` draws its card with this tag too.
    """
    text = card["text"] if isinstance(card, dict) else card
    return _card_html(text, bool(small), bool(marked), bool(named), language or get_language())


@functools.lru_cache(maxsize=2048)
def _card_html(text: str, small: bool, marked: bool, named: bool, language: str | None) -> str:
    """``scout_card_html`` once per card, way up, look and language: a card's drawing is its
    face, the same for everybody, and a table draws dozens on every move and poll."""
    c = present.card(text)
    css = "scard" + (" small" if small else "") + (" marked" if marked else "")
    if not named:
        return format_html(
            '<span class="{}" data-card="{}">{}<i>{}</i></span>', css, c["text"], c["up"], c["down"]
        )
    return format_html(
        '<span class="{}" data-card="{}" role="img" aria-label="{}">{}<i>{}</i></span>',
        css,
        c["text"],
        c["name"],
        c["up"],
        c["down"],
    )


@register.filter
def scout_card(card):
    """A card string (``"7/3"``, or an id ``"3-7"``) or an already described card."""
    return card if isinstance(card, dict) else present.card(card)


@register.filter
def scout_show_step(data, request):
    """The second step of a scout & show for the scout chosen in the address (``?ss=``)."""
    key = request.GET.get("ss") if request is not None and request.method == "GET" else None
    return present.scout_show_step(data, key)


@register.filter
def scout_name(seats, index):
    """A seat's display name, with its seat number when another seat has the same name (two
    bots of one level are otherwise indistinguishable in the Scout table's lists)."""
    try:
        return _names(seats).get(int(index), "")
    except (TypeError, ValueError):
        return ""


def _names(seats) -> dict[int, str]:
    """Every seat's name as ``scout_name`` gives it, for a whole list at once."""
    plain = {seat.index: seat.display_name for seat in seats}
    counts = Counter(plain.values())
    return {i: f"{name} {i + 1}" if counts[name] > 1 else name for i, name in plain.items()}


@register.simple_tag(takes_context=True)
def scout_player_rows(context, players):
    """The players' table on the felt, one ``<tr>`` per seat (``present._players``): cards in
    hand and taken, tokens, the S&S chip and the total. In Python rather than a template loop:
    every fragment carries it, for three to five players."""
    names = _names(context.get("seats") or ())
    chip = {
        True: escape(pgettext("the S&S chip", "used")),
        False: escape(pgettext("the S&S chip", "ready")),
    }
    rows = []
    for p in players:
        css = (
            "sc-player"
            + (" to-move" if p["on_turn"] else "")
            + (" me" if p["me"] else "")
            + (" owner" if p["owner"] else "")
        )
        spent = p["chip_spent"]
        chip_cell = (
            ""
            if spent is None
            else f'<td class="chip{" spent" if spent else ""}">{chip[bool(spent)]}</td>'
        )
        rows.append(
            f'<tr class="{css}" data-seat="{p["seat"]}"><th scope="row">'
            f"{escape(names.get(p['seat'], ''))}</th><td>{p['hand_size']}</td>"
            f"<td>{p['taken']}</td><td>{p['tokens']}</td>{chip_cell}"
            f"<td>{escape(p['score_text'])}</td></tr>\n      "
        )
    return mark_safe("".join(rows))  # noqa: S308 (every value above is escaped)


@register.simple_tag(takes_context=True)
def scout_hand_row(context, hand, ss_step=None):
    """The hand of the member on turn as one row (``present._hand_row``): each card (the label
    of its "sf" radio where a show may start there) and, before it and after the last, the gap
    where a scouted card goes: the scout's button (``c:*:<gap>``) and, at a scout & show's
    second step, the link to that gap. In Python rather than a template loop: every fragment of
    the member on turn carries it, a dozen cards and gaps."""
    scouting = bool(context.get("sc_scout_ends"))
    gaps = ss_step.get("gaps", ()) if ss_step and ss_step.get("stage") == "gap" else None
    key = escape(ss_step["key"]) if gaps is not None else ""

    def gap(index: int, label: str) -> str:
        label = escape(label)
        drawn = (
            f'<button name="code" value="c:*:{index}" aria-label="{label}">+</button>'
            if scouting
            else ""
        )
        if gaps is not None and index in gaps:
            drawn += (
                f'<a href="?ss={key}-{index}" hx-get="?ss={key}-{index}" aria-label="{label}">+</a>'
            )
        return drawn

    items, language = [], language_of(context)
    for h in hand:
        card = scout_card_html(h["card"], language=language)
        if h["starts"]:
            card = f'<label for="sf{h["index"]}">{card}</label>'
        items.append(f"<li>{gap(h['index'], h['gap']) if h['gap'] else ''}{card}</li>")
    last = context.get("sc_last_gap")
    if last:
        items.append(f"<li>{gap(len(hand), last)}</li>")
    return mark_safe("".join(items))  # noqa: S308 (every value above is escaped)


@register.simple_tag
def scout_windows(groups, css=""):
    """Step 2 of a show: one submit button per set that may start at the first card picked
    (the radios "sfN" or "ssfN" and the rules .wg-N of table.css: no script). A button names
    its set in words (kind, length, values) rather than drawing its cards again: the hand above
    draws them. ``groups``: ``present._window_groups``; ``css``, more classes for the block.
    A tag rather than an include with two loops: the member on turn gets it with every fragment.
    """
    blocks = [
        f'<div class="wg-{g["index"]}">'
        + "".join(
            f'<button name="code" value="{escape(w["code"])}">{escape((w["set"] or {}).get("text", ""))}</button>'
            for w in g["windows"]
        )
        + "</div>"
        for g in groups
    ]
    step = escape(_("2. Show the set that starts there:"))
    return mark_safe(  # noqa: S308 (every value above is escaped)
        f'<div class="sc-windows{escape(css)}"><p class="step">{step}</p>{"".join(blocks)}</div>'
    )
