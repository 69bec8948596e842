"""Downloads: calendar feeds (a member's, behind a secret address; a season's, public) and a
season's standings and crosstable as CSV."""

from __future__ import annotations

import csv

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_not_required
from django.db.models import Prefetch
from django.http import Http404, HttpResponse
from django.shortcuts import redirect
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from . import access, calendars, standings
from .models import CalendarToken, Fixture, FixtureSeat, Season


def _ical(body: bytes, name: str) -> HttpResponse:
    response = HttpResponse(body, content_type="text/calendar; charset=utf-8")
    response["Content-Disposition"] = f'inline; filename="{name}.ics"'
    return response


@login_not_required  # calendar programs fetch it without a session: the secret is the key
@require_GET
def member_calendar(request, token):
    found = CalendarToken.objects.select_related("user").filter(token=token).first()
    if found is None:
        raise Http404(_("There is no such calendar."))
    seats = Prefetch("seats", queryset=FixtureSeat.objects.select_related("user"))
    fixtures = (
        Fixture.objects.filter(seats__user=found.user, round__season__status=Season.Status.RUNNING)
        .exclude(status=Fixture.Status.VOID)
        .select_related("round__season__league")
        .prefetch_related(seats)
        .order_by("deadline", "pk")
    )
    # In the member's language (as their e-mails): a calendar program sends none of its own.
    from cardclub.accounts.models import Preferences

    prefs = Preferences.objects.filter(user=found.user).first()
    with translation.override(prefs.mail_language if prefs else settings.LANGUAGE_CODE):
        body = calendars.member_feed(found.user, fixtures)
    return _ical(body, "fixtures")


@require_POST
def reset_calendar(request):
    CalendarToken.for_user(request.user).reset()
    messages.success(request, _("Your calendar has a new address; the old one no longer works."))
    return redirect("leagues:list")


@login_not_required  # a season's rounds, with no member's name: for the club's public calendar
@require_GET
def season_calendar(request, pk):
    season = access.season_or_404(pk)
    return _ical(calendars.season_feed(season, season.rounds.order_by("number")), f"season-{pk}")


def _safe(value) -> str:
    """A cell a spreadsheet will not run as a formula (a name may start with + - = or @)."""
    text = str(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


def _csv(name: str, rows) -> HttpResponse:
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}.csv"'
    writer = csv.writer(response)
    for row in rows:
        writer.writerow([_safe(cell) for cell in row])
    return response


def _tables(season: Season):
    if season.is_cup:
        raise Http404(_("A cup has a bracket, not standings."))
    players, withdrawn, byes = standings.members(season)
    table, cross = standings.season_tables(season, players, byes, withdrawn)
    return table, cross, withdrawn


@require_GET
def standings_csv(request, pk):
    season = access.season_or_404(pk)
    table, _cross, withdrawn = _tables(season)
    ties = [standings.TIE_BREAK_LABELS[c][1] for c in season.tie_breaks] if season.is_swiss else []
    header = [_("Place"), _("Member"), _("Points"), *ties]
    header += [_("Played"), _("Won"), _("Drawn"), _("Lost"), _("Score for"), _("Score against")]
    header.append(_("Withdrew"))
    rows = [header]
    for row in table:
        rows.append(
            [row.position, row.name, row.points, *row.tie_values, row.played, row.won, row.drawn]
            + [row.lost, row.score_for, row.score_against, _("yes") if row.withdrawn else ""]
        )
    return _csv(f"standings-{pk}", rows)


@require_GET
def crosstable_csv(request, pk):
    season = access.season_or_404(pk)
    table, cross, _withdrawn = _tables(season)
    if not cross:
        raise Http404(_("This season has no crosstable yet."))
    if season.is_swiss:
        rows = [[_("Place"), _("Member"), *range(1, season.current_round + 1)]]
    else:
        rows = [[_("Place"), _("Member"), *(row.position for row, _m, _h in cross)]]
    rows += [[row.position, row.name, *marks] for row, marks, _html in cross]
    return _csv(f"crosstable-{pk}", rows)
