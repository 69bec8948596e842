"""Issue 22: the lobby and "your matches" are drawn from each match's stored summary.

Every action writes ``Match.summary`` in the save it makes anyway; the lists read it (and a few
columns) instead of the match's state, its seats and their members, so the lobby's cost stays
flat however many matches a member plays.
"""

from __future__ import annotations

import importlib
import warnings
from datetime import timedelta
from unittest import mock

import pytest
from django.apps import apps
from django.core.cache.backends.base import CacheKeyWarning
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import override

from games import timeouts, views, writes
from games.models import Clock, Match, Seat, summary_of
from tests.web.table_helpers import engine_state, run_bots, start_match, variant

pytestmark = pytest.mark.django_db


def seats_now(match: Match) -> list[Seat]:
    return list(Seat.objects.filter(match=match).select_related("user").order_by("index"))


def assert_summary_follows(match: Match) -> Match:
    """The stored summary says what the seats say now, and the seats know whether the match
    is still live; returns the match as stored."""
    match = Match.objects.get(pk=match.pk)
    seats = seats_now(match)
    assert match.summary == summary_of(seats)
    assert [seat.live for seat in seats] == [match.status in Match.LIVE_STATUSES] * len(seats)
    return match


def names(match: Match) -> list[str]:
    with override("en"):
        return [seat.display_name for seat in match.summary_seats()]


def awaited(match: Match) -> list[int]:
    return [seat.index for seat in match.summary_seats() if seat.to_move]


def play_first_legal(match: Match, users) -> None:
    state = engine_state(match)
    seat = match.engine.to_move(state)[0]
    code = match.engine.legal_moves(state, seat)[0].code
    writes.play_move(match.pk, users[seat], code, Match.objects.get(pk=match.pk).version)


def test_a_new_table_is_created_with_its_seats_in_the_summary(alice):
    match = writes.create_match(alice, variant("scout"), 3, ["open", "easy"])
    match = assert_summary_follows(match)
    assert names(match) == ["alice", "free seat", "Easy bot 3"]
    assert awaited(match) == []


def test_joining_and_leaving_change_the_summary(alice, bob, charlie):
    match = writes.create_match(alice, variant("scout"), 3, ["open", "open"])
    writes.join_match(match.pk, bob)
    assert names(assert_summary_follows(match)) == ["alice", "bob", "free seat"]
    writes.leave_match(match.pk, bob)
    assert names(assert_summary_follows(match)) == ["alice", "free seat", "free seat"]
    writes.leave_match(match.pk, alice)
    match = assert_summary_follows(match)
    assert match.status == Match.Status.ABANDONED
    assert names(match) == ["free seat"] * 3


def test_the_start_and_every_move_write_whose_turn_it_is(alice, bob):
    match = writes.create_match(alice, variant("escoba"), 2, ["open"])
    writes.join_match(match.pk, bob)
    match = assert_summary_follows(match)
    assert match.status == Match.Status.PLAYING
    assert awaited(match) == list(match.engine.to_move(engine_state(match)))
    for _ in range(4):
        before = awaited(match)
        play_first_legal(match, [alice, bob])
        match = assert_summary_follows(match)
        assert awaited(match) == list(match.engine.to_move(engine_state(match)))
        assert awaited(match) != before


def test_a_match_played_to_its_end_stores_the_scores_and_ranks(alice):
    match = start_match("schotten_totten", [alice], fillers=["easy"])
    for _ in range(200):
        if Match.objects.get(pk=match.pk).status != Match.Status.PLAYING:
            break
        play_first_legal(match, [alice, None])
        run_bots(match)
    match = assert_summary_follows(match)
    assert match.status == Match.Status.FINISHED
    outcome = {row["seat"]: row for row in match.engine.outcome(engine_state(match))}
    assert [(s.score, s.rank) for s in match.summary_seats()] == [
        (outcome[i]["score"], outcome[i]["rank"]) for i in (0, 1)
    ]
    assert awaited(match) == []


def test_a_resignation_stores_the_ranks(alice, bob):
    match = start_match("escoba", [alice, bob])
    writes.resign(match.pk, bob)
    match = assert_summary_follows(match)
    assert [s.rank for s in match.summary_seats()] == [1, 2]
    assert awaited(match) == []


def test_a_time_out_stores_the_result(alice, bob):
    rules = variant("escoba")
    rules.clock, rules.clock_minutes, rules.clock_increment = Clock.LIVE, 1, 0
    rules.save()
    match = start_match("escoba", [alice, bob])
    late = awaited(Match.objects.get(pk=match.pk))[0]
    later = timezone.now() + timedelta(minutes=2)
    with mock.patch("django.utils.timezone.now", lambda: later):
        assert timeouts.time_out(match.pk)
    match = assert_summary_follows(match)
    assert match.status == Match.Status.FINISHED
    assert {s.index: s.rank for s in match.summary_seats()} == {late: 2, 1 - late: 1}


def test_a_bot_move_writes_the_summary_too(alice):
    match = start_match("escoba", [alice], fillers=["easy"])
    play_first_legal(match, [alice, None])
    assert run_bots(match) >= 1
    match = assert_summary_follows(match)
    assert awaited(match) == [0]


def test_the_migration_summarises_the_matches_stored_before_it_and_closes_the_ended_ones(
    alice, bob, charlie
):
    playing = start_match("escoba", [alice, bob])
    waiting = writes.create_match(charlie, variant("scout"), 3, ["open", "hard"])
    over = start_match("escoba", [alice, charlie])
    writes.resign(over.pk, charlie)
    Match.objects.update(summary=[])
    Seat.objects.update(live=True)
    migration = importlib.import_module("games.migrations.0008_match_summary")
    migration.summarise_existing_matches(apps, None)
    migration.close_seats_of_ended_matches(apps, None)
    assert names(assert_summary_follows(playing)) == ["alice", "bob"]
    assert names(assert_summary_follows(waiting)) == ["charlie", "free seat", "Hard bot 3"]
    assert names(assert_summary_follows(over)) == ["alice", "charlie"]


# --- The lobby ----------------------------------------------------------------------------------


def test_the_lobby_shows_seats_turns_house_rules_and_results_from_the_summary(
    alice, bob, charlie, client_for
):
    playing = start_match("escoba", [alice, bob])
    waiting = writes.create_match(charlie, variant("scout"), 3, ["open", "easy"])
    over = start_match("escoba", [alice, bob])
    writes.resign(over.pk, bob)
    my_turn = awaited(Match.objects.get(pk=playing.pk)) == [0]
    # Nothing the lists show comes from the seats or the state any more: clear them.
    Match.objects.filter(pk__in=[playing.pk, waiting.pk, over.pk]).update(state=None)
    client = client_for(alice)
    client.cookies["django_language"] = "en"
    page = client.get(reverse("games:lobby"), HTTP_ACCEPT_LANGUAGE="en")
    html = page.content.decode()
    assert "alice · bob" in html
    assert playing.get_absolute_url() in html
    assert variant("escoba").name_en in html and variant("scout").name_en in html
    assert ("Your turn" in html) == my_turn
    # An open table: its members, a bot by name, the free seat marked.
    assert "charlie" in html and "Easy bot 3" in html and ">free<" in html
    # The finished match: the ranks.
    assert "alice (1st) · bob (2nd)" in html
    assert page.context["my_turns"] == int(my_turn)


def test_the_lobby_reads_no_match_state(alice, bob, client_for):
    start_match("escoba", [alice, bob])
    client = client_for(alice)
    with CaptureQueriesContext(connection) as queries:
        client.get(reverse("games:lobby"))
    match_reads = [q["sql"] for q in queries if 'FROM "games_match"' in q["sql"]]
    assert match_reads
    assert not any('"games_match"."state"' in sql for sql in match_reads)
    # No query fetches the listed matches' seats (a prefetch reads their index) or members
    # (only the request's own member is read).
    assert not any('"games_seat"."index"' in q["sql"] for q in queries)
    assert sum('FROM "auth_user"' in q["sql"] for q in queries) == 1


@pytest.mark.parametrize("count", [1, 60])
def test_the_lobby_costs_the_same_queries_with_1_or_60_live_matches(
    count, alice, client_for, django_assert_max_num_queries
):
    for _ in range(count):
        writes.create_match(alice, variant("escoba"), 2, ["easy"])
    client = client_for(alice)
    # Each count has one query for the member's open challenges (cardclub/social); the first
    # also draws who is online (two, then kept for PRESENCE_CACHE_SECONDS).
    with django_assert_max_num_queries(14):
        page = client.get(reverse("games:lobby"))
    assert page.context["mine_total"] == count
    assert len(page.context["mine"]) == min(count, views.LOBBY_MATCHES)
    # The open tables and the finished ones are kept until one changes: read once.
    with django_assert_max_num_queries(10):
        client.get(reverse("games:lobby"))
    with django_assert_max_num_queries(6):
        client.get(reverse("games:my_matches"), HTTP_HX_REQUEST="true")


def test_the_lobby_counts_only_live_matches_however_many_are_over(alice, bob, client_for):
    for _ in range(3):
        over = start_match("escoba", [alice, bob])
        writes.resign(over.pk, bob)
    playing = start_match("escoba", [alice, bob])
    page = client_for(alice).get(reverse("games:lobby"))
    assert [m.pk for m in page.context["mine"]] == [playing.pk]
    assert page.context["mine_total"] == 1
    assert len(page.context["finished"]) == 3


def test_the_recently_finished_list_is_kept_until_a_match_ends(alice, bob, client_for):
    first = start_match("escoba", [alice, bob])
    writes.resign(first.pk, bob)
    client = client_for(alice)

    def visit():
        with CaptureQueriesContext(connection) as queries:
            html = client.get(reverse("games:lobby")).content.decode()
        lists = [q for q in queries if "'finished'" in q["sql"] and "LIMIT 10" in q["sql"]]
        return html, len(lists)

    html, lists = visit()
    assert lists == 1 and reverse("games:replay", args=[first.pk]) in html
    # Kept: the next visit reads only the newest finished match, from its index.
    again, lists = visit()
    assert lists == 0 and reverse("games:replay", args=[first.pk]) in again
    second = start_match("escoba", [alice, bob])
    writes.resign(second.pk, alice)
    html, lists = visit()
    assert lists == 1
    assert reverse("games:replay", args=[second.pk]) in html
    assert reverse("games:replay", args=[first.pk]) in html


def test_the_lobby_shows_the_most_urgent_matches_first_and_links_to_all_of_them(
    alice, bob, client_for
):
    mine = [start_match("escoba", [alice, bob]) for _ in range(views.LOBBY_MATCHES + 3)]
    # The first made (so the last by recency) of alice's turns, if any: the clock must win.
    hers = [m for m in mine if 0 in awaited(m)]
    clocked = (hers or mine)[0]
    Match.objects.filter(pk=clocked.pk).update(clock_deadline=timezone.now() + timedelta(hours=1))
    page = client_for(alice).get(reverse("games:lobby"))
    shown = page.context["mine"]
    assert len(shown) == views.LOBBY_MATCHES
    turns = [m.my_turn for m in shown]
    assert turns == sorted(turns, reverse=True)
    # Among the matches of one kind (alice's turn or not), the one on a clock comes first.
    same_kind = [m.pk for m in shown if m.my_turn == (0 in awaited(clocked))]
    assert same_kind[0] == clocked.pk
    html = page.content.decode()
    assert reverse("games:all_my_matches") in html


def test_the_full_list_of_my_matches_is_paginated(alice, bob, client_for, settings):
    made = [start_match("escoba", [alice, bob]) for _ in range(4)]
    client = client_for(alice)
    with mock.patch.object(views, "MATCHES_PER_PAGE", 3):
        first = client.get(reverse("games:all_my_matches"))
        second = client.get(reverse("games:all_my_matches"), {"page": 2})
        garbage = client.get(reverse("games:all_my_matches"), {"page": "x"})
    shown = [m.pk for m in first.context["mine"]] + [m.pk for m in second.context["mine"]]
    assert sorted(shown) == sorted(m.pk for m in made)
    assert 'rel="next"' in first.content.decode()
    assert garbage.status_code == 200 and len(garbage.context["mine"]) == 3
    # Another member's page does not list them.
    assert client_for(bob).get(reverse("games:all_my_matches")).status_code == 200


def _lobby_reads_the_list(client) -> tuple[str, bool]:
    """The lobby's HTML and whether it read the member's live seats list (not just counted)."""
    with CaptureQueriesContext(connection) as queries:
        html = client.get(reverse("games:lobby")).content.decode()
    listed = any('"games_seat"."to_move" DESC' in q["sql"] for q in queries)
    return html, listed


def test_my_matches_are_kept_until_one_of_them_changes(alice, bob, client_for):
    match = start_match("escoba", [alice, bob])
    client = client_for(alice)
    html, listed = _lobby_reads_the_list(client)
    assert listed and match.get_absolute_url() in html
    again, listed = _lobby_reads_the_list(client)
    assert not listed and match.get_absolute_url() in again
    # A move changes whose turn it is: the next visit draws the list again and shows it.
    state = engine_state(match)
    seat = match.engine.to_move(state)[0]
    mover = alice if seat == 0 else bob
    writes.play_move(match.pk, mover, match.engine.legal_moves(state, seat)[0].code, match.version)
    html, listed = _lobby_reads_the_list(client)
    assert listed
    assert ("Your turn" in html or "Tu turno" in html) == (mover == bob)


def test_my_matches_with_a_live_clock_running_are_drawn_afresh(alice, bob, client_for):
    rules = variant("escoba")
    rules.clock, rules.clock_minutes, rules.clock_increment = Clock.LIVE, 10, 0
    rules.save()
    start_match("escoba", [alice, bob])
    client = client_for(alice)
    _lobby_reads_the_list(client)
    _html, listed = _lobby_reads_the_list(client)
    assert listed


def _live_stamp_by_orm(user) -> dict:
    from django.db.models import Count, Max, Q

    return Seat.objects.filter(user=user, live=True).aggregate(
        total=Count("pk"),
        my_turns=Count("pk", filter=Q(to_move=True)),
        changed=Max("match__updated_at"),
        live_clocks=Count("pk", filter=Q(match__clock=Clock.LIVE)),
    )


def test_the_lobby_and_its_stream_read_my_live_matches_as_the_orm_aggregate_would(
    alice, bob, charlie
):
    from asgiref.sync import async_to_sync

    from games.streams import _mine_now, mine_stamp

    assert (
        Seat.live_stamp(alice.pk)
        == _live_stamp_by_orm(alice)
        == {"total": 0, "my_turns": 0, "changed": None, "live_clocks": 0}
    )
    writes.create_match(alice, variant("scout"), 3, ["open", "open"])  # waiting for players
    ended = start_match("escoba", [alice, charlie])
    writes.resign(ended.pk, alice)  # finished: no longer live
    start_match("schotten_totten", [bob, alice])
    rules = variant("escoba")
    rules.clock, rules.clock_minutes, rules.clock_increment = Clock.LIVE, 10, 0
    rules.save()
    start_match("escoba", [alice, bob])
    for member in (alice, bob, charlie):
        stamp = Seat.live_stamp(member.pk)
        assert stamp == _live_stamp_by_orm(member)
        # The stream says the version the page drew: one reading for both.
        assert async_to_sync(_mine_now)(member.pk) == mine_stamp(stamp["total"], stamp["changed"])
    stamp = Seat.live_stamp(alice.pk)
    assert (stamp["total"], stamp["live_clocks"]) == (3, 1)
    assert stamp["changed"].tzinfo is not None
    # Somebody's turn in the started matches: the turns are counted, not all zero.
    assert sum(Seat.live_stamp(member.pk)["my_turns"] for member in (alice, bob)) >= 2


def test_the_newest_finished_match_and_the_bells_count_are_read_as_the_orm_would(alice, bob):
    from cardclub.notifications.models import Notification
    from cardclub.notifications.services import unread_count

    assert Match.objects.newest_finished_pk() == 0
    assert unread_count(alice.pk) == 0
    for _ in range(2):
        ended = start_match("escoba", [alice, bob])
        writes.resign(ended.pk, bob)
    newest = Match.objects.filter(status=Match.Status.FINISHED).order_by("-finished_at").first()
    assert Match.objects.newest_finished_pk() == newest.pk == ended.pk
    for kind in ("your_turn", "result", "forfeit"):
        Notification.objects.create(user=alice, kind=kind, match=ended)
    Notification.objects.create(user=bob, kind="result", match=ended)
    Notification.objects.filter(user=alice, kind="forfeit").update(read_at=timezone.now())
    assert unread_count(alice.pk) == 2
    assert unread_count(bob.pk) == Notification.objects.filter(user=bob, read_at=None).count()


def test_the_open_tables_are_kept_under_a_key_memcached_accepts(alice, bob, client_for):
    """The key names the latest change as the database spells it: without its space, which
    memcached refuses (Django warns of every such key)."""
    writes.create_match(alice, variant("scout"), 3, ["open", "easy"])
    count, newest = Match.objects.open_tables_stamp()
    assert count == 1 and newest and " " not in newest
    with warnings.catch_warnings():
        warnings.simplefilter("error", CacheKeyWarning)
        assert client_for(bob).get(reverse("games:lobby")).status_code == 200
