"""Presentation helpers: turn ratings and results into the strings the pages print.

Leaderboards and profiles print hundreds of numbers, dates and links. Done in the template,
each one goes through variable lookup, localisation and ``{% url %}``, which took most of these
pages' time; done here once per value, with per-request constants, it is a fraction of that.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import quote

from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format, get_format

_PLACEHOLDER = "__member__"


def member_url_maker() -> Callable[[str], str]:
    """username -> profile URL, with one ``reverse`` per page instead of one per row.

    Quotes the name exactly as ``reverse`` does (RFC 3986 sub-delimiters, "/", "~", ":" and
    "@" left as they are).
    """
    pattern = reverse("member", args=[_PLACEHOLDER])
    return lambda username: pattern.replace(_PLACEHOLDER, quote(username, safe="!$&'()*+,;=/~:@"))


def decimal_maker(places: int = 1) -> Callable[[float], str]:
    """float -> text with the active language's decimal separator (2,5 in Spanish)."""
    separator = get_format("DECIMAL_SEPARATOR")

    def text(value: float) -> str:
        rounded = round(value, places) + 0.0  # + 0.0 turns -0.0 into 0.0
        # A real minus sign, as every score on the site is written ("−3", not "-3").
        return f"{rounded:.{places}f}".replace(".", separator).replace("-", "\u2212")

    return text


def short_date_maker() -> Callable[[datetime | None], str]:
    """datetime -> the date in the active language's short format, in the club's time zone.

    Remembers the dates it has written: the rows of a page share a handful of days.
    """
    written: dict = {}

    def text(value: datetime | None) -> str:
        if value is None:
            return "—"
        day = timezone.localdate(value)
        if day not in written:
            written[day] = date_format(day, "SHORT_DATE_FORMAT")
        return written[day]

    return text


@dataclass
class BoardRow:
    """One leaderboard line, ready to print."""

    username: str
    url: str
    rating: str
    games: str  # numbers as text: localising them one by one in the template was slow
    wins: str
    last_game: str
    provisional: bool
    position: int  # the place on the board; a provisional rating is marked beside the name
    is_viewer: bool

    @property
    def place(self) -> str:
        return str(self.position)


def board_rows(ratings: Iterable, first_position: int, viewer) -> list[BoardRow]:
    """Number the rows of a board. Every row has its place (the board lists settled ratings
    first); a provisional rating also gets a mark beside the name, because a place earned in a
    handful of games may still move a lot."""
    member_url, decimal, short_date = member_url_maker(), decimal_maker(1), short_date_maker()
    return [
        BoardRow(
            username=rating.user.username,
            url=member_url(rating.user.username),
            rating=decimal(rating.ordinal),
            games=str(rating.games),
            wins=str(rating.wins),
            last_game=short_date(rating.last_played_at),
            provisional=rating.provisional,
            position=first_position + offset,
            is_viewer=rating.user_id == viewer.pk,
        )
        for offset, rating in enumerate(ratings)
    ]
