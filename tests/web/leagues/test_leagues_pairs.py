"""Seasons of pairs (Escoba in pairs): registering as a partnership both agree to, fixtures
between pairs, standings by pair, and the refusals that change nothing."""

from __future__ import annotations

from datetime import date
from types import SimpleNamespace

import pytest
from django.urls import reverse

from cardclub.leagues.models import Fixture, League, LeagueError, Season, SeasonPair
from tests.web.table_helpers import variant

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("in_english")]


@pytest.fixture
def season():
    league = League.objects.create(
        name="Parejas", game="escoba", variant=variant("escoba", "por-parejas")
    )
    return Season.objects.create(league=league, name="2026", starts_on=date.today(), pairs=True)


@pytest.fixture
def six(make_member):
    return {n: make_member(n) for n in ("ana", "ben", "cai", "dee", "eli", "fer")}


def pair_up(season, a, b):
    pair = season.propose_pair(a, b)
    season.answer_pair(pair.pk, b, accept=True)
    return pair


def test_a_pair_counts_once_the_partner_confirms_and_both_become_players(
    english_client_for, season, six
):
    ana, ben = six["ana"], six["ben"]
    english_client_for(ana).post(
        reverse("leagues:propose_pair", args=[season.pk]), {"partner": "BEN"}
    )
    pair = SeasonPair.objects.get()
    assert (pair.first, pair.second, pair.confirmed_at) == (ana, ben, None)
    assert not season.players.exists()
    page = english_client_for(ben).get(reverse("leagues:season", args=[season.pk]))
    assert "ana asks you to be their partner" in page.content.decode()
    english_client_for(ben).post(
        reverse("leagues:answer_pair", args=[season.pk, pair.pk]), {"answer": "confirm"}
    )
    assert SeasonPair.objects.get().confirmed_at is not None
    assert set(season.players.values_list("user__username", flat=True)) == {"ana", "ben"}


def test_a_member_already_in_a_pair_cannot_be_in_another_and_nothing_changes(season, six):
    pair_up(season, six["ana"], six["ben"])
    with pytest.raises(LeagueError, match="ben is already in a pair this season"):
        season.propose_pair(six["cai"], six["ben"])
    with pytest.raises(LeagueError, match="another member"):
        season.propose_pair(six["cai"], six["cai"])
    with pytest.raises(LeagueError, match="no member of that name"):
        season.propose_pair(six["cai"], None)
    assert SeasonPair.objects.count() == 1


def test_only_the_invited_partner_confirms_and_either_may_call_it_off(season, six):
    pair = season.propose_pair(six["ana"], six["ben"])
    with pytest.raises(LeagueError, match="Only the invited partner"):
        season.answer_pair(pair.pk, six["ana"], accept=True)
    season.answer_pair(pair.pk, six["ana"], accept=False)
    assert not SeasonPair.objects.exists()


def test_fixtures_are_between_pairs_and_the_standings_are_by_pair(english_client_for, season, six):
    pair_up(season, six["ana"], six["ben"])
    pair_up(season, six["cai"], six["dee"])
    pair_up(season, six["eli"], six["fer"])
    assert season.generate_fixtures() == 3  # three pairs: each round one pair sits out
    fixtures = Fixture.objects.filter(round__season=season)
    assert fixtures.count() == 3
    first = fixtures.get(seats__user=six["ana"], seats__index=0)
    seats = [s.user.username for s in first.seats.order_by("index")]
    partners = {("ana", "ben"), ("cai", "dee"), ("eli", "fer")}
    assert (seats[0], seats[2]) in partners and (seats[1], seats[3]) in partners
    # The pair in seats 0 and 2 wins: both partners have first place, as a game in pairs ends.
    first.record_match_result(
        [SimpleNamespace(index=i, rank=1 if i % 2 == 0 else 2, score=21) for i in range(4)]
    )
    page = english_client_for(six["ana"]).get(reverse("leagues:season", args=[season.pk]))
    rows = {row.name: row for row in page.context["standings"]}
    assert set(rows) == {"ana & ben", "cai & dee", "eli & fer"}
    winners = f"{seats[0]} & {seats[2]}"
    assert rows[winners].points == 3 and rows[winners].played == 1
    assert page.context["crosstable"] is not None


def test_a_season_of_pairs_needs_house_rules_played_in_pairs(make_member, six):
    league = League.objects.create(name="Suelta", game="escoba", variant=variant("escoba"))
    season = Season.objects.create(league=league, name="x", starts_on=date.today(), pairs=True)
    pair_up(season, six["ana"], six["ben"])
    pair_up(season, six["cai"], six["dee"])
    with pytest.raises(LeagueError):
        season.generate_fixtures()
    assert not season.rounds.exists()
