"""Who is online: the members who opened a page within ``ONLINE_WITHIN`` seconds (their "last
seen", kept by the LastSeen middleware), with the matches they are playing; and what a profile
says of one member. A member who hides their presence is shown as nothing at all.

The lobby's list is the same for every reader: drawn from two indexed queries at most every
``PRESENCE_CACHE_SECONDS`` per process, and kept, so a lobby pays one cache read for it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

from django.conf import settings
from django.core.cache import cache
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe
from django.utils.translation import get_language, gettext

from cardclub.accounts.models import Preferences
from games import registry
from games.models import Match, Seat


@dataclass
class Online:
    name: str
    # (match id, game title) of the matches the member is playing now.
    playing: list[tuple[int, str]] = field(default_factory=list)


def _since(now=None):
    return (now or timezone.now()) - timedelta(seconds=settings.ONLINE_WITHIN)


def _draw(now=None) -> tuple[list[Online], int]:
    visible = Preferences.objects.filter(
        last_seen__gte=_since(now), hide_presence=False, user__is_active=True
    )
    rows = list(
        visible.order_by("user__username").values_list("user_id", "user__username")[
            : settings.ONLINE_SHOWN
        ]
    )
    total = visible.count() if len(rows) == settings.ONLINE_SHOWN else len(rows)
    members = {user_id: Online(name) for user_id, name in rows}
    titles = dict(registry.choices())
    seats = (
        Seat.objects.filter(
            user_id__in=list(members),
            live=True,
            match__status=Match.Status.PLAYING,
            match__private=False,
        )
        .order_by("match_id")
        .values_list("user_id", "match_id", "match__game")
    )
    for user_id, match_id, game in seats:
        members[user_id].playing.append((match_id, titles.get(game, game)))
    return list(members.values()), total


def online_now() -> tuple[list[Online], int]:
    """The members online now (at most ``ONLINE_SHOWN``, by name) and how many there are."""
    return cache.get_or_set("social:online", _draw, settings.PRESENCE_CACHE_SECONDS)


def _challenge_link(name: str) -> str:
    return format_html(
        ' <a class="small-link" href="{}">{}</a>',
        reverse("social:challenge_new", args=[name]),
        gettext("Challenge to a game"),
    )


def _rows() -> tuple[str, int]:
    members, total = online_now()
    watch = gettext("Watch")
    rows = []
    for member in members:
        playing = format_html_join(
            ", ",
            '<a href="{}" title="{}">{} #{}</a>',
            ((reverse("games:match", args=[pk]), watch, game, pk) for pk, game in member.playing),
        )
        rows.append(
            format_html(
                '<li><a href="{}">{}</a>{}{}</li>',
                reverse("member", args=[member.name]),
                member.name,
                format_html(' <span class="muted">—</span> {}', playing) if member.playing else "",
                _challenge_link(member.name),
            )
        )
    return "".join(rows), total - len(members)


def online_rows(reader_name: str) -> tuple[str, int]:
    """The list's items as HTML for this reader (without the link to challenge themselves) and
    how many more are online than shown. The items are drawn once per language and kept with
    the list: a lobby with a hundred names online pays one cache read and one replace."""
    language = get_language() or settings.LANGUAGE_CODE
    rows, more = cache.get_or_set(
        f"social:online-rows:{language}", _rows, settings.PRESENCE_CACHE_SECONDS
    )
    # Escaped by format_html above; the reader's own link is the exact same string.
    return mark_safe(rows.replace(_challenge_link(reader_name), "")), more  # noqa: S308


def presence_of(prefs, now=None) -> dict | None:
    """What a profile says from a member's preferences: ``{"online": True}``, ``{"last_seen":
    when}``, or ``None`` when they hide their presence or were never seen."""
    if prefs is None or prefs.hide_presence or prefs.last_seen is None:
        return None
    if prefs.last_seen >= _since(now):
        return {"online": True}
    return {"last_seen": prefs.last_seen}
