"""Cups through the site: the draw by rating with byes, games until a tie is won, winners
meeting when both ties before are decided, the bracket page live, withdrawals."""

from __future__ import annotations

from datetime import date
from types import SimpleNamespace

import pytest
from django.db import transaction
from django.urls import reverse

from cardclub.leagues import live
from cardclub.leagues.models import Fixture, LeagueError, Season, Tie
from cardclub.ratings.models import Rating

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("in_english")]


def cup(league, members, **extra) -> Season:
    season = Season.objects.create(
        league=league, name="Copa", starts_on=date.today(), format=Season.Format.CUP, **extra
    )
    for member in members:
        season.add_player(member)
    return season


@pytest.fixture
def six(make_member):
    members = [make_member(f"c{n}") for n in range(1, 7)]
    for rank, member in enumerate(members):  # c1 the best rated
        Rating.objects.create(user=member, game="schotten_totten", ordinal=100 - rank)
    return members


def play(fixture: Fixture, winner=None) -> None:
    """The game ends: ``winner`` (a member) wins, or None draws."""
    seats = list(fixture.seats.order_by("index"))
    ranks = [1, 1] if winner is None else [1 if s.user == winner else 2 for s in seats]
    # In one transaction, as the finishing match's receiver records it (its locks need one on
    # PostgreSQL when a test runs without the test case's own transaction).
    with transaction.atomic():
        fixture.record_match_result(
            [
                SimpleNamespace(index=s.index, rank=r, score=0)
                for s, r in zip(seats, ranks, strict=True)
            ]
        )


def open_games(season):
    return Fixture.objects.filter(round__season=season, status=Fixture.Status.SCHEDULED)


def names(tie) -> tuple:
    return (tie.first.username, tie.second.username if tie.second else None)


def test_the_draw_seeds_by_rating_and_gives_the_top_seeds_the_byes(league, six):
    season = cup(league, six)
    assert season.generate_fixtures() == 3
    first_round = Tie.objects.filter(round__number=1).order_by("slot")
    # 8 places for 6: seeds 1 and 2 have byes; 4 v 5 and 3 v 6 play.
    assert [names(t) for t in first_round] == [
        ("c1", None),
        ("c4", "c5"),
        ("c2", None),
        ("c3", "c6"),
    ]
    assert open_games(season).count() == 2
    with pytest.raises(LeagueError, match="moves on by itself"):
        season.next_round()


def test_winners_meet_once_both_ties_before_are_decided_and_the_final_ends_the_season(
    english_client_for, league, six
):
    season = cup(league, six)
    season.generate_fixtures()
    c = {m.username: m for m in six}
    play(open_games(season).get(seats__user=c["c4"]), c["c5"])
    # c1 (bye) meets c5 now; c2's semi-final waits for 3 v 6.
    semis = Tie.objects.filter(round__number=2).order_by("slot")
    assert [names(t) for t in semis] == [("c1", "c5")]
    play(open_games(season).get(seats__user=c["c3"]), c["c3"])
    semis = Tie.objects.filter(round__number=2).order_by("slot")
    assert [names(t) for t in semis] == [("c1", "c5"), ("c2", "c3")]
    play(open_games(season).get(seats__user=c["c1"]), c["c5"])
    play(open_games(season).get(seats__user=c["c2"]), c["c2"])
    final = Tie.objects.get(round__number=3)
    assert names(final) == ("c2", "c5")  # the better seed first
    play(open_games(season).get(), c["c5"])
    season.refresh_from_db()
    assert season.status == Season.Status.FINISHED
    assert Tie.objects.get(round__number=3).winner == c["c5"]
    page = english_client_for(c["c1"]).get(reverse("leagues:season", args=[season.pk]))
    assert "Winner: c5" in page.content.decode()
    assert "Sitting out" not in page.content.decode()


def test_a_best_of_three_tie_alternates_the_first_seat_and_plays_a_draw_again(league, make_member):
    a, b = make_member("ana"), make_member("ben")
    season = cup(league, [a, b], best_of=3)
    season.generate_fixtures()
    play(open_games(season).get(), a)
    second = open_games(season).get()
    assert [s.user for s in second.seats.order_by("index")] == [b, a]
    play(second, None)  # a draw: a third game, the tie still 1–0
    tie = Tie.objects.get()
    assert (tie.first_wins, tie.second_wins, tie.winner) == (1, 0, None)
    play(open_games(season).get(), a)
    tie.refresh_from_db()
    assert tie.winner == a and tie.first_wins == 2
    assert Season.objects.get(pk=season.pk).status == Season.Status.FINISHED


def test_the_bracket_page_shows_every_round_and_is_live_while_the_cup_runs(
    english_client_for, league, six
):
    season = cup(league, six)
    season.generate_fixtures()
    client = english_client_for(six[0])
    url = reverse("leagues:season", args=[season.pk])
    page = client.get(url)
    html = page.content.decode()
    assert [name for name, _ties in page.context["bracket"]] == [
        "Quarter-finals",
        "Semi-finals",
        "Final",
    ]
    # Live through its push stream (tests/web/leagues/test_leagues_cups_live.py); the test client is
    # no ASGI server, so the page names no stream and live.js polls every 15 s instead.
    assert 'data-live="bracket" data-poll-ms="15000"' in html and 'id="standings"' not in html
    assert 'hx-trigger="cardclub:update"' in html and "data-stream-url" not in html
    assert f'data-version="{live.stamp_now(season.pk)}"' in html
    fragment = client.get(url, {"part": "bracket"}, headers={"hx-request": "true"})
    body = fragment.content.decode()
    assert body.lstrip().startswith('<div id="bracket"') and "<html" not in body
    assert "c4" in body and "bye" in body


def test_a_member_who_withdraws_from_a_cup_hands_the_tie_to_the_other_side(league, six):
    season = cup(league, six)
    season.generate_fixtures()
    c = {m.username: m for m in six}
    season.withdraw(c["c4"])
    assert Tie.objects.get(round__number=1, slot=1).winner == c["c5"]
    assert names(Tie.objects.get(round__number=2, slot=0)) == ("c1", "c5")
