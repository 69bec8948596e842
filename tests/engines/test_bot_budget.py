"""Hard bots search a fixed budget (issue 18): the same position and rng give the same move on
any machine, however busy; the wall-clock cap is only a far-off safety net."""

from __future__ import annotations

import importlib
import random
import time

import pytest

GAMES = ("escoba", "schotten_totten", "scout")


def positions(game: str, count: int = 4):
    """Positions of a seeded easy-against-easy game where the seat to move has a choice."""
    engine = importlib.import_module(f"games.{game}.engine")
    bots = importlib.import_module(f"games.{game}.bots")
    rng = random.Random(5)
    state = engine.new_game(2, seed=11)
    found = []
    ply = 0
    while not engine.is_over(state) and len(found) < count:
        seat = engine.to_move(state)[0]
        moves = engine.legal_moves(state, seat)
        if len(moves) > 3 and ply % 5 == 0:
            found.append((engine.view(state, seat), moves))
        state = engine.apply(state, seat, bots.choose(engine.view(state, seat), moves, "easy", rng))
        ply += 1
    assert found
    return found


class SlowClock:
    """A clock for a machine many times busier than usual: every reading is 1 ms later than
    the last. A search that looks at the clock to decide when to stop stops early on it."""

    def __init__(self):
        self.now = time.perf_counter()

    def __call__(self):
        self.now += 0.001
        return self.now


@pytest.mark.parametrize("game", GAMES)
def test_the_same_position_and_seed_give_the_same_hard_move(game):
    bots = importlib.import_module(f"games.{game}.bots")
    for view, moves in positions(game):
        first = bots.choose(view, moves, "hard", random.Random(42))
        again = bots.choose(view, moves, "hard", random.Random(42))
        assert first == again


class CountingRandom(random.Random):
    """An rng that counts its draws: a search cut short samples fewer deals, so draws fewer."""

    draws = 0

    def random(self):
        self.draws += 1
        return super().random()

    def getrandbits(self, k):
        self.draws += 1
        return super().getrandbits(k)


def search(bots, cases):
    moves, draws = [], []
    for view, legal in cases:
        rng = CountingRandom(7)
        moves.append(bots.choose(view, legal, "hard", rng))
        draws.append(rng.draws)
    return moves, draws


@pytest.mark.parametrize("game", GAMES)
def test_a_busy_machine_does_not_change_the_hard_move_nor_the_work_behind_it(game, monkeypatch):
    bots = importlib.import_module(f"games.{game}.bots")
    cases = positions(game)
    idle = search(bots, cases)
    monkeypatch.setattr(time, "perf_counter", SlowClock())
    busy = search(bots, cases)
    assert busy == idle
    assert min(idle[1]) > 0


@pytest.mark.parametrize("game", GAMES)
def test_the_hard_search_reads_the_clock_only_as_a_safety_net(game, monkeypatch):
    """With the clock far past any deadline, the search still answers a legal move: the cap
    exists, it is just never reached in normal play."""
    bots = importlib.import_module(f"games.{game}.bots")
    view, moves = positions(game, 1)[0]
    readings = iter(range(0, 10**9, 3600))
    monkeypatch.setattr(time, "perf_counter", lambda: float(next(readings)))
    assert bots.choose(view, moves, "hard", random.Random(7)) in moves
