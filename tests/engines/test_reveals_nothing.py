"""``reveals_nothing(state, seat, move)``, each engine's word on a takeback: true only when the
move shows the mover nothing new: no card drawn into their hand that they had not seen, no new
deal, not the end of the game. Checked over seeded random games of every engine."""

from __future__ import annotations

import random

import pytest

from games.escoba import engine as escoba
from games.schotten_totten import engine as schotten_totten
from games.scout import engine as scout

ENGINES = {"escoba": (escoba, 2), "schotten_totten": (schotten_totten, 2), "scout": (scout, 3)}


def _moves(engine, players, seed):
    rng = random.Random(seed)
    state = engine.new_game(players, seed=seed)
    while not engine.is_over(state):
        seat = engine.to_move(state)[0]
        move = rng.choice(engine.legal_moves(state, seat))
        yield state, seat, move
        state = engine.apply(state, seat, move)


@pytest.mark.parametrize("game", list(ENGINES))
def test_a_move_reveals_nothing_only_when_the_mover_saw_no_new_card(game):
    engine, players = ENGINES[game]
    verdicts = set()
    for seed in range(3):
        for state, seat, move in _moves(engine, players, seed):
            verdict = engine.reveals_nothing(state, seat, move)
            verdicts.add(verdict)
            after = engine.apply(state, seat, move)
            if verdict:
                assert not engine.is_over(after)
                # No card came into the mover's hand but one it saw face up (Scout's scouting).
                new_cards = set(after.hands[seat]) - set(state.hands[seat])
                face_up = set(getattr(state, "active", ()))
                if game == "scout":
                    face_up |= {scout._FLIP[c] for c in face_up}
                assert new_cards <= face_up
    # Every game has moves of both kinds.
    assert verdicts == {True, False}


def test_the_last_move_of_a_game_never_reveals_nothing():
    for game, (engine, players) in ENGINES.items():
        *_, (state, seat, move) = _moves(engine, players, seed=7)
        assert engine.reveals_nothing(state, seat, move) is False, game
