"""Swiss seasons through the site: seeding, pairing round after round, byes, tie-breaks, the
admin's "next round" and its refusals, the season page."""

from __future__ import annotations

import threading
from datetime import date
from types import SimpleNamespace

import pytest
from django.db import connection
from django.urls import reverse

from cardclub.leagues.models import Bye, Fixture, League, LeagueError, Season
from cardclub.ratings.models import Rating
from tests.web.table_helpers import variant

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("in_english")]


def swiss_season(league, members, rounds=3, **extra) -> Season:
    season = Season.objects.create(
        league=league,
        name="2026",
        starts_on=date.today(),
        format=Season.Format.SWISS,
        swiss_rounds=rounds,
        **extra,
    )
    for member in members:
        season.add_player(member)
    return season


@pytest.fixture
def seven(make_member):
    return [make_member(f"m{n}") for n in range(1, 8)]


def finish_round(season: Season, number: int, first_wins=True) -> None:
    """Every fixture of the round ends as a match would end it: first seat wins (or draws)."""
    for fixture in Fixture.objects.filter(round__season=season, round__number=number):
        ranks = (1, 2) if first_wins else (1, 1)
        fixture.record_match_result(
            [SimpleNamespace(index=i, rank=ranks[i], score=3 - i) for i in range(2)]
        )


def pairs_of(season, number):
    return {
        tuple(s.user.username for s in f.seats.order_by("index"))
        for f in Fixture.objects.filter(round__season=season, round__number=number)
    }


def test_a_swiss_starts_with_its_first_round_only_seeded_by_rating_and_a_bye_for_the_last_seed(
    league, seven
):
    # m7 is the best rated, m1 the worst: seeds follow the rating, not the order of joining.
    for rank, member in enumerate(seven):
        Rating.objects.create(user=member, game=league.game, ordinal=rank)
    season = swiss_season(league, seven)
    assert season.generate_fixtures() == 1
    season.refresh_from_db()
    assert season.current_round == 1 and season.rounds.count() == 1
    seeds = dict(season.players.values_list("user__username", "seed"))
    assert seeds["m7"] == 1 and seeds["m1"] == 7
    # Top half against bottom half, first seat alternating; the lowest seed has the bye.
    assert pairs_of(season, 1) == {("m7", "m4"), ("m3", "m6"), ("m5", "m2")}
    bye = Bye.objects.get(season=season)
    assert (bye.user.username, bye.round.number, bye.points) == ("m1", 1, 3)


def test_pairing_the_next_round_before_the_last_is_finished_is_refused_and_changes_nothing(
    league, seven
):
    season = swiss_season(league, seven)
    season.generate_fixtures()
    with pytest.raises(LeagueError, match="Round 1 is not finished: 3 fixtures are still to play"):
        season.next_round()
    season.refresh_from_db()
    assert season.current_round == 1
    assert season.rounds.count() == 1 and Bye.objects.count() == 1


def test_a_whole_swiss_pairs_every_round_from_the_standings_without_repeats_or_second_byes(
    league, seven
):
    season = swiss_season(league, seven, rounds=5)
    season.generate_fixtures()
    met = set()
    for number in range(1, 6):
        for pair in pairs_of(season, number):
            assert frozenset(pair) not in met
            met.add(frozenset(pair))
        finish_round(season, number, first_wins=number % 2 == 1)
        if number < 5:
            assert season.next_round() == number + 1
    with pytest.raises(LeagueError, match="already the season's last round"):
        season.next_round()
    byes = list(Bye.objects.filter(season=season).values_list("user_id", flat=True))
    assert len(byes) == 5 and len(set(byes)) == 5


def test_a_swiss_cannot_have_as_many_rounds_as_members(league, seven):
    season = swiss_season(league, seven, rounds=7)
    with pytest.raises(LeagueError, match="at most 6 rounds"):
        season.generate_fixtures()
    assert not season.rounds.exists()
    assert Season.objects.get(pk=season.pk).status == Season.Status.REGISTRATION


def test_the_standings_rank_level_members_by_the_seasons_tie_breaks_and_show_them(
    english_client_for, league, make_member
):
    four = [make_member(n) for n in ("ana", "ben", "cai", "dee")]
    season = swiss_season(league, four, rounds=2, tie_breaks=["sonneborn_berger", "wins"])
    season.generate_fixtures()
    # Round 1: ana–cai, dee–ben (seeds by joining: ana 1, ben 2, cai 3, dee 4); seat 0 wins.
    finish_round(season, 1)
    season.next_round()
    finish_round(season, 2)
    page = english_client_for(four[0]).get(reverse("leagues:season", args=[season.pk]))
    assert page.status_code == 200
    table = page.context["standings"]
    assert [row.points for row in table] == [6, 3, 3, 0]
    # The two on 3 points are ordered by Sonneborn-Berger, then wins, as the season says.
    level = [[float(v) for v in row.tie_values] for row in table[1:3]]
    assert level[0] >= level[1]
    assert all(len(row.tie_values) == 2 for row in table)
    html = page.content.decode()
    assert "Sonneborn-Berger" in html and 'id="crosstable"' in html
    # Each row of the Swiss crosstable has one cell per round played.
    assert len(page.context["crosstable"]) == 4
    assert page.context["crosstable"][0][2].count("<td>") == 2


def test_the_bye_shows_on_the_round_and_counts_in_the_standings(english_client_for, league, seven):
    season = swiss_season(league, seven, points_bye=2)
    season.generate_fixtures()
    page = english_client_for(seven[0]).get(reverse("leagues:season", args=[season.pk]))
    rows = {row.name: row for row in page.context["standings"]}
    assert rows["m7"].points == 2 and rows["m7"].byes == 1
    assert "Bye (2 points): m7" in page.content.decode()


def test_tie_breaks_that_do_not_exist_are_refused_with_a_message(league):
    season = Season(league=league, name="x", format=Season.Format.SWISS, tie_breaks=["luck"])
    with pytest.raises(Exception, match="Not a tie-break, or given twice: luck"):
        season.clean()


@pytest.fixture
def admin_client(english_client_for, make_member):
    return english_client_for(make_member("boss", is_staff=True, is_superuser=True))


def test_the_admins_next_round_pairs_a_swiss_and_says_why_it_refuses(admin_client, league, seven):
    season = swiss_season(league, seven)
    url = reverse("admin:leagues_season_changelist")

    def act(action):
        return admin_client.post(
            url, {"action": action, "_selected_action": [season.pk]}, follow=True
        )

    act("generate_fixtures")
    page = act("next_round")
    assert "Round 1 is not finished" in page.content.decode()
    assert Season.objects.get(pk=season.pk).current_round == 1
    finish_round(season, 1)
    act("next_round")
    assert Season.objects.get(pk=season.pk).current_round == 2
    assert season.rounds.count() == 2


@pytest.mark.django_db(transaction=True)
def test_two_admins_pressing_next_round_at_the_same_instant_make_one_round(
    english_client_for, make_member, league, seven
):
    season = swiss_season(league, seven)
    season.generate_fixtures()
    finish_round(season, 1)
    admins = [make_member(f"boss{n}", is_staff=True, is_superuser=True) for n in range(2)]
    clients = [english_client_for(admin) for admin in admins]
    url = reverse("admin:leagues_season_changelist")
    barrier = threading.Barrier(2)
    pages = []

    def press(client):
        barrier.wait()
        try:
            response = client.post(
                url,
                {"action": "next_round", "_selected_action": [season.pk]},
                follow=True,
                headers={"accept-language": "en"},
            )
            pages.append(response.content.decode())
        finally:
            connection.close()

    threads = [threading.Thread(target=press, args=(c,)) for c in clients]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    assert len(pages) == 2
    season.refresh_from_db()
    assert season.current_round == 2
    assert season.rounds.count() == 2
    assert Fixture.objects.filter(round__season=season, round__number=2).count() == 3
    assert Bye.objects.filter(season=season).count() == 2
    # One was told it worked, the other why nothing happened.
    assert sum("moved to the next round" in p for p in pages) == 1
    assert sum("Round 2 is not finished" in p for p in pages) == 1


def test_a_big_round_shows_its_tables_in_pages_and_always_the_members_own(
    english_client_for, league, seven, monkeypatch
):
    from cardclub.leagues import views

    monkeypatch.setattr(views, "TABLES_PER_PAGE", 1)
    season = swiss_season(league, seven)
    season.generate_fixtures()
    own = Fixture.objects.get(round__season=season, table=3)
    member = own.seats.first().user
    url = reverse("leagues:season", args=[season.pk])
    page = english_client_for(member).get(url, {"tables": "2"})
    assert sorted(f.table for f in page.context["fixtures"]) == [2, 3]
    assert "tables=3" in page.content.decode()
    # Nonsense asks for the first page, not an error.
    page = english_client_for(member).get(url, {"tables": "lots"})
    assert sorted(f.table for f in page.context["fixtures"]) == [1, 3]


def test_a_swiss_of_tables_seats_similar_points_together_round_after_round(
    english_client_for, make_member
):
    from itertools import combinations

    scout = League.objects.create(name="Scout", game="scout", variant=variant("scout"))
    members = [make_member(f"t{n}") for n in range(1, 8)]
    season = Season.objects.create(
        league=scout,
        name="T",
        starts_on=date.today(),
        format=Season.Format.SWISS_TABLES,
        table_size=3,
        swiss_rounds=3,
    )
    for member in members:
        season.add_player(member)
    season.generate_fixtures()
    first = Fixture.objects.filter(round__season=season, round__number=1)
    # Seed order (by joining, nobody rated): t1–t3, t4–t6, and t7 sits out.
    assert [sorted(s.user.username for s in f.seats.all()) for f in first.order_by("table")] == [
        ["t1", "t2", "t3"],
        ["t4", "t5", "t6"],
    ]
    with pytest.raises(LeagueError, match="Round 1 is not finished"):
        season.next_round()
    for fixture in first:
        fixture.record_match_result(
            [SimpleNamespace(index=i, rank=i + 1, score=0) for i in range(3)]
        )
    assert season.next_round() == 2
    second = list(Fixture.objects.filter(round__season=season, round__number=2))
    assert len(second) == 2
    met_before = {
        frozenset(p)
        for f in first
        for p in combinations(f.seats.values_list("user_id", flat=True), 2)
    }
    for fixture in second:
        seats = list(fixture.seats.values_list("user_id", flat=True))
        assert len(seats) == 3
        # Nobody plays the whole of last round's table again.
        assert sum(frozenset(p) in met_before for p in combinations(seats, 2)) < 3
    seated = {s for f in second for s in f.seats.values_list("user__username", flat=True)}
    assert "t7" in seated  # who sat out plays now
    page = english_client_for(members[0]).get(reverse("leagues:season", args=[season.pk]))
    assert page.status_code == 200 and len(page.context["standings"]) == 7
    assert "Sitting out:" in page.content.decode()
