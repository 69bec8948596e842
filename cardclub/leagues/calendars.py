"""Calendar feeds (iCalendar, RFC 5545) of league fixtures and rounds, by the icalendar library.

A member's feed has their fixtures in running seasons: from the round's start time (or the
round's first day) to the fixture's deadline. A season's public feed has its rounds only, with
no member's name: it is read without logging in.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext as _
from icalendar import Calendar, Event

PRODID = "-//cardclub//leagues//"


def _calendar(name: str) -> Calendar:
    calendar = Calendar()
    calendar.add("prodid", PRODID)
    calendar.add("version", "2.0")
    calendar.add("x-wr-calname", name)
    return calendar


def _event(uid: str, summary: str, start, end, url: str, description: str = "") -> Event:
    event = Event()
    event.add("uid", f"{uid}@cardclub")
    event.add("dtstamp", timezone.now())
    event.add("summary", summary)
    event.add("dtstart", start)
    event.add("dtend", max(end, start + timedelta(minutes=30)))
    event.add("url", url)
    if description:
        event.add("description", description)
    return event


def _round_start(round_, season):
    return round_.starts_at or round_.deadline - timedelta(days=season.round_days)


def member_feed(user, fixtures) -> bytes:
    """``fixtures`` with ``round__season__league`` and ``seats__user`` loaded."""
    calendar = _calendar(_("%(name)s's league fixtures") % {"name": user.get_username()})
    for fixture in fixtures:
        season = fixture.round.season
        others = [s.user.get_username() for s in fixture.seats.all() if s.user_id != user.pk]
        summary = _("%(league)s, round %(n)d: against %(others)s") % {
            "league": season.league.name,
            "n": fixture.round.number,
            "others": ", ".join(others),
        }
        description = _("Deadline: %(when)s. %(state)s") % {
            "when": timezone.localtime(fixture.deadline).strftime("%Y-%m-%d %H:%M"),
            "state": fixture.get_status_display(),
        }
        calendar.add_component(
            _event(
                f"fixture-{fixture.pk}",
                summary,
                _round_start(fixture.round, season),
                fixture.deadline,
                settings.SITE_URL + season.get_absolute_url(),
                description,
            )
        )
    return calendar.to_ical()


def season_feed(season, rounds) -> bytes:
    calendar = _calendar(f"{season.league.name} — {season.name}")
    url = settings.SITE_URL + season.get_absolute_url()
    for round_ in rounds:
        summary = _("%(league)s: round %(n)d") % {"league": season.league.name, "n": round_.number}
        calendar.add_component(
            _event(
                f"round-{round_.pk}", summary, _round_start(round_, season), round_.deadline, url
            )
        )
    return calendar.to_ical()
