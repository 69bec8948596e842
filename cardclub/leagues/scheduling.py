"""Pure scheduling: who meets whom in which round, and in which seat. No Django here.

Players are any hashable values (the season passes user ids); the functions are deterministic,
so a season's fixtures can be regenerated and checked in tests without a database.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from itertools import combinations

Player = Hashable


def round_robin(players: Sequence[Player], double: bool = False) -> list[list[tuple]]:
    """Rounds of pairings ``(seat 0, seat 1)`` by the circle method: every player meets every
    other once (twice when ``double``, the second time in the other seats).

    With an odd number of players one player sits out each round (a bye) and meets nobody in it.
    Seats are given to whoever has had seat 0 fewer times so far, so first-move advantage is
    spread evenly over the season rather than following the circle's geometry.
    """
    ring: list = list(players)
    if len(ring) < 2:
        return []
    if len(ring) % 2:
        ring.append(None)  # the bye: whoever is paired with it sits out
    n = len(ring)
    first_seats: Counter = Counter()
    rounds: list[list[tuple]] = []
    for number in range(n - 1):
        pairs = []
        for i in range(n // 2):
            a, b = ring[i], ring[n - 1 - i]
            if a is None or b is None:
                continue
            # Fewer first seats so far takes the first seat; on a tie, alternate by round so the
            # fixed player of the circle is not always first.
            if first_seats[a] > first_seats[b] or (
                first_seats[a] == first_seats[b] and (number + i) % 2
            ):
                a, b = b, a
            first_seats[a] += 1
            pairs.append((a, b))
        rounds.append(pairs)
        # Rotate everyone but the first player one place.
        ring = [ring[0], ring[-1], *ring[1:-1]]
    if double:
        rounds += [[(b, a) for a, b in pairs] for pairs in rounds]
    return rounds


@dataclass
class TableRound:
    tables: list[tuple] = field(default_factory=list)
    sitting_out: list = field(default_factory=list)


def table_rounds(players: Sequence[Player], size: int, rounds: int) -> list[TableRound]:
    """``rounds`` rounds of tables of ``size`` seats, built greedily so that members meet as
    many different opponents as possible, nobody sits out twice in a row, and sit-outs and first
    seats are shared out evenly.

    When the number of players is not a multiple of ``size``, the remainder sit out that round;
    they are chosen among those who sat out least and not in the previous round (always
    possible: fewer players sit out than play).
    """
    if size < 2:
        raise ValueError("A table needs at least two seats.")
    players = list(players)
    if len(players) < size:
        return []
    order = {player: position for position, player in enumerate(players)}
    met: Counter = Counter()  # frozenset({a, b}) -> times at the same table
    byes: Counter = Counter()
    first_seats: Counter = Counter()
    last_out: set = set()
    schedule: list[TableRound] = []
    for number in range(rounds):
        out_count = len(players) % size
        # Rotate the tie-break by round so the same players do not always go first.
        rotated = players[number % len(players) :] + players[: number % len(players)]
        candidates = sorted((p for p in rotated if p not in last_out), key=lambda p: (byes[p], 0))
        sitting_out = candidates[:out_count]
        for p in sitting_out:
            byes[p] += 1
        last_out = set(sitting_out)
        playing = [p for p in rotated if p not in last_out]
        tables = _tables(playing, size, met)
        seated = []
        for table in tables:
            for a, b in combinations(table, 2):
                met[frozenset((a, b))] += 1
            # First seat to whoever has had it least (ties: the earlier listed player).
            first = min(table, key=lambda p: (first_seats[p], order[p]))
            first_seats[first] += 1
            start = table.index(first)
            seated.append(tuple(table[start:] + table[:start]))
        schedule.append(
            TableRound(tables=seated, sitting_out=sorted(sitting_out, key=order.__getitem__))
        )
    return schedule


TRIES = 12


def _tables(playing: list, size: int, met: Counter) -> list[list]:
    """The best of a few greedy splits of ``playing`` into tables: the first in the given order,
    the others from shuffles seeded by the round (so the schedule stays deterministic). Greedy
    local search gets stuck; restarting from other orders finds splits with fewer repeats."""

    def cost(table) -> int:
        return sum(met[frozenset(pair)] ** 2 for pair in combinations(table, 2))

    rng = random.Random(len(playing) * 1000 + sum(met.values()))
    best, best_cost = None, None
    order = list(playing)
    # Large rounds are slow to search and rarely improve; keep generation under a couple of seconds.
    tries = TRIES if len(playing) <= 16 else 2
    for _try in range(tries):
        tables = _greedy_tables(order, size, met, cost)
        total = sum(cost(t) for t in tables)
        if best_cost is None or total < best_cost:
            best, best_cost = tables, total
        if best_cost == 0:
            break
        order = list(playing)
        rng.shuffle(order)
    return best


def _greedy_tables(playing: list, size: int, met: Counter, cost) -> list[list]:
    """Split ``playing`` into tables, greedily keeping apart players who met most, then improve
    by swapping players between tables while that lowers the number of repeat meetings."""
    left = list(playing)
    tables: list[list] = []
    while left:
        # Start with whoever has met the most others: they are the hardest to place well.
        seed = max(left, key=lambda p: sum(met[frozenset((p, q))] for q in left if q != p))
        table = [seed]
        left.remove(seed)
        while len(table) < size:
            best = min(left, key=lambda q: sum(met[frozenset((q, t))] for t in table))
            table.append(best)
            left.remove(best)
        tables.append(table)
    improved = True
    passes = 0
    while improved and passes < 20:
        improved = False
        passes += 1
        for i, j in combinations(range(len(tables)), 2):
            for x in range(size):
                for y in range(size):
                    a, b = tables[i], tables[j]
                    before = cost(a) + cost(b)
                    a2 = a[:x] + [b[y]] + a[x + 1 :]
                    b2 = b[:y] + [a[x]] + b[y + 1 :]
                    if cost(a2) + cost(b2) < before:
                        tables[i], tables[j] = a2, b2
                        improved = True
    return tables


def swiss_tables(
    order: Sequence[Player],
    size: int,
    met: Counter,
    sat_out: Counter,
    first_seats: Counter,
    last_out: set | None = None,
) -> TableRound:
    """One round of a Swiss of tables: ``order`` is the standings (best first). The remainder
    that cannot fill a table sit out, from the bottom among those who sat out least (not the
    same as last round when it can be helped); the others sit ``size`` to a table in standings
    order, so members with similar points play together, then members swap with the next
    table while that means fewer repeated table-mates (a repeat costs more than any spread of
    places)."""
    order = list(order)
    last_out = last_out or set()
    out_count = len(order) % size
    bottom_first = list(reversed(order))
    sitting_out = sorted(
        bottom_first, key=lambda p: (sat_out[p], p in last_out, bottom_first.index(p))
    )[:out_count]
    playing = [p for p in order if p not in sitting_out]
    place = {p: i for i, p in enumerate(playing)}
    tables = [playing[i : i + size] for i in range(0, len(playing), size)]

    def cost(table) -> int:
        repeats = sum(met[frozenset(pair)] ** 2 for pair in combinations(table, 2))
        spread = max(place[p] for p in table) - min(place[p] for p in table)
        return repeats * len(playing) * 4 + spread

    improved, passes = True, 0
    while improved and passes < 20:
        improved, passes = False, passes + 1
        for i in range(len(tables) - 1):
            for step in (1, 2):
                j = i + step
                if j >= len(tables):
                    continue
                for x in range(size):
                    for y in range(size):
                        a, b = tables[i], tables[j]
                        a2 = a[:x] + [b[y]] + a[x + 1 :]
                        b2 = b[:y] + [a[x]] + b[y + 1 :]
                        if cost(a2) + cost(b2) < cost(a) + cost(b):
                            tables[i], tables[j] = a2, b2
                            improved = True
    seated = []
    for table in tables:
        table.sort(key=place.__getitem__)
        first = min(table, key=lambda p: (first_seats[p], place[p]))
        start = table.index(first)
        seated.append(tuple(table[start:] + table[:start]))
    return TableRound(tables=seated, sitting_out=sitting_out)
