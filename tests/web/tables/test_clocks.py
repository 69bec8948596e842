"""Match clocks as house rules: Fischer and correspondence arithmetic, losing on time (by the
worker's sweep and by an action that finds it), and the clock on the pages."""

from __future__ import annotations

import re
from datetime import timedelta
from unittest import mock

import pytest
from django.urls import reverse
from django.utils import timezone

from cardclub.ratings.models import MatchResult, Rating
from games import registry, tasks, timeouts, writes
from games.locking import ActionError
from games.models import Clock, Match, RuleVariant, Seat
from games.signals import match_timed_out
from tests.web.table_helpers import engine_state, post_move, run_bots, start_match, variant

pytestmark = pytest.mark.django_db

MINUTE = 60_000
# "Lost on time" in either of the site's languages (Spanish is the default).
ON_TIME = r"lost on time|por tiempo"


class Frozen:
    """``timezone.now()`` held still, moved on only by the test."""

    def __init__(self):
        self.now = timezone.now()

    def __call__(self):
        return self.now

    def advance(self, **delta):
        self.now += timedelta(**delta)


@pytest.fixture
def frozen():
    clock = Frozen()
    with mock.patch("django.utils.timezone.now", clock):
        yield clock


def clocked(game="escoba", slug="standard", **settings) -> RuleVariant:
    rules = variant(game, slug)
    for name, value in settings.items():
        setattr(rules, name, value)
    rules.save()
    return rules


def live(game="escoba", slug="standard", minutes=10, increment=5):
    return clocked(game, slug, clock=Clock.LIVE, clock_minutes=minutes, clock_increment=increment)


def correspondence(game="escoba", slug="standard", days=2):
    return clocked(game, slug, clock=Clock.CORRESPONDENCE, clock_days=days)


def mover(match):
    state = engine_state(match)
    return match.engine.to_move(state)[0], state


def play_first(match, users):
    """The seat to move plays its first legal move; returns that seat."""
    seat, state = mover(match)
    code = match.engine.legal_moves(state, seat)[0].code
    writes.play_move(match.pk, users[seat], code, match.version)
    match.refresh_from_db()
    return seat


@pytest.fixture
def heard_time_outs():
    heard = []

    def listen(sender, match, seats, **kwargs):
        heard.append((match.pk, [seat.index for seat in seats]))

    match_timed_out.connect(listen)
    yield heard
    match_timed_out.disconnect(listen)


# --- Arithmetic ------------------------------------------------------------------------------


def test_a_live_clock_charges_the_mover_its_thinking_time_and_adds_the_increment(
    frozen, alice, bob
):
    live(minutes=10, increment=5)
    match = start_match("escoba", [alice, bob])
    assert match.clock == Clock.LIVE
    assert match.clock_left == [10 * MINUTE, 10 * MINUTE]
    first, _state = mover(match)
    assert match.clock_deadline == frozen.now + timedelta(minutes=10)
    frozen.advance(seconds=7, milliseconds=250)
    play_first(match, [alice, bob])
    assert match.clock_left[first] == 10 * MINUTE - 7250 + 5000
    assert match.clock_left[1 - first] == 10 * MINUTE
    assert match.clock_turn_started == frozen.now
    assert match.clock_deadline == frozen.now + timedelta(minutes=10)
    frozen.advance(seconds=30)
    play_first(match, [alice, bob])
    assert match.clock_left[1 - first] == 10 * MINUTE - 30_000 + 5000


def test_a_correspondence_clock_gives_every_move_its_days_afresh(frozen, alice, bob):
    correspondence(days=2)
    match = start_match("escoba", [alice, bob])
    first, _state = mover(match)
    assert match.clock_deadline == frozen.now + timedelta(days=2)
    frozen.advance(days=1, hours=20)
    play_first(match, [alice, bob])
    # The next member has two whole days, whatever the first one used.
    assert match.clock_deadline == frozen.now + timedelta(days=2)
    assert match.clock_left[1 - first] == 2 * 86_400_000
    frozen.advance(hours=1)
    play_first(match, [alice, bob])
    assert match.clock_left[first] == 2 * 86_400_000
    assert match.clock_deadline == frozen.now + timedelta(days=2)


def test_a_match_keeps_the_clock_it_started_with_when_the_house_rules_change(alice, bob):
    rules = live(minutes=10)
    match = start_match("escoba", [alice, bob])
    rules.clock = Clock.NONE
    rules.save()
    match.refresh_from_db()
    assert match.clock == Clock.LIVE and match.clock_minutes == 10


def test_a_bot_seat_has_no_clock_and_nothing_runs_while_only_a_bot_is_awaited(frozen, alice):
    live(minutes=1, increment=0)
    match = start_match("escoba", [alice], fillers=["easy"])
    assert match.clock_left[1] is None
    assert match.clock_left[0] is not None
    seat, _state = mover(match)
    assert seat == 0  # run_bots played the bot's moves until alice is awaited


def test_a_match_without_a_clock_has_no_deadline(alice, bob):
    match = start_match("escoba", [alice, bob])
    assert match.clock == Clock.NONE
    assert match.clock_deadline is None and match.clock_left is None


def test_a_league_fixture_match_copies_the_clock_too(alice, bob):
    rules = correspondence(days=3)
    match = writes.start_match_for([alice, bob], rules)
    assert match.clock == Clock.CORRESPONDENCE and match.clock_days == 3
    assert match.clock_deadline is not None


# --- Losing on time ----------------------------------------------------------------------------


def test_in_a_two_player_match_the_worker_ends_it_and_the_other_member_wins(
    frozen, alice, bob, heard_time_outs, django_capture_on_commit_callbacks
):
    live(minutes=1, increment=0)
    match = start_match("escoba", [alice, bob])
    late, _state = mover(match)
    frozen.advance(seconds=61)
    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.sweep_clocks.call() == 1
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    seats = {s.index: s for s in match.seats.all()}
    assert seats[late].timed_out and seats[late].rank == 2
    assert not seats[1 - late].timed_out and seats[1 - late].rank == 1
    assert match.clock_left[late] == 0
    assert match.clock_deadline is None
    assert heard_time_outs == [(match.pk, [late])]
    # Ratings follow, as for any result: match_finished was sent.
    assert Rating.objects.filter(game="escoba", games=1).count() == 2
    assert MatchResult.objects.filter(match_id=match.pk).count() == 2


def test_playing_in_pairs_the_pair_of_the_member_out_of_time_loses(
    frozen, make_member, heard_time_outs, django_capture_on_commit_callbacks
):
    live(slug="por-parejas", minutes=2, increment=0)
    users = [make_member(name) for name in ("ana", "ben", "cora", "dan")]
    match = start_match("escoba", users, slug="por-parejas")
    late, _state = mover(match)
    frozen.advance(minutes=3)
    with django_capture_on_commit_callbacks(execute=True):
        assert timeouts.time_out(match.pk)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    ranks = {s.index: s.rank for s in match.seats.all()}
    assert ranks == {i: 2 if i % 2 == late % 2 else 1 for i in range(4)}
    assert heard_time_outs == [(match.pk, [late])]


def test_in_scout_with_four_the_match_goes_on_with_an_easy_bot_and_the_member_ranks_last(
    frozen, make_member, heard_time_outs, django_capture_on_commit_callbacks
):
    live(game="scout", minutes=5, increment=0)
    users = [make_member(name) for name in ("ana", "ben", "cora", "dan")]
    match = start_match("scout", users)
    assert match.rated
    # Seat 1 has almost no time left: it runs out first, the others keep playing.
    Match.objects.filter(pk=match.pk).update(
        clock_left=[5 * MINUTE, 1000, 5 * MINUTE, 5 * MINUTE],
        clock_deadline=match.clock_turn_started + timedelta(seconds=1),
    )
    Seat.objects.filter(match=match, index=1).update(to_move=True)
    frozen.advance(seconds=2)
    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.sweep_clocks.call() == 1
    match.refresh_from_db()
    assert match.status == Match.Status.PLAYING
    late = match.seats.get(index=1)
    assert late.timed_out and late.user.username == "ben" and late.plays_as_bot == "easy"
    assert match.clock_left[1] is None
    assert heard_time_outs == [(match.pk, [1])]
    # Ben may no longer move; the others play on and the bot plays his seat.
    moves = 0
    while match.status == Match.Status.PLAYING and moves < 2000:
        run_bots(match)
        match.refresh_from_db()
        if match.status != Match.Status.PLAYING:
            break
        state = engine_state(match)
        seat = next(i for i in match.engine.to_move(state) if i != 1)
        code = match.engine.legal_moves(state, seat)[0].code
        writes.play_move(match.pk, users[seat], code, match.version)
        match.refresh_from_db()
        moves += 1
    assert match.status == Match.Status.FINISHED
    ranks = {s.index: s.rank for s in match.seats.all()}
    assert ranks[1] == 4
    assert sorted(ranks[i] for i in (0, 2, 3))[0] == 1
    assert max(ranks[i] for i in (0, 2, 3)) <= 3
    # Still rated for everyone, Ben last.
    results = {r.user.username: r for r in MatchResult.objects.filter(match_id=match.pk)}
    assert len(results) == 4 and all(r.rated for r in results.values())
    assert results["ben"].rank == 4


def test_a_timed_out_member_cannot_move_for_the_bot(frozen, make_member):
    live(game="scout", minutes=5, increment=0)
    users = [make_member(name) for name in ("ana", "ben", "cora", "dan")]
    match = start_match("scout", users)
    Seat.objects.filter(match=match, index=1).update(timed_out=True, timed_out_after=0)
    match.refresh_from_db()
    state = engine_state(match)
    code = match.engine.legal_moves(state, 1)[0].code if 1 in match.engine.to_move(state) else "x"
    with pytest.raises(ActionError, match=ON_TIME):
        writes.play_move(match.pk, users[1], code, match.version)


def test_the_sweep_ends_expired_matches_and_leaves_the_others(frozen, alice, bob, charlie):
    live(minutes=1, increment=0)
    expiring = start_match("escoba", [alice, bob])
    frozen.advance(seconds=50)
    fresh = start_match("escoba", [alice, charlie])
    frozen.advance(seconds=15)
    assert list(timeouts.expired_matches()) == [(expiring.pk, expiring.version)]
    assert tasks.sweep_clocks.call() == 1
    expiring.refresh_from_db()
    fresh.refresh_from_db()
    assert expiring.status == Match.Status.FINISHED
    assert fresh.status == Match.Status.PLAYING and fresh.clock_deadline > frozen.now
    # A second sweep finds nothing more to do.
    assert tasks.sweep_clocks.call() == 0


def test_a_move_after_the_deadline_is_refused_and_the_time_out_applied(
    frozen, alice, bob, client_for
):
    live(minutes=1, increment=0)
    match = start_match("escoba", [alice, bob])
    late, state = mover(match)
    code = match.engine.legal_moves(state, late)[0].code
    frozen.advance(seconds=60, milliseconds=1)
    response = post_move(client_for([alice, bob][late]), match, code)
    assert response.status_code == 200
    assert re.search(ON_TIME, response.content.decode())
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert match.moves_played == 0
    assert match.seats.get(index=late).timed_out


def test_opening_the_table_after_the_deadline_applies_the_time_out(
    frozen, alice, bob, charlie, client_for
):
    correspondence(days=1)
    match = start_match("escoba", [alice, bob])
    frozen.advance(days=1, seconds=1)
    page = client_for(charlie).get(match.get_absolute_url())
    assert page.status_code == 200
    assert re.search(ON_TIME, page.content.decode())
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED


def test_a_poll_after_the_deadline_applies_the_time_out(frozen, alice, bob, client_for):
    live(minutes=1, increment=0)
    match = start_match("escoba", [alice, bob])
    frozen.advance(minutes=2)
    response = client_for(alice).get(
        reverse("games:poll", args=[match.pk]), {"v": match.version}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 200  # the table changed: it ended
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED


def test_a_sweep_that_lost_the_race_to_a_move_changes_nothing(frozen, alice, bob):
    live(minutes=1, increment=0)
    match = start_match("escoba", [alice, bob])
    frozen.advance(seconds=59)
    # The sweep read the match at this version, then the member's move got the lock first.
    seen = match.version
    play_first(match, [alice, bob])
    frozen.advance(seconds=2)
    assert timeouts.time_out(match.pk, seen) is False
    match.refresh_from_db()
    assert match.status == Match.Status.PLAYING
    assert not match.seats.filter(timed_out=True).exists()


def test_a_time_out_is_applied_once_whoever_finds_it_and_the_late_move_changes_nothing(
    frozen, alice, bob
):
    live(minutes=1, increment=0)
    match = start_match("escoba", [alice, bob])
    late, state = mover(match)
    code = match.engine.legal_moves(state, late)[0].code
    frozen.advance(seconds=61)
    version = match.version
    assert timeouts.time_out(match.pk, version) is True
    # A second worker with the same finding, and the late member's move, both find it done.
    assert timeouts.time_out(match.pk, version) is False
    with pytest.raises(ActionError):
        writes.play_move(match.pk, [alice, bob][late], code, version)
    match.refresh_from_db()
    assert match.version == version + 1
    assert MatchResult.objects.filter(match_id=match.pk).count() == 2
    assert Rating.objects.filter(game="escoba", games=1).count() == 2


# --- Pages -------------------------------------------------------------------------------------


def test_the_table_shows_every_seats_time_left_and_counts_down_the_running_one(
    frozen, alice, bob, charlie, client_for
):
    live(minutes=10, increment=5)
    match = start_match("escoba", [alice, bob])
    frozen.advance(seconds=65)
    page = client_for(charlie).get(match.get_absolute_url()).content.decode()
    assert page.count('class="clock clock-live') == 2
    assert "8:55" in page and "10:00" in page
    assert 'data-clock-running="1"' in page
    assert "js/clock.js" in page
    # The htmx fragment carries the clocks in the seats panel, and stays small.
    fragment = client_for(charlie).get(
        reverse("games:poll", args=[match.pk]), {"v": match.version - 1}, HTTP_HX_REQUEST="true"
    )
    assert b'data-clock-ms="535000"' in fragment.content


def test_the_lobby_and_my_matches_show_the_time_left_of_a_correspondence_match(
    frozen, alice, bob, alice_client
):
    correspondence(days=2)
    match = start_match("escoba", [alice, bob])
    frozen.advance(hours=5)
    lobby = alice_client.get(reverse("games:lobby")).content.decode()
    assert "1 d 19 h" in lobby
    mine = alice_client.get(reverse("games:my_matches"), HTTP_HX_REQUEST="true").content.decode()
    assert "1 d 19 h" in mine
    assert match.get_absolute_url() in mine


def test_a_move_with_a_clock_costs_no_more_queries_than_without(
    alice, bob, client_for, django_assert_max_num_queries
):
    live(minutes=10, increment=5)
    match = start_match("escoba", [alice, bob])
    seat, state = mover(match)
    code = match.engine.legal_moves(state, seat)[0].code
    client = client_for([alice, bob][seat])
    with django_assert_max_num_queries(12):
        assert post_move(client, match, code).status_code == 200
    match.refresh_from_db()
    assert match.moves_played == 1 and match.clock_left[seat] > 10 * MINUTE


def test_the_rules_page_explains_clocks_and_the_scout_rule(client):
    live(game="scout", minutes=15, increment=10)
    page = client.get(reverse("games:rules", args=["scout"])).content.decode()
    assert "losing on time" in page.lower() or "perder por tiempo" in page.lower()
    assert "15" in page


def test_the_game_log_and_the_export_record_the_time_out(frozen, alice, bob, client_for):
    live(minutes=1, increment=3)
    match = start_match("escoba", [alice, bob])
    play_first(match, [alice, bob])
    late, _state = mover(match)
    frozen.advance(minutes=2)
    assert tasks.sweep_clocks.call() == 1
    client = client_for(alice)
    log = client.get(reverse("games:log", args=[match.pk])).content.decode()
    name = [alice, bob][late].username
    assert re.search(ON_TIME, log)
    assert name in log
    exported = client.get(reverse("games:export", args=[match.pk])).json()
    assert exported["clock"]["kind"] == "live"
    assert exported["clock"]["minutes"] == 1 and exported["clock"]["increment_seconds"] == 3
    assert exported["clock"]["left_ms"][late] == 0
    assert exported["outcome"][late]["timed_out"] is True
    assert exported["outcome"][late]["timed_out_after"] == 1
    replay = client.get(reverse("games:replay", args=[match.pk])).content.decode()
    assert re.search(ON_TIME, replay)


# --- The admin ---------------------------------------------------------------------------------


@pytest.fixture
def admin_client(client, django_user_model):
    boss = django_user_model.objects.create_superuser("boss", "boss@example.com", "pw-long-boss-1")
    client.force_login(boss, backend="django.contrib.auth.backends.ModelBackend")
    return client


def rules_data(**extra):
    # Every option of the game at its default: only the clock is under test.
    options = {
        f"opt__schotten_totten__{opt.name}": ("on" if opt.default else "")
        if opt.kind == "bool"
        else opt.default
        for opt in registry.engine("schotten_totten").OPTIONS
    }
    return {
        **options,
        "game": "schotten_totten",
        "slug": "reloj",
        "name_es": "Con reloj",
        "name_en": "With a clock",
        "description_es": "",
        "description_en": "",
        "active": "on",
        "rated": "on",
        "ordering": 5,
        "clock": "none",
        "clock_increment": 0,
        **extra,
    }


def test_an_admin_saves_a_live_clock_and_a_correspondence_clock(admin_client):
    url = reverse("admin:games_rulevariant_add") + "?game=schotten_totten"
    response = admin_client.post(
        url, rules_data(clock="live", clock_minutes=15, clock_increment=10)
    )
    assert response.status_code == 302, response.context["adminform"].form.errors
    saved = RuleVariant.objects.get(slug="reloj")
    assert (saved.clock, saved.clock_minutes, saved.clock_increment) == ("live", 15, 10)
    response = admin_client.post(
        url, rules_data(slug="carta", clock="correspondence", clock_days=3)
    )
    assert response.status_code == 302, response.context["adminform"].form.errors
    assert RuleVariant.objects.get(slug="carta").clock_days == 3


@pytest.mark.parametrize(
    "bad",
    [
        {"clock": "live"},
        {"clock": "live", "clock_minutes": 0},
        {"clock": "live", "clock_minutes": 100_000},
        {"clock": "live", "clock_minutes": 10, "clock_increment": 5000},
        {"clock": "live", "clock_minutes": -5},
        {"clock": "correspondence"},
        {"clock": "correspondence", "clock_days": 400},
        {"clock": "sundial"},
    ],
    ids=[
        "live-without-minutes",
        "zero-minutes",
        "absurd-minutes",
        "absurd-increment",
        "negative-minutes",
        "correspondence-without-days",
        "absurd-days",
        "unknown-kind",
    ],
)
def test_the_admin_refuses_bad_clock_settings_with_a_message(admin_client, bad):
    response = admin_client.post(
        reverse("admin:games_rulevariant_add") + "?game=schotten_totten", rules_data(**bad)
    )
    assert response.status_code == 200
    assert response.context["adminform"].form.errors
    assert not RuleVariant.objects.filter(slug="reloj").exists()


def test_a_league_fixture_lost_on_time_counts_in_the_standings(frozen, make_member, client_for):
    from datetime import date

    from cardclub.leagues import actions as league_actions
    from cardclub.leagues.models import Fixture, League, Season

    correspondence(game="schotten_totten", days=1)
    league = League.objects.create(
        name="Liga", game="schotten_totten", variant=variant("schotten_totten")
    )
    season = Season.objects.create(league=league, name="2026", starts_on=date.today())
    ana, ben = make_member("ana"), make_member("ben")
    for member in (ana, ben):
        season.add_player(member)
    season.generate_fixtures()
    fixture = Fixture.objects.filter(round__season=season).first()
    league_actions.say_ready(fixture.pk, ana)
    fixture = league_actions.say_ready(fixture.pk, ben)
    match = fixture.match
    assert match.clock == Clock.CORRESPONDENCE
    late, _state = mover(match)
    frozen.advance(days=1, seconds=1)
    assert tasks.sweep_clocks.call() == 1
    fixture.refresh_from_db()
    assert fixture.status == Fixture.Status.PLAYED
    page = client_for(ana).get(reverse("leagues:season", args=[season.pk]))
    table = {row.name: row for row in page.context["standings"]}
    loser, winner = match.seats.get(index=late).user, match.seats.get(index=1 - late).user
    assert (table[winner.username].points, table[winner.username].won) == (3, 1)
    assert (table[loser.username].points, table[loser.username].lost) == (0, 1)


@pytest.mark.django_db(transaction=True)
def test_two_sweeps_and_the_late_move_at_the_same_instant_end_the_match_once(
    alice, bob, client_for
):
    import threading

    from django.db import connection

    live(minutes=1, increment=0)
    match = start_match("escoba", [alice, bob])
    late, state = mover(match)
    code = match.engine.legal_moves(state, late)[0].code
    Match.objects.filter(pk=match.pk).update(
        clock_turn_started=timezone.now() - timedelta(minutes=2),
        clock_deadline=timezone.now() - timedelta(minutes=1),
    )
    before = match.version
    client = client_for([alice, bob][late])
    barrier = threading.Barrier(3)
    outcomes = []

    def run(job):
        barrier.wait()
        try:
            outcomes.append(job())
        finally:
            connection.close()

    jobs = [
        tasks.sweep_clocks.call,
        tasks.sweep_clocks.call,
        lambda: post_move(client, match, code).status_code,
    ]
    threads = [threading.Thread(target=run, args=(job,)) for job in jobs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert len(outcomes) == 3 and 200 in outcomes
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert match.version == before + 1  # the time-out alone, applied once
    assert match.moves_played == 0
    assert MatchResult.objects.filter(match_id=match.pk).count() == 2
    assert Rating.objects.filter(game="escoba", games=1).count() == 2


def test_seats_deciding_at_once_each_run_on_their_own_time(frozen, make_member):
    live(game="scout", minutes=5, increment=2)
    users = [make_member(name) for name in ("ana", "ben", "cora")]
    match = start_match("scout", users)
    state = engine_state(match)
    assert set(match.engine.to_move(state)) == {0, 1, 2}  # keep or rotate, all at once
    start = frozen.now
    for seat, wait in ((0, 10), (1, 10)):
        frozen.advance(seconds=wait)
        state = engine_state(match)
        code = match.engine.legal_moves(state, seat)[0].code
        writes.play_move(match.pk, users[seat], code, match.version)
        match.refresh_from_db()
    assert match.clock_left[0] == 5 * MINUTE - 10_000 + 2000
    assert match.clock_left[1] == 5 * MINUTE - 20_000 + 2000
    # Cora is still deciding: her time has run since the start, whatever the others did.
    assert match.clock_left[2] == 5 * MINUTE - 20_000
    assert match.clock_deadline == start + timedelta(minutes=5)
    shown = match.clock_seats(frozen.now + timedelta(seconds=5))
    assert shown[2] == {**shown[2], "ms": 5 * MINUTE - 25_000, "running": True}


def test_the_admin_shows_the_clock_fields_and_a_matchs_clock(admin_client, alice, bob):
    page = admin_client.get(reverse("admin:games_rulevariant_add"), {"game": "escoba"})
    form = page.context["adminform"].form
    assert form.fields["clock"].widget.input_type == "select"
    assert {"clock_minutes", "clock_increment", "clock_days"} <= set(form.fields)
    live(minutes=7, increment=3)
    match = start_match("escoba", [alice, bob])
    change = admin_client.get(reverse("admin:games_match_change", args=[match.pk]))
    assert change.status_code == 200
    assert "clock_deadline" in change.content.decode()


def test_the_new_table_form_names_the_clock_of_each_house_rules(alice_client):
    live(minutes=15, increment=10)
    page = alice_client.get(reverse("games:new_table", args=["escoba"])).content.decode()
    assert "15 min" in page
