"""The game log (every move in words, grouped by hand or round) and the JSON export of a
finished match."""

from __future__ import annotations

import json
import random

import pytest
from django.urls import reverse
from django.utils import translation

from games import registry
from games.log import match_log
from games.models import Match
from tests.web.club_night import play
from tests.web.table_helpers import hidden_cards_in, start_match

pytestmark = pytest.mark.django_db

GAMES = ["escoba", "schotten_totten", "scout"]
FILLERS = {"scout": ["easy"]}


def finished(game, alice, bob, seed=1):
    match = start_match(game, [alice, bob], fillers=FILLERS.get(game, []))
    return play(match, [alice, bob], seed=seed)


@pytest.mark.parametrize("game", GAMES)
def test_every_engine_logs_exactly_what_apply_does_plus_its_public_events(game):
    engine = registry.engine(game)
    state = engine.new_game(engine.INFO.min_players, seed=7)
    rng = random.Random(7)
    total = 0
    while not engine.is_over(state):
        seat = engine.to_move(state)[0]
        move = rng.choice(engine.legal_moves(state, seat))
        logged, events = engine.apply_logged(state, seat, move)
        assert engine.dump(logged) == engine.dump(engine.apply(state, seat, move))
        # Each logged event is what the spectator's recent list shows after the move.
        recent = engine.view(logged, None)["last_moves"]
        assert events == recent[len(recent) - len(events) :]
        total += len(events)
        state = logged
    assert total > 0


@pytest.mark.parametrize("game", GAMES)
def test_the_log_of_a_finished_match_has_every_move_in_words_grouped(game, alice, bob):
    match = finished(game, alice, bob)
    groups = match_log(match)
    numbers = [line["number"] for g in groups for line in g.lines if line["number"]]
    moves = match.moves.count()
    # Every move that made a public event is there, in order (Schotten Totten's draws and
    # Scout's... every move makes one; Schotten Totten's end of turn is a silent draw).
    assert numbers == sorted(numbers) and numbers[-1] <= moves
    assert [g.number for g in groups] == sorted({g.number for g in groups})
    assert all(line["text"] for g in groups for line in g.lines)
    if game == "schotten_totten" and match.options.get("rounds", 1) > 1:
        assert len(groups) > 1


def test_schotten_totten_stones_are_numbered_one_to_nine_as_on_the_table():
    present = registry.present("schotten_totten")
    names = ["ana", "bea"]
    with translation.override("en"):
        first = present.describe_move({"seat": 0, "kind": "play", "card": "R7", "stone": 0}, names)
        last = present.describe_move({"seat": 1, "kind": "claim", "stone": 8}, names)
    assert first["sentence"] == "ana plays the Red 7 on stone 1"
    assert last["sentence"] == "bea claims stone 9"


def test_the_log_during_play_shows_no_hidden_card(alice, bob, client_for):
    match = play(start_match("escoba", [alice, bob]), [alice, bob], moves=8)
    assert match.status == Match.Status.PLAYING
    data = match.engine.dump(match.engine.load(match.state))
    page = client_for(alice).get(reverse("games:log", args=[match.pk])).content.decode()
    assert "game-log" in page
    hidden = data["hands"][1] + data["deck"]
    assert hidden_cards_in(page, hidden) == []


def test_scout_log_does_not_tell_who_kept_or_turned_their_hand(alice, bob, client_for):
    match = start_match("scout", [alice, bob], fillers=["easy"])
    url = reverse("games:log", args=[match.pk])
    page = client_for(bob).get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    # The bot has decided; the log says so, never how.
    with translation.override("en"):
        groups = match_log(match)
    lines = [line for g in groups for line in g.lines if line["kind"] == "decide"]
    assert lines and all("decided" in line["text"] for line in lines)
    assert "rotat" not in page.lower() and "kept" not in page.lower()


def test_the_table_links_the_log_collapsed_and_the_htmx_request_gets_the_fragment(
    alice, bob, client_for
):
    match = play(start_match("scout", [alice, bob], fillers=["easy"]), [alice, bob], moves=3)
    client = client_for(alice)
    page = client.get(match.get_absolute_url()).content.decode()
    log_url = reverse("games:log", args=[match.pk])
    assert '<details class="panel game-log-panel">' in page and log_url in page
    fragment = client.get(log_url, HTTP_HX_REQUEST="true").content.decode()
    assert fragment.lstrip().startswith('<div id="log">') and "<html" not in fragment


def test_the_replay_lists_moves_in_words_with_every_number_and_readable_buttons(
    alice, bob, client_for
):
    match = finished("escoba", alice, bob)
    page = client_for(alice).get(reverse("games:replay", args=[match.pk]) + "?step=12")
    html = page.content.decode()
    assert "<code>" not in html
    assert 'aria-current="step"' in html and '<a href="?step=12">12</a>' in html
    for glyph in "⏮⏭◀▶":
        assert glyph not in html
    assert reverse("games:export", args=[match.pk]) in html


@pytest.mark.parametrize("game", GAMES)
def test_a_downloaded_match_replays_through_the_engine_to_the_same_end(
    game, alice, bob, client_for
):
    match = finished(game, alice, bob, seed=3)
    response = client_for(alice).get(reverse("games:export", args=[match.pk]))
    assert response.status_code == 200
    assert response["Content-Disposition"].startswith("attachment")
    data = json.loads(response.content)
    assert data["format"] == "cardclub-match" and data["game"] == game
    engine = registry.engine(data["game"])
    state = engine.new_game(
        data["players"], options=data["house_rules"]["options"], seed=data["seed"]
    )
    for move in data["moves"]:
        state = engine.apply(state, move["seat"], engine.parse_move(move["code"]))
    match.refresh_from_db()
    assert engine.dump(state) == match.state
    outcome = {row["seat"]: (row["score"], row["rank"]) for row in engine.outcome(state)}
    assert outcome == {row["seat"]: (row["score"], row["rank"]) for row in data["outcome"]}
    assert [s["name"] for s in data["seats"]][:2] == ["alice", "bob"]


def test_a_live_match_cannot_be_downloaded_its_seed_is_secret(alice, bob, client_for):
    match = play(start_match("escoba", [alice, bob]), [alice, bob], moves=2)
    response = client_for(alice).get(reverse("games:export", args=[match.pk]))
    assert response.status_code == 403
    assert str(match.seed) not in response.content.decode()


def test_an_abandoned_table_says_what_happened(alice, client_for):
    from games import writes
    from tests.web.table_helpers import variant

    match = writes.create_match(alice, variant("escoba"), 2, ["open"])
    writes.leave_match(match.pk, alice)
    page = client_for(alice).get(match.get_absolute_url()).content.decode()
    assert "abandon" in page.lower()  # main words it: "This table was abandoned"
