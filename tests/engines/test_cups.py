"""Knockout brackets: seeding, byes and who has won a tie."""

from __future__ import annotations

import pytest

from cardclub.leagues import cups


def test_seeds_are_placed_so_the_top_two_can_only_meet_in_the_final():
    assert cups.seed_order(2) == [1, 2]
    assert cups.seed_order(4) == [1, 4, 2, 3]
    assert cups.seed_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    order = cups.seed_order(16)
    assert sorted(order) == list(range(1, 17))
    assert order.index(2) >= 8  # the other half of the bracket


@pytest.mark.parametrize("entrants", [2, 3, 5, 6, 7, 8, 9, 12, 17, 31])
def test_the_byes_go_to_the_top_seeds_and_fill_the_bracket(entrants):
    ties = cups.first_round(entrants)
    size = cups.size_for(entrants)
    assert len(ties) == size // 2
    byes = sorted(top for top, bottom in ties if bottom is None)
    assert byes == list(range(1, size - entrants + 1))
    seated = sorted(s for tie in ties for s in tie if s is not None)
    assert seated == list(range(1, entrants + 1))


def test_a_tie_is_won_by_more_than_half_of_its_games():
    assert cups.decided(1, 0, 1) == 0
    assert cups.decided(1, 1, 3) is None
    assert cups.decided(1, 2, 3) == 1
    assert cups.decided(2, 2, 5) is None


def test_rounds_are_named_from_the_final():
    assert [cups.round_name_key(n, 4) for n in (1, 2, 3, 4)] == [
        "round",
        "quarter",
        "semi",
        "final",
    ]
