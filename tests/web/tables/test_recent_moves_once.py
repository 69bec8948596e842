"""The table's last moves and its "Last move" strip are worded and drawn once per version,
language and seat names (issue 34: what every viewer of a version sees alike is drawn once),
and every seat and spectator is shown exactly what drawing them afresh shows."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from games import present, versions
from tests.web.table_helpers import engine_state, post_move, start_match

GAMES = ["escoba", "scout", "schotten_totten"]
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="[^"]*"')
LAST_MOVES = re.compile(r'<ul class="last-moves">.*?</ul>', re.S)
STRIP = re.compile(r'<div class="just-happened panel">.*?</div>', re.S)


def fetch(client, match, shown_version):
    response = client.get(
        reverse("games:poll", args=[match.pk]), {"v": shown_version}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 200
    return CSRF.sub("csrf", response.content.decode())


def play_first_legal(match, players, client_for):
    state = engine_state(match)
    seat = match.engine.to_move(state)[0]
    code = match.engine.legal_moves(state, seat)[0].code
    assert post_move(client_for(players[seat]), match, code).status_code == 200
    match.refresh_from_db()
    return seat


@pytest.fixture
def worded(monkeypatch):
    """The calls that word a table's recent moves."""
    calls = []
    real = present.describe_events
    monkeypatch.setattr(present, "describe_events", lambda *args: calls.append(args) or real(*args))
    return calls


@pytest.mark.parametrize("game", GAMES)
def test_the_other_seat_is_shown_the_recent_moves_the_movers_answer_worded(
    game, alice, bob, make_member, client_for, worded
):
    carol = make_member("carol")
    match = start_match(game, [alice, bob])
    shown = match.version
    players = [alice, bob]
    seat = play_first_legal(match, players, client_for)
    assert len(worded) == 1  # the mover's answer
    other = fetch(client_for(players[1 - seat]), match, shown)
    spectator = fetch(client_for(carol), match, shown)
    assert len(worded) == 1
    versions.forget_all()
    assert fetch(client_for(players[1 - seat]), match, shown) == other
    assert fetch(client_for(carol), match, shown) == spectator
    assert len(worded) == 2  # read afresh and kept by the first of the two
    assert LAST_MOVES.search(other) and STRIP.search(other)
    assert LAST_MOVES.search(other).group() == LAST_MOVES.search(spectator).group()
    assert STRIP.search(other).group() == STRIP.search(spectator).group()


def test_each_language_is_shown_the_recent_moves_in_its_own_words(alice, bob, client_for):
    match = start_match("escoba", [alice, bob])
    shown = match.version
    play_first_legal(match, [alice, bob], client_for)
    pages = {}
    for language in ["es", "en", "es"]:
        client = client_for(alice)
        client.cookies["django_language"] = language
        pages.setdefault(language, set()).add(STRIP.search(fetch(client, match, shown)).group())
    assert len(pages["es"]) == 1  # the same words twice
    assert pages["es"] != pages["en"]


def test_the_recent_moves_drawn_for_the_movers_answer_are_not_drawn_again(
    alice, bob, client_for, monkeypatch
):
    from games.templatetags import games_tags

    drawn = []
    real = games_tags._move_line_html
    monkeypatch.setattr(games_tags, "_move_line_html", lambda *args: drawn.append(1) or real(*args))
    match = start_match("schotten_totten", [alice, bob])
    shown = match.version
    seat = play_first_legal(match, [alice, bob], client_for)
    assert drawn  # the mover's answer drew its last moves
    count = len(drawn)
    page = fetch(client_for([alice, bob][1 - seat]), match, shown)
    assert len(drawn) == count
    assert LAST_MOVES.search(page)
