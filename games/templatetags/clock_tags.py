"""The table's large clocks ("clock bar"): every seat's time by the board while a clocked match
is played, ticked by static/js/clock.js, which also turns a clock to the warning colour in its
last fifth (or last 30 seconds), and for the member's own clock says so once to screen readers
and plays the turn sound if they asked for sounds."""

from __future__ import annotations

from django import template
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext as _

from games.clocks import budget_ms

register = template.Library()

#: A clock warns in the last fifth of its time, and never later than 30 seconds before the end.
WARN_SHARE = 0.2
WARN_FLOOR_MS = 30_000


def warn_ms(match) -> int:
    return max(int(budget_ms(match) * WARN_SHARE), WARN_FLOOR_MS)


@register.simple_tag
def clock_bar(seats, match, my_seat):
    from games.templatetags.games_tags import clock_text

    warn = warn_ms(match)
    turn = int(match.clock_turn_started.timestamp() * 1000) if match.clock_turn_started else 0
    mine = my_seat.index if my_seat is not None else None
    items = []
    for seat in seats:
        shown = getattr(seat, "clock", None)
        if not shown:
            continue
        running = shown["running"]
        css = "big-clock" + (" running" if running else "")
        if running and shown["ms"] <= warn:
            css += " warn"
        attrs = format_html(
            ' data-clock-ms="{}" data-clock-kind="{}" data-clock-warn-ms="{}"',
            shown["ms"],
            match.clock,
            warn,
        )
        if running:
            attrs += format_html(
                ' data-clock-running="1" data-server-now="{}" data-clock-turn="{}-{}"',
                shown["at"],
                turn,
                seat.index,
            )
        if seat.index == mine:
            css += " mine"
            attrs += format_html(
                ' data-clock-mine="1" data-clock-warning="{}"', _("Your time is running out")
            )
        items.append(
            format_html(
                '<li class="clock {}"{}><span class="big-clock-name">{}</span>'
                ' <span class="visually-hidden">{}: </span><span class="clock-text">{}</span></li>',
                css,
                attrs,
                seat.display_name,
                _("Time left"),
                clock_text(shown["ms"], match.clock),
            )
        )
    if not items:
        return ""
    return format_html(
        '<ul class="clock-bar" aria-label="{}">{}</ul>',
        _("Clocks"),
        format_html_join("", "{}", ((item,) for item in items)),
    )
