from __future__ import annotations

from django import template

register = template.Library()


@register.filter
def seat_name(seats, index):
    """The display name of the seat with that index (``seats`` is the match's seat list)."""
    for seat in seats:
        if seat.index == index:
            return seat.display_name
    return ""


@register.filter
def index(sequence, position):
    """``sequence[position]`` in a template (e.g. a seat's hand size)."""
    try:
        return sequence[int(position)]
    except (IndexError, TypeError, ValueError, KeyError):
        return ""


@register.filter
def times(count):
    """``range(count)``, to draw one card back per card in an opponent's hand."""
    try:
        return range(int(count))
    except (TypeError, ValueError):
        return range(0)


@register.filter
def my_turn_count(matches):
    """How many of the member's matches await their move (the lobby's live list)."""
    return sum(1 for match in matches if getattr(match, "my_turn", 0))


@register.filter
def minus(value):
    """A number with a real minus sign ("−3", not the hyphen of "-3"), as every score is written."""
    text = str(value)
    return "\u2212" + text[1:] if text.startswith("-") else text
