"""The capacity benchmark reads pages as a member would: if the table's markup changes under it,
these fail rather than the benchmark quietly measuring members who never move."""

from __future__ import annotations

import random

import pytest
from django.urls import reverse

from games import registry
from games.models import Match
from tests.bench.bench_capacity import read_table
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
