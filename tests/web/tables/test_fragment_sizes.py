"""Issue 22: a table fragment (a move's answer, a changed poll) stays within 10 KB for every game
at its largest table, from the deal to the end, for every seat: what changed and the moves the
member can make, not the whole board once per legal move."""

from __future__ import annotations

import pytest

from tests.web.table_helpers import fragment_sizes, start_match

LIMIT = 10 * 1024

# Every game at its largest table and at a smaller one; three fixed deals each, so that a run
# checks the same games as the one before (bench_fragments reports sizes over fresh deals).
TABLES = [
    ("escoba", 4, 200),
    ("escoba", 2, 120),
    ("schotten_totten", 2, 160),
    ("scout", 5, 200),
    ("scout", 3, 120),
]
DEALS = [101, 202, 303]


@pytest.mark.parametrize("deal", DEALS)
@pytest.mark.parametrize(("game", "players", "moves"), TABLES)
def test_every_table_fragment_stays_within_ten_kilobytes(
    game, players, moves, deal, make_member, client_for
):
    members = [make_member(f"player{n}") for n in range(players)]
    match = start_match(game, members, deal=deal)
    clients = {n: client_for(member) for n, member in enumerate(members)}
    sizes = fragment_sizes(clients, match, seed=deal, moves=moves)
    assert sizes["move"], "no move was played"
    for kind, rows in sizes.items():
        over = [row for row in rows if row[0] > LIMIT]
        assert not over, (
            f"{game} {players}p: {len(over)} of {len(rows)} {kind} fragments over 10 KB,"
            f" largest {max(over)[0]} bytes (seat {max(over)[1]}, version {max(over)[2]})"
        )
