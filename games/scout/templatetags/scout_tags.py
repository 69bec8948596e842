from __future__ import annotations

from django import template
from django.utils.html import format_html

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


@register.simple_tag
def scout_card_html(card, small=False, marked=False, named=True):
    """One card: the value in play large on top, the other end small and upside down below.

    One element per card, since a table draws dozens and every fragment carries them: the
    value in play is its text, the other end an ``<i>`` that CSS turns upside down, and the
    colours of both ends come from ``data-card`` (attribute selectors in table.css), which
    also lets static/js/live.js find the cards of the last move. A ``named`` card is an image
    named for screen readers; an unnamed one is for places that are hidden from them already
    (the last moves and the "Last move" panel say the move in words). A tag rather than an
    include, for the same reason; ``scout/card.html`` draws its card with this tag too.
    """
    c = scout_card(card)
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
    names = {seat.index: seat.display_name for seat in seats}
    try:
        name = names[int(index)]
    except (KeyError, TypeError, ValueError):
        return ""
    if list(names.values()).count(name) > 1:
        return f"{name} {int(index) + 1}"
    return name
