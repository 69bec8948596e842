"""The capacity benchmark reads pages as a member would: if the table's markup changes under it,
these fail rather than the benchmark quietly measuring members who never move."""

from __future__ import annotations

import random
import time

import pytest
from django.urls import reverse

from games import push, registry
from games.models import Match
from tests.bench.bench_capacity import (
    Person,
    Recorder,
    Shown,
    Table,
    read_table,
    requests_per_second,
)
from tests.bench.capacity_stream import stream_path, versions_in
from tests.web.table_helpers import start_match, variant


@pytest.mark.parametrize("game", registry.game_keys())
def test_the_member_to_move_is_offered_legal_moves_and_the_other_only_a_poll(
    game, alice, bob, client_for
):
    match = start_match(game, [alice, bob])
    engine = match.engine
    state = engine.load(match.state)
    to_move = set(engine.to_move(state))
    for seat, user in enumerate([alice, bob]):
        shown = read_table(client_for(user).get(match.get_absolute_url()).content.decode(), 1)
        assert shown is not None
        assert shown.version == match.version
        assert shown.poll_url.startswith(reverse("games:poll", args=[match.pk]))
        assert f"v={match.version}" in shown.poll_url
        assert not shown.finished
        legal = (
            {move.code for move in engine.legal_moves(state, seat)} if seat in to_move else set()
        )
        offered = {code for _action, code, _v in shown.forms}
        assert offered <= legal
        assert bool(offered) == (seat in to_move)


@pytest.mark.parametrize("game", registry.game_keys())
def test_a_match_played_only_from_the_moves_the_pages_offer_keeps_moving(
    game, alice, bob, client_for
):
    match = start_match(game, [alice, bob])
    engine = match.engine
    clients = [client_for(alice), client_for(bob)]
    rng = random.Random(22)
    for _move in range(40):
        pages = [
            read_table(c.get(match.get_absolute_url()).content.decode(), match.pk) for c in clients
        ]
        if pages[0].finished:
            break
        state = engine.load(Match.objects.get(pk=match.pk).state)
        movers = [seat for seat in (0, 1) if pages[seat].forms]
        assert movers, f"nobody is offered a move at version {pages[0].version}"
        seat = rng.choice(movers)
        legal = {move.code for move in engine.legal_moves(state, seat)}
        assert {code for _action, code, _v in pages[seat].forms} <= legal
        action, code, version = rng.choice(pages[seat].forms)
        response = clients[seat].post(
            action, {"code": code, "v": version}, headers={"HX-Request": "true"}
        )
        after = read_table(response.content.decode(), match.pk)
        assert response.status_code == 200
        assert not after.refused
        assert after.version == Match.objects.get(pk=match.pk).version == int(version) + 1


@pytest.mark.parametrize("game", registry.game_keys())
def test_the_new_table_form_the_benchmark_posts_opens_a_table_the_other_member_can_join(
    game, alice, bob, client_for
):
    data = {"variant": variant(game).pk, "players": 2, "seat_1": "open"}
    response = client_for(alice).post(reverse("games:new_table", args=[game]), data)
    assert response.status_code == 302
    match = Match.objects.get(created_by=alice)
    assert response["Location"] == match.get_absolute_url()
    client_for(bob).post(reverse("games:join", args=[match.pk]))
    match.refresh_from_db()
    assert match.status == Match.Status.PLAYING


def test_a_finished_table_is_recognised(alice, bob, client_for):
    match = start_match(registry.game_keys()[0], [alice, bob])
    client_for(alice).post(reverse("games:resign", args=[match.pk]))
    shown = read_table(client_for(bob).get(match.get_absolute_url()).content.decode(), match.pk)
    assert shown.finished
    assert shown.forms == []


def test_the_stream_the_generator_holds_is_the_tables_own():
    assert stream_path(7) == reverse("games:live", args=[7])


def test_a_stream_announces_the_versions_of_its_version_events_only():
    text = push.sse_head({"version": 7}) + push.sse_events({"chat": 3, "version": 8})
    text += push.sse_events(None)  # a keep-alive comment
    events = [block.splitlines() for block in text.split("\n\n")]
    assert [v for lines in events for v in versions_in([line.encode() for line in lines])] == [
        7,
        8,
    ]


class _Heard:
    def __init__(self, heard):
        self.heard = heard


def _person_after(heard: dict[int, float], committed: dict) -> Person:
    table = Table("scout", 1, [], 5, committed)
    recorder = Recorder()
    recorder.window = (0.0, float("inf"))
    person = Person(None, table, 1, None, recorder, random.Random(1), float("inf"), live=True)
    person.stream = _Heard(heard)
    return person


def _shown(version: int) -> Shown:
    return Shown(5, version, "/poll", 2000, [], {}, False, False)


def test_a_fetch_after_a_push_is_timed_from_the_earlier_of_the_commit_and_the_push():
    now = time.monotonic()
    person = _person_after({3: now - 10, 4: now - 0.2}, {(5, 4): now - 0.5})
    person.held(3, _shown(4), fetched=True)
    [latency] = person.recorder.latencies["push→fragment"]
    assert 500 <= latency < 5000  # from the mover's answer, not the stream's first event (3)
    assert person.stream.heard == {} and person.table.committed == {}


def test_the_pages_own_move_and_the_streams_first_event_are_not_push_latencies():
    now = time.monotonic()
    person = _person_after({4: now, 5: now}, {})
    person.held(3, _shown(5), fetched=False)  # the member's own move came back with 5
    assert person.recorder.latencies["push→fragment"] == []
    assert person.stream.heard == {}


def test_a_push_timed_to_its_fragment_is_not_counted_as_a_request_of_its_own():
    # Each push→fragment interval ends with a fetch that is a "poll changed" already: counting
    # both made the live mode's requests a third too many and its CPU per request too small.
    latencies = {"move": [10.0] * 30, "poll changed": [5.0] * 30, "push→fragment": [7.0] * 30}
    assert requests_per_second(latencies, 2.0) == 30.0
