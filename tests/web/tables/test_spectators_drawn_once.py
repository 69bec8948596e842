"""A spectator's table and seats are drawn once per version and language, and every other
spectator of that version is given the same drawing (issue 34); every seat is still drawn its
own, and a clocked match's drawing is given only while its clocks are fresh."""

from __future__ import annotations

import random
import re

import pytest
from django.urls import reverse

from games import access, versions
from games.models import Clock
from tests.web.table_helpers import engine_state, hidden_cards_in, post_move, start_match, variant

GAMES = ["escoba", "scout", "schotten_totten"]


def fetch(client, match, shown_version, **params):
    response = client.get(
        reverse("games:poll", args=[match.pk]),
        {"v": shown_version, "s": "playing", **params},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200
    return response.content.decode()


def play_one(match, players, client_for, rng):
    state = engine_state(match)
    seat = match.engine.to_move(state)[0]
    code = rng.choice(match.engine.legal_moves(state, seat)).code
    assert post_move(client_for(players[seat]), match, code).status_code == 200
    match.refresh_from_db()


def count_shared_drawings(monkeypatch):
    """The names of the drawings made to be shared (``versions.drawn``), one per drawing."""
    drawn = []
    real = versions.drawn

    def counting(key, name, draw, fresh_for=None):
        return real(key, name, lambda: drawn.append(name) or draw(), fresh_for)

    monkeypatch.setattr(versions, "drawn", counting)
    return drawn


@pytest.mark.parametrize("game", GAMES)
def test_every_spectator_is_shown_what_drawing_the_table_afresh_shows(
    game, alice, bob, make_member, client_for, monkeypatch
):
    watchers = [make_member(f"watcher{i}") for i in range(3)]
    match = start_match(game, [alice, bob])
    rng = random.Random(game)
    for _ in range(6):
        shown = match.version
        play_one(match, [alice, bob], client_for, rng)
        for language in ["es", "en"]:
            clients = [client_for(w) for w in watchers]
            for client in clients:
                client.cookies["django_language"] = language
            pages = [fetch(client, match, shown) for client in clients]
            assert pages[0] == pages[1] == pages[2]
            versions.forget_all()
            assert fetch(clients[2], match, shown) == pages[0]
            with monkeypatch.context() as unshared:  # as the view draws it for a seat
                unshared.setattr(access, "spectators_drawing_key", lambda *args: None)
                assert fetch(clients[1], match, shown) == pages[0]
        if match.status != "playing":
            break


@pytest.mark.parametrize("game", GAMES)
def test_the_spectators_table_is_drawn_once_for_every_spectator_of_a_version(
    game, alice, bob, make_member, client_for, monkeypatch
):
    watchers = [make_member(f"watcher{i}") for i in range(4)]
    match = start_match(game, [alice, bob])
    shown = match.version
    play_one(match, [alice, bob], client_for, random.Random(1))
    drawn = count_shared_drawings(monkeypatch)
    for watcher in watchers:
        fetch(client_for(watcher), match, shown)
    assert len(drawn) == 1
    client = client_for(watchers[0])
    client.cookies["django_language"] = "en"
    fetch(client, match, shown)
    assert len(drawn) == 2  # another language, another drawing


@pytest.mark.parametrize("game", GAMES)
def test_a_seat_is_drawn_its_own_table_after_spectators_were_given_theirs(
    game, alice, bob, make_member, client_for, monkeypatch
):
    carol = make_member("carol")
    match = start_match(game, [alice, bob])
    shown = match.version
    play_one(match, [alice, bob], client_for, random.Random(2))
    spectator = fetch(client_for(carol), match, shown)
    drawn = count_shared_drawings(monkeypatch)
    state = engine_state(match)
    for seat, member in enumerate([alice, bob]):
        page = fetch(client_for(member), match, shown)
        hand = match.engine.view(state, seat).get("hand") or []
        ids = [card if isinstance(card, str) else card.get("id") for card in hand]
        cards = [card for card in ids if isinstance(card, str)]
        assert page != spectator
        assert hidden_cards_in(page, cards) == cards  # the seat's own hand is in its table
        assert hidden_cards_in(spectator, cards) == []
    assert drawn == []  # no seat asked for a drawing to share


def clocked_match(alice, bob, client_for):
    """An Escoba match on a live clock (10 min + 5 s), its first move played: the version
    before the move, and the match."""
    rules = variant("escoba")
    rules.clock, rules.clock_minutes, rules.clock_increment = Clock.LIVE, 10, 5
    rules.save()
    match = start_match("escoba", [alice, bob])
    shown = match.version
    play_one(match, [alice, bob], client_for, random.Random(3))
    return shown, match


def test_a_clocked_matchs_spectators_share_a_drawing_only_while_its_clocks_are_fresh(
    alice, bob, make_member, client_for, monkeypatch
):
    watchers = [make_member(f"watcher{i}") for i in range(3)]
    shown, match = clocked_match(alice, bob, client_for)
    drawn = count_shared_drawings(monkeypatch)
    now = [1000.0]
    monkeypatch.setattr(versions, "monotonic", lambda: now[0])
    first, second = (fetch(client_for(w), match, shown) for w in watchers[:2])
    assert first == second
    assert len(drawn) == 1
    now[0] += access.CLOCKED_DRAWING_SECONDS - 0.01
    assert fetch(client_for(watchers[2]), match, shown) == first
    assert len(drawn) == 1
    now[0] += 0.02  # the drawing's clocks are too old now: drawn again, and kept in its place
    later = fetch(client_for(watchers[2]), match, shown)
    assert len(drawn) == 2
    assert fetch(client_for(watchers[0]), match, shown) == later
    assert len(drawn) == 2


def test_a_running_clock_in_a_shared_drawing_runs_out_when_the_seats_time_does(
    alice, bob, make_member, client_for
):
    """clock.js counts a clock down from its milliseconds as of the server's time it was drawn
    at, so a drawing given later still ends the clock at the seat's deadline."""
    watchers = [make_member(f"watcher{i}") for i in range(2)]
    shown, match = clocked_match(alice, bob, client_for)
    deadline = round(match.clock_deadline.timestamp() * 1000)
    pages = [fetch(client_for(w), match, shown) for w in watchers]
    assert pages[0] == pages[1]
    running = re.findall(
        r'data-clock-ms="(\d+)"[^>]*data-clock-running="1"[^>]*data-server-now="(\d+)"', pages[0]
    )
    assert len(running) == 2  # the clock bar's and the seats panel's
    for ms, drawn_at in running:
        assert abs(int(drawn_at) + int(ms) - deadline) <= 1


def test_scouts_score_sheet_asked_for_by_a_spectator_is_not_shared(
    alice, bob, make_member, client_for, monkeypatch
):
    carol = make_member("carol")
    match = start_match("scout", [alice, bob])
    shown = match.version
    play_one(match, [alice, bob], client_for, random.Random(4))
    drawn = count_shared_drawings(monkeypatch)
    fetch(client_for(carol), match, shown, sheet="1")
    assert drawn == []
    fetch(client_for(carol), match, shown)
    assert len(drawn) == 1
