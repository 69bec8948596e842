"""Ratings, leaderboards and the ratings part of member profiles.

Matches are made with the ORM and finished the way ``games.turns`` finishes them: by sending
``match_finished`` inside the transaction. A few tests go through the real actions and views.
Assertions look at data (context, data-attributes, numbers), never at translated words.
"""

from __future__ import annotations

import itertools
import random
import re
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone, translation
from openskill.models import PlackettLuce

from cardclub.http import pk_url_maker
from cardclub.ratings.models import HeadToHead, MatchResult, Rating
from cardclub.ratings.present import decimal_maker, member_url_maker
from cardclub.ratings.profile import CHART_MAX_POINTS, chart_step, rating_chart
from cardclub.ratings.receivers import on_match_finished
from cardclub.ratings.skill import DEFAULT_MU, DEFAULT_SIGMA, PROVISIONAL_GAMES
from cardclub.ratings.views import PAGE_SIZE
from games import writes
from games.models import Match, RuleVariant, Seat
from games.signals import match_finished

pytestmark = pytest.mark.django_db

_clock = itertools.count()
_BASE = timezone.now() - timedelta(days=365)


def _next_time():
    # Strictly increasing finish times, so the order the matches finished is unambiguous.
    return _BASE + timedelta(minutes=next(_clock))


def finish(players, ranks, *, game="scout", slug="standard", rated=True, options=None):
    """Make a finished match: ``players`` are members or bot levels ("easy"/"hard"), ``ranks``
    their final places; then finish it as ``games.turns`` does."""
    variant = RuleVariant.objects.get(game=game, slug=slug)
    has_bot = any(isinstance(p, str) for p in players)
    when = _next_time()
    match = Match.objects.create(
        game=game,
        variant=variant,
        options=dict(variant.options if options is None else options),
        players=len(players),
        status=Match.Status.FINISHED,
        rated=rated and variant.rated and not has_bot,
        started_at=when - timedelta(minutes=5),
        finished_at=when,
    )
    seats = Seat.objects.bulk_create(
        [
            Seat(
                match=match,
                index=index,
                user=None if isinstance(player, str) else player,
                bot_level=player if isinstance(player, str) else "",
                rank=rank,
                score=0,
            )
            for index, (player, rank) in enumerate(zip(players, ranks, strict=True))
        ]
    )
    with transaction.atomic():
        match_finished.send(sender=Match, match=match, seats=seats)
    return match


def rating(user, game="scout") -> Rating:
    return Rating.objects.get(user=user, game=game)


def openskill_says(ranks, teams=None):
    """What openskill itself gives newcomers with these places (one member per side unless
    ``teams`` says how many members each side has)."""
    model = PlackettLuce()
    teams = teams or [1] * len(ranks)
    result = model.rate([[model.rating() for _ in range(size)] for size in teams], ranks=ranks)
    return [[(r.mu, r.sigma) for r in team] for team in result]


@pytest.fixture
def members(make_member):
    return [make_member(name) for name in ("ana", "blas", "carmen", "dario", "elena")]


# --- Rating direction and size ------------------------------------------------------------


def test_the_winner_of_a_two_player_match_gains_exactly_what_the_loser_loses(alice, bob):
    finish([alice, bob], [1, 2], game="schotten_totten")
    won, lost = rating(alice, "schotten_totten"), rating(bob, "schotten_totten")
    assert won.mu > DEFAULT_MU > lost.mu
    assert won.mu - DEFAULT_MU == pytest.approx(DEFAULT_MU - lost.mu)
    assert won.sigma < DEFAULT_SIGMA and lost.sigma < DEFAULT_SIGMA
    [[(mu_a, sigma_a)], [(mu_b, sigma_b)]] = openskill_says([1, 2])
    assert (won.mu, won.sigma, lost.mu, lost.sigma) == (mu_a, sigma_a, mu_b, sigma_b)
    assert (won.games, won.wins, lost.games, lost.wins) == (1, 1, 1, 0)
    assert won.ordinal > lost.ordinal


@pytest.mark.parametrize("size", [2, 3, 4, 5])
def test_every_place_of_a_multiplayer_match_rates_below_the_one_before(members, size):
    players = members[:size]
    finish(players, list(range(1, size + 1)))
    after = [rating(player) for player in players]
    mus = [r.mu for r in after]
    assert mus == sorted(mus, reverse=True) and len(set(mus)) == size
    assert mus[0] > DEFAULT_MU > mus[-1]
    assert [(r.mu, r.sigma) for r in after] == [
        team[0] for team in openskill_says(list(range(1, size + 1)))
    ]
    assert [r.wins for r in after] == [1] + [0] * (size - 1)


def test_tied_players_change_alike_and_an_even_draw_moves_no_mean(members):
    ana, blas, carmen, dario, elena = members
    finish([ana, blas, carmen], [1, 1, 3])
    assert rating(ana).mu == pytest.approx(rating(blas).mu)
    assert rating(ana).mu > DEFAULT_MU > rating(carmen).mu
    assert rating(ana).wins == rating(blas).wins == 1

    finish([dario, elena], [1, 1], game="escoba")
    draw = [rating(dario, "escoba"), rating(elena, "escoba")]
    assert [r.mu for r in draw] == pytest.approx([DEFAULT_MU, DEFAULT_MU])
    assert all(r.sigma < DEFAULT_SIGMA for r in draw)


def test_beating_a_strong_player_gains_more_than_beating_a_weak_one(members):
    strong, weak, newcomer_a, newcomer_b, _ = members
    for _round in range(5):
        finish([strong, weak], [1, 2], game="schotten_totten")
    finish([newcomer_a, strong], [1, 2], game="schotten_totten")
    finish([newcomer_b, weak], [1, 2], game="schotten_totten")
    gain_over_strong = rating(newcomer_a, "schotten_totten").mu - DEFAULT_MU
    gain_over_weak = rating(newcomer_b, "schotten_totten").mu - DEFAULT_MU
    assert gain_over_strong > gain_over_weak > 0


def test_partners_in_pairs_escoba_are_rated_as_one_side(members):
    ana, blas, carmen, dario, _ = members
    finish([ana, blas, carmen, dario], [1, 2, 1, 2], game="escoba", slug="por-parejas")
    winners = [rating(ana, "escoba"), rating(carmen, "escoba")]
    losers = [rating(blas, "escoba"), rating(dario, "escoba")]
    [[win, win_again], [loss, loss_again]] = openskill_says([1, 2], teams=[2, 2])
    assert [(r.mu, r.sigma) for r in winners] == [win, win_again]
    assert [(r.mu, r.sigma) for r in losers] == [loss, loss_again]
    assert winners[0].mu > DEFAULT_MU > losers[0].mu
    # As teams the size differs from four separate places: the second pair did not come 4th.
    assert winners[0].mu != openskill_says([1, 2, 3, 4])[0][0][0]


def test_when_a_partner_resigns_in_pairs_the_whole_pair_loses(members):
    ana, blas, carmen, dario, _ = members
    # As games.writes.resign ranks it: the resigner (seat 0) last, everybody else first.
    match = finish([ana, blas, carmen, dario], [2, 1, 1, 1], game="escoba", slug="por-parejas")
    partner = rating(carmen, "escoba")
    assert partner.mu == rating(ana, "escoba").mu < DEFAULT_MU < rating(blas, "escoba").mu
    assert partner.wins == 0
    assert MatchResult.objects.get(match=match, user=carmen).rank == 2
    assert HeadToHead.objects.get(user=carmen, rival=blas).losses == 1


def test_a_member_who_resigns_ranks_last_and_loses_rating(alice, bob, client_for):
    variant = RuleVariant.objects.get(game="schotten_totten", slug="standard")
    match = writes.create_match(alice, variant, 2, ["open"])
    writes.join_match(match.pk, bob)
    response = client_for(alice).post(reverse("games:resign", args=[match.pk]))
    assert response.status_code == 302  # a form post without htmx: back to the table
    assert rating(alice, "schotten_totten").mu < DEFAULT_MU < rating(bob, "schotten_totten").mu
    result = MatchResult.objects.get(match=match, user=alice)
    assert result.rated and result.rank == 2 and result.delta < 0


def test_finishing_a_rated_match_shows_on_the_leaderboard_and_both_profiles(alice, bob, client_for):
    variant = RuleVariant.objects.get(game="schotten_totten", slug="standard")
    match = writes.create_match(alice, variant, 2, ["open"])
    writes.join_match(match.pk, bob)
    viewer = client_for(bob)
    board = viewer.get(reverse("ratings:leaderboard", args=["schotten_totten"]))
    assert board.context["rows"] == []
    viewer.post(reverse("games:resign", args=[match.pk]))  # bob resigns, alice wins
    board = viewer.get(reverse("ratings:leaderboard", args=["schotten_totten"]))
    assert [r.username for r in board.context["rows"]] == ["alice", "bob"]
    for name in ("alice", "bob"):
        page = viewer.get(reverse("member", args=[name]))
        assert [g.rating.game for g in page.context["game_ratings"]] == ["schotten_totten"]
        assert reverse("games:replay", args=[match.pk]) in page.content.decode()


# --- Unrated matches ------------------------------------------------------------------------


def test_a_match_with_a_bot_changes_no_rating(alice, bob):
    finish([alice, "easy"], [1, 2], game="schotten_totten")
    # Even a match wrongly flagged rated is not rated with a bot at the table.
    match = finish([alice, bob, "hard"], [1, 2, 3])
    Match.objects.filter(pk=match.pk).update(rated=True)
    match.refresh_from_db()
    MatchResult.objects.filter(match=match).delete()  # recorded once already, unrated
    with transaction.atomic():
        match_finished.send(sender=Match, match=match, seats=list(match.seats.all()))
    assert not Rating.objects.exists()
    assert not MatchResult.objects.filter(rated=True).exists()
    # The members' results still count, and alice and bob met each other (not the bot).
    assert MatchResult.objects.filter(user=alice).count() == 2
    assert [(h.user, h.rival) for h in HeadToHead.objects.order_by("user_id")] == [
        (alice, bob),
        (bob, alice),
    ]


def test_unrated_house_rules_change_no_rating(alice, bob):
    variant = RuleVariant.objects.get(game="schotten_totten", slug="standard")
    variant.rated = False
    variant.save()
    match = writes.create_match(alice, variant, 2, ["open"])
    assert match.rated is False
    writes.join_match(match.pk, bob)
    writes.resign(match.pk, alice)
    assert Match.objects.get(pk=match.pk).status == Match.Status.FINISHED
    assert not Rating.objects.exists()
    assert not MatchResult.objects.filter(rated=True).exists()
    assert HeadToHead.objects.get(user=bob, rival=alice).wins == 1


def test_an_unrated_match_still_appears_in_the_profile_without_a_rating_change(alice, alice_client):
    match = finish([alice, "easy"], [1, 2], game="escoba")
    page = alice_client.get(reverse("member", args=["alice"]))
    [recent] = page.context["recent_matches"]
    assert recent.pk == match.pk and recent.delta is None and recent.won


# --- Rebuild ----------------------------------------------------------------------------------


def _snapshot():
    ratings = sorted(
        Rating.objects.values_list(
            "user_id", "game", "mu", "sigma", "ordinal", "games", "wins", "provisional",
            "last_played_at", "last_match_id",
        )
    )  # fmt: skip
    results = sorted(
        MatchResult.objects.values_list(
            "match_id", "user_id", "game", "rank", "finished_at", "rated", "game_number",
            "mu_before", "sigma_before", "ordinal_before", "mu_after", "sigma_after",
            "ordinal_after",
        )
    )  # fmt: skip
    rivals = sorted(
        HeadToHead.objects.values_list("user_id", "rival_id", "played", "wins", "losses", "shared")
    )
    return ratings, results, rivals


def test_rebuilding_gives_exactly_the_ratings_of_the_incremental_updates(make_member):
    people = [make_member(f"p{i}") for i in range(7)]
    rng = random.Random(10)
    for _n in range(60):
        kind = rng.choice(["scout", "escoba", "pairs", "schotten_totten", "bot", "resign"])
        if kind == "pairs":
            table = rng.sample(people, 4)
            first = rng.choice([1, 2])
            finish(table, [first, 3 - first] * 2, game="escoba", slug="por-parejas")
        elif kind == "schotten_totten":
            finish(rng.sample(people, 2), rng.choice([[1, 2], [2, 1]]), game="schotten_totten")
        elif kind == "bot":
            finish([rng.choice(people), "easy"], [1, 2], game="escoba")
        elif kind == "resign":
            table = rng.sample(people, 3)
            finish(table, [1, 2, 1])
        else:
            size = rng.randint(2, 5) if kind == "scout" else rng.randint(2, 4)
            scores = [rng.randint(1, size) for _ in range(size)]
            ranks = [1 + sum(other < mine for other in scores) for mine in scores]  # with ties
            finish(rng.sample(people, size), ranks, game=kind)
    incremental = _snapshot()
    assert len(incremental[0]) > 10 and len(incremental[1]) > 100 and len(incremental[2]) > 30
    # Scramble the stored ratings, so the rebuild has to produce them, not just keep them.
    Rating.objects.update(mu=1.0, sigma=1.0, games=99)
    HeadToHead.objects.update(played=0)
    out = StringIO()
    call_command("rebuild_ratings", stdout=out)
    assert _snapshot() == incremental
    assert "100%" in out.getvalue()
    assert re.search(r"\[#{30}\]", out.getvalue())


def test_rebuilding_an_empty_club_leaves_no_ratings(db):
    out = StringIO()
    call_command("rebuild_ratings", "--no-progress", stdout=out)
    assert not Rating.objects.exists()
    assert "%" not in out.getvalue()


# --- Leaderboards -------------------------------------------------------------------------


def _rated(user, game, ordinal, games):
    return Rating.objects.create(
        user=user,
        game=game,
        ordinal=ordinal,
        games=games,
        wins=games // 2,
        provisional=games < PROVISIONAL_GAMES,
        last_played_at=timezone.now(),
    )


def test_the_leaderboard_lists_settled_ratings_by_rating_then_provisional_ones(
    alice_client, alice, bob, charlie, make_member
):
    dora = make_member("dora")
    _rated(alice, "scout", 5.0, 12)
    _rated(bob, "scout", 8.0, 30)
    _rated(charlie, "scout", 20.0, 3)  # the highest rating, but only three games
    _rated(dora, "scout", 2.0, PROVISIONAL_GAMES - 1)
    _rated(dora, "escoba", 50.0, 40)  # another game's pool
    response = alice_client.get(reverse("ratings:leaderboard", args=["scout"]))
    rows = response.context["rows"]
    assert [r.username for r in rows] == ["bob", "alice", "charlie", "dora"]
    assert [r.position for r in rows] == [1, 2, 3, 4]
    assert [r.provisional for r in rows] == [False, False, True, True]
    page = response.content.decode()
    marked = re.findall(r'data-member="(\w+)" class="provisional" data-provisional', page)
    assert marked == ["charlie", "dora"]
    assert response.context["my_page"] == 1


def test_the_leaderboard_is_paginated_and_numbers_places_across_pages(
    alice_client, alice, make_member
):
    for i in range(PAGE_SIZE + 10):
        _rated(make_member(f"m{i:02d}"), "escoba", 100.0 - i, 20)
    _rated(alice, "escoba", -5.0, 20)
    url = reverse("ratings:leaderboard", args=["escoba"])
    first = alice_client.get(url)
    assert len(first.context["rows"]) == PAGE_SIZE
    assert first.context["my_page"] == 2
    second = alice_client.get(url, {"page": 2})
    assert [r.position for r in second.context["rows"]] == list(range(51, 62))
    assert second.context["rows"][-1].username == "alice"
    partial = alice_client.get(url, {"page": 2}, HTTP_HX_REQUEST="true").content.decode()
    assert partial.lstrip().startswith('<section id="board"') and "<html" not in partial


def test_the_club_page_shows_the_top_of_every_game(alice_client, alice, bob, make_member):
    for i in range(12):
        _rated(make_member(f"s{i:02d}"), "scout", float(i), 15)
    _rated(bob, "schotten_totten", 1.0, 2)
    response = alice_client.get(reverse("ratings:club"))
    boards = {board["game"]: board["rows"] for board in response.context["boards"]}
    assert set(boards) == {"escoba", "schotten_totten", "scout"}
    assert [r.username for r in boards["scout"]] == [f"s{i:02d}" for i in range(11, 1, -1)]
    assert [r.position for r in boards["scout"]][:3] == [1, 2, 3]
    assert [r.username for r in boards["schotten_totten"]] == ["bob"]
    assert boards["escoba"] == []
    assert 'href="/ratings/scout/"' in response.content.decode()


def test_an_unknown_game_has_no_leaderboard(alice_client):
    assert alice_client.get("/ratings/poker/").status_code == 404


def test_leaderboards_are_for_members(client):
    response = client.get(reverse("ratings:club"))
    assert response.status_code == 302 and "login" in response["Location"]


def test_the_navigation_links_to_the_leaderboards(alice_client):
    page = alice_client.get(reverse("home")).content.decode()
    assert f'href="{reverse("ratings:club")}"' in page


# --- Profiles -------------------------------------------------------------------------------


def test_the_profile_shows_ratings_history_recent_matches_and_rivals(
    alice_client, alice, bob, charlie
):
    matches = []
    for n in range(12):
        ranks = [1, 2] if n % 3 else [2, 1]  # alice wins 8 of 12 against bob
        matches.append(finish([alice, bob], ranks, game="schotten_totten"))
    matches.append(finish([alice, bob, charlie], [3, 1, 2]))
    response = alice_client.get(reverse("member", args=["alice"]))
    context = response.context
    by_game = {g.rating.game: g for g in context["game_ratings"]}
    assert set(by_game) == {"schotten_totten", "scout"}
    assert by_game["schotten_totten"].rating.games == 12
    assert by_game["schotten_totten"].chart.games == 12
    assert not by_game["schotten_totten"].rating.provisional
    assert by_game["scout"].rating.provisional
    recent = context["recent_matches"]
    assert [r.pk for r in recent] == [m.pk for m in reversed(matches)][:10]
    assert recent[0].rank == 3 and recent[0].delta < 0 and recent[1].won
    assert [s.name for s in recent[0].seats] == ["alice", "bob", "charlie"]
    rivals = {r.rival.username: r for r in context["rivals"]}
    assert [r.rival for r in context["rivals"]] == [bob, charlie]
    assert (rivals["bob"].played, rivals["bob"].wins, rivals["bob"].losses) == (13, 8, 5)
    assert (rivals["charlie"].played, rivals["charlie"].losses) == (1, 1)
    page = response.content.decode()
    assert page.count('<svg class="rating-chart"') == 2
    assert re.search(r'<polyline class="line" points="[\d. ,]+"', page)
    for match in matches[-10:]:
        assert reverse("games:replay", args=[match.pk]) in page
        assert reverse("games:match", args=[match.pk]) in page


def test_a_new_member_profile_has_no_ratings_yet(alice_client, bob):
    context = alice_client.get(reverse("member", args=["bob"])).context
    assert context["game_ratings"] == [] and context["recent_matches"] == []
    assert context["rivals"] == []


def test_partners_are_not_opponents_in_the_head_to_head_records(alice_client, alice, bob, members):
    ana, blas, carmen, *_ = members
    finish([alice, ana, bob, blas], [1, 2, 1, 2], game="escoba", slug="por-parejas")
    finish([alice, carmen, ana], [1, 1, 3])  # a shared first place
    rivals = {r.rival.username: r for r in alice_client.get("/members/alice/").context["rivals"]}
    assert set(rivals) == {"ana", "blas", "carmen"}
    assert (rivals["ana"].played, rivals["ana"].wins, rivals["blas"].wins) == (2, 2, 1)
    assert (rivals["carmen"].shared, rivals["carmen"].wins) == (1, 0)


def test_a_chart_spans_the_whole_history_in_a_fixed_frame():
    chart = rating_chart([(0, 0.0)] + [(n, float(n % 17)) for n in range(1, 5001, 25)])
    points = chart.points.split()
    assert points[0].startswith(f"{chart.left:.1f},")
    assert points[-1] == f"{chart.right:.1f},{chart.last_y}" and chart.games == 4976
    assert all(0 <= float(p.split(",")[1]) <= chart.height for p in points)
    assert chart_step(5000) * CHART_MAX_POINTS >= 5000 and chart_step(12) == 1
    assert rating_chart([(0, 0.0)]) is None


def test_a_long_history_reaches_the_profile_chart_thinned(alice_client, alice, bob):
    for n in range(CHART_MAX_POINTS + 30):
        finish([alice, bob], [1, 2] if n % 2 else [2, 1], game="schotten_totten")
    [game] = alice_client.get("/members/alice/").context["game_ratings"]
    assert game.chart.games == CHART_MAX_POINTS + 30  # the latest game is always plotted
    assert len(game.chart.points.split()) <= CHART_MAX_POINTS + 2  # and the starting point


# --- Queries --------------------------------------------------------------------------------


def _record_writes(players):
    """The statements the ratings receiver alone runs for a five-member Scout match."""
    variant = RuleVariant.objects.get(game="scout", slug="standard")
    match = Match.objects.create(
        game="scout", variant=variant, players=5, status="finished", finished_at=_next_time()
    )
    seats = Seat.objects.bulk_create(
        [Seat(match=match, index=i, user=m, rank=i + 1) for i, m in enumerate(players)]
    )
    # The receiver alone: other apps (leagues) listen to the same signal.
    with CaptureQueriesContext(connection) as queries, transaction.atomic():
        on_match_finished(sender=Match, match=match, seats=seats)
    assert MatchResult.objects.filter(match=match, rated=True).count() == 5
    return [q["sql"] for q in queries.captured_queries if "SAVEPOINT" not in q["sql"]]


def test_recording_a_rated_match_takes_four_queries_whatever_the_table_size(members):
    finish(members[:2], [1, 2])  # existing ratings for two, newcomers for three
    # Claim the rows (created for newcomers, locked), update them; results; head-to-head.
    assert len(_record_writes(members)) == 4
    assert Rating.objects.filter(game="scout", user__in=members, games=1).count() == 3
    assert len(_record_writes(members)) == 4
    assert HeadToHead.objects.filter(user=members[0]).count() == 4
    assert Rating.objects.get(user=members[2], game="scout").games == 2


def test_the_leaderboard_takes_a_fixed_number_of_queries(
    alice_client, alice, make_member, django_assert_max_num_queries
):
    for i in range(30):
        _rated(make_member(f"q{i:02d}"), "scout", float(i), 5 + i)
    _rated(alice, "scout", 3.0, 12)
    url = reverse("ratings:leaderboard", args=["scout"])
    # session, user, newest finished match, count, page, my rating, my place, the bell's unread
    # count, and "last seen" (written by the first request of a member in a few minutes)
    with django_assert_max_num_queries(9):
        first = alice_client.get(url)
    # Kept until the next match ends: session, user, newest finished match, my rating, the bell.
    with django_assert_max_num_queries(5):
        again = alice_client.get(url)
    boards = [r.content.split(b'id="board"')[1] for r in (first, again)]
    assert boards[0] == boards[1]
    assert boards[0].count(b"<tr data-member=") == 31
    with django_assert_max_num_queries(6):  # session, user, one per game, the bell
        alice_client.get(reverse("ratings:club"))


def test_the_profile_takes_a_fixed_number_of_queries(
    alice_client, alice, bob, charlie, django_assert_max_num_queries
):
    for n in range(15):
        finish([alice, bob, charlie], [1 + n % 3, 1 + (n + 1) % 3, 1 + (n + 2) % 3])
        finish([alice, bob], [1, 2], game="escoba")
    # session, user, member, newest result, ratings, history, recent matches, rivals, the bell,
    # "last seen"
    with django_assert_max_num_queries(10):
        response = alice_client.get(reverse("member", args=["alice"]))
    assert len(response.context["recent_matches"]) == 10
    # Drawn once per finished match: the next visit reads none of the play statistics.
    with django_assert_max_num_queries(5):
        again = alice_client.get(reverse("member", args=["alice"]))
    # (The page's CSRF token is masked afresh on every request; the sections are the same.)
    sections = [r.content.split(b'class="member-ratings"')[1] for r in (response, again)]
    assert sections[0] == sections[1]


def test_a_kept_profile_is_drawn_again_once_the_member_finishes_a_match(alice_client, alice, bob):
    finish([alice, bob], [1, 2], game="escoba")
    first = alice_client.get(reverse("member", args=["alice"])).content.decode()
    assert first.count("<tr data-match=") == 1
    finish([alice, bob], [2, 1], game="escoba")
    second = alice_client.get(reverse("member", args=["alice"])).content.decode()
    assert second.count("<tr data-match=") == 2


# --- Admin --------------------------------------------------------------------------------


def test_the_admin_shows_ratings_but_does_not_let_them_be_edited(client, make_member, bob):
    admin = make_member("boss", is_staff=True, is_superuser=True)
    client.force_login(admin, backend="django.contrib.auth.backends.ModelBackend")
    finish([admin, bob], [1, 2], game="escoba")
    assert client.get(reverse("admin:ratings_rating_changelist")).status_code == 200
    assert client.get(reverse("admin:ratings_matchresult_changelist")).status_code == 200
    assert client.get(reverse("admin:ratings_headtohead_changelist")).status_code == 200
    assert client.get(reverse("admin:ratings_rating_add")).status_code == 403


# --- Presentation ---------------------------------------------------------------------------


@pytest.mark.parametrize("username", ["alice", "a.b+c@d-e_f", "núria"])
def test_profile_links_are_the_urls_reverse_would_give(username):
    assert member_url_maker()(username) == reverse("member", args=[username])
    assert pk_url_maker("games:replay")(42) == reverse("games:replay", args=[42])


def test_ratings_are_written_with_the_languages_decimal_separator_and_a_real_minus_sign():
    with translation.override("es"):
        assert decimal_maker(1)(2.46) == "2,5" and decimal_maker(1)(-0.01) == "0,0"
    with translation.override("en"):
        assert decimal_maker(1)(-3.14) == "\u22123.1"


def test_a_rating_below_zero_is_written_with_a_minus_sign_on_the_leaderboard(alice, client_for):
    Rating.objects.create(user=alice, game="escoba", ordinal=-1.84, games=12, provisional=False)
    page = client_for(alice).get(reverse("ratings:leaderboard", args=["escoba"])).content.decode()
    assert "Tu puntuación: \u22121,8." in page
    assert "-1,8" not in page
