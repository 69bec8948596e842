"""Calendar feeds and CSV downloads of a season."""

from __future__ import annotations

import csv
import io
from datetime import date
from types import SimpleNamespace

import pytest
from django.test import Client
from django.urls import reverse
from icalendar import Calendar

from cardclub.leagues.models import CalendarToken, Fixture, Season

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("in_english")]


@pytest.fixture
def running(league, make_member):
    season = Season.objects.create(league=league, name="2026", starts_on=date.today())
    members = [make_member(n) for n in ("ana", "ben", "cai", "=dee")]
    for member in members:
        season.add_player(member)
    season.generate_fixtures()
    return season, members


def events(body: bytes) -> list:
    return [c for c in Calendar.from_ical(body).walk() if c.name == "VEVENT"]


def test_a_members_calendar_lists_their_fixtures_behind_a_secret_address_they_can_reset(
    english_client_for, running
):
    season, (ana, *_rest) = running
    client = english_client_for(ana)
    client.post(reverse("leagues:reset_calendar"))
    token = CalendarToken.objects.get(user=ana).token
    page = client.get(reverse("leagues:list"))
    assert token in page.content.decode()
    url = reverse("leagues:member_calendar", args=[token])
    response = Client().get(url)  # a calendar program: no session
    assert response.status_code == 200 and response["Content-Type"].startswith("text/calendar")
    found = events(response.content)
    mine = Fixture.objects.filter(round__season=season, seats__user=ana)
    assert len(found) == mine.count() == 3
    first = mine.get(round__number=1)
    event = next(e for e in found if str(e["uid"]) == f"fixture-{first.pk}@cardclub")
    assert event.decoded("dtend") == first.deadline
    assert "round 1" in str(event["summary"])
    client.post(reverse("leagues:reset_calendar"))
    assert Client().get(url).status_code == 404
    assert CalendarToken.objects.get(user=ana).token != token


def test_an_unknown_calendar_address_is_not_found(client):
    assert client.get(reverse("leagues:member_calendar", args=["nope"])).status_code == 404


def test_a_seasons_public_calendar_has_its_rounds_and_no_members_names(running):
    season, _members = running
    response = Client().get(reverse("leagues:season_calendar", args=[season.pk]))
    assert response.status_code == 200
    found = events(response.content)
    assert len(found) == season.rounds.count() == 3
    assert b"ana" not in response.content


def test_the_standings_and_the_crosstable_download_as_csv_safe_for_spreadsheets(
    english_client_for, running
):
    season, (ana, ben, *_rest) = running
    fixture = Fixture.objects.get(round__season=season, round__number=1, seats__user=ana)
    fixture.record_match_result(
        [SimpleNamespace(index=i, rank=i + 1, score=5 - i) for i in range(2)]
    )
    client = english_client_for(ana)
    response = client.get(reverse("leagues:standings_csv", args=[season.pk]))
    assert response["Content-Disposition"].startswith("attachment")
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0][:3] == ["Place", "Member", "Points"]
    assert rows[1][2] == "3" and len(rows) == 5
    # A name that a spreadsheet would run as a formula is written as text.
    assert "'=dee" in [row[1] for row in rows]
    response = client.get(reverse("leagues:crosstable_csv", args=[season.pk]))
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0] == ["Place", "Member", "1", "2", "3", "4"]
    assert rows[1][2] == "×"
