"""Divisions: a finished season's divisions carry their members into next season's, the top
up and the bottom down, with one admin action, shown on the league and season pages."""

from __future__ import annotations

from datetime import date, timedelta
from types import SimpleNamespace

import pytest
from django.urls import reverse

from cardclub.leagues.models import Fixture, LeagueError, Season, SeasonPlayer, promote_and_relegate

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("in_english")]


def finished_division(league, number, members) -> Season:
    """A finished round robin where the first member beats all, the second all but the first…"""
    season = Season.objects.create(
        league=league, name="2026", division=number, starts_on=date.today() - timedelta(days=60)
    )
    for member in members:
        season.add_player(member)
    season.generate_fixtures()
    rank = {m.pk: i for i, m in enumerate(members)}
    for fixture in Fixture.objects.filter(round__season=season):
        seats = list(fixture.seats.order_by("index"))
        best = min(seats, key=lambda s: rank[s.user_id])
        fixture.record_match_result(
            [SimpleNamespace(index=s.index, rank=1 if s == best else 2, score=0) for s in seats]
        )
    season.close()
    return season


@pytest.fixture
def divisions(league, make_member):
    league.promotion_places = 1
    league.save()
    top = [make_member(f"a{n}") for n in range(1, 4)]
    second = [make_member(f"b{n}") for n in range(1, 4)]
    old = [finished_division(league, 1, top), finished_division(league, 2, second)]
    new = [
        Season.objects.create(
            league=league, name="2027", division=n, starts_on=date.today() + timedelta(days=30)
        )
        for n in (1, 2)
    ]
    return old, new


def names(season, moved=None):
    players = SeasonPlayer.objects.filter(season=season)
    if moved is not None:
        players = players.filter(moved=moved)
    return sorted(players.values_list("user__username", flat=True))


def test_the_admin_promotes_the_top_and_relegates_the_bottom_into_next_seasons_divisions(
    english_client_for, make_member, divisions
):
    (old_top, old_second), (new_top, new_second) = divisions
    boss = make_member("boss", is_staff=True, is_superuser=True)
    english_client_for(boss).post(
        reverse("admin:leagues_season_changelist"),
        {"action": "promote_and_relegate", "_selected_action": [old_top.pk, old_second.pk]},
    )
    assert names(new_top) == ["a1", "a2", "b1"]
    assert names(new_second) == ["a3", "b2", "b3"]
    assert names(new_top, "promoted") == ["b1"] and names(new_second, "relegated") == ["a3"]
    page = english_client_for(boss).get(reverse("leagues:season", args=[new_top.pk]))
    html = page.content.decode()
    assert "Division I" in html and "Promoted: b1" in html
    listing = english_client_for(boss).get(reverse("leagues:list")).content.decode()
    assert "2027 · Division II" in listing
    # Twice changes nothing: everybody already has a place.
    promote_and_relegate([old_top, old_second])
    assert SeasonPlayer.objects.filter(season__in=[new_top, new_second]).count() == 6


def test_promoting_needs_every_division_finished_and_next_seasons_divisions_made(divisions):
    (old_top, old_second), (new_top, new_second) = divisions
    with pytest.raises(LeagueError, match="every division of the season"):
        promote_and_relegate([old_second])
    new_second.delete()
    with pytest.raises(LeagueError, match="Create next season's Division II first"):
        promote_and_relegate([old_top, old_second])
    assert not SeasonPlayer.objects.filter(season=new_top).exists()
    old_top.status = Season.Status.RUNNING
    old_top.save()
    with pytest.raises(LeagueError, match="must be finished"):
        promote_and_relegate([old_top, old_second])
