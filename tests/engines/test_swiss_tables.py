"""A Swiss of tables: similar points together, table-mates new while that can be done."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from cardclub.leagues.scheduling import swiss_tables


def test_the_first_round_seats_the_standings_in_order_four_to_a_table():
    one = swiss_tables(list(range(1, 9)), 4, Counter(), Counter(), Counter())
    assert [sorted(t) for t in one.tables] == [[1, 2, 3, 4], [5, 6, 7, 8]]
    assert one.sitting_out == []


def test_the_remainder_sits_out_from_the_bottom_and_not_twice_before_others():
    one = swiss_tables(list(range(1, 11)), 4, Counter(), Counter(), Counter())
    assert sorted(one.sitting_out) == [9, 10]
    two = swiss_tables(list(range(1, 11)), 4, Counter(), Counter({9: 1, 10: 1}), Counter())
    assert sorted(two.sitting_out) == [7, 8]


def test_a_repeated_table_is_broken_up_by_swapping_with_the_next_table():
    met = Counter()
    for table in ([1, 2, 3], [4, 5, 6]):
        for pair in combinations(table, 2):
            met[frozenset(pair)] += 1
    again = swiss_tables([1, 2, 3, 4, 5, 6], 3, met, Counter(), Counter())
    for table in again.tables:
        assert sum(met[frozenset(p)] for p in combinations(table, 2)) < 3


@settings(max_examples=40, deadline=None)
@given(count=st.integers(6, 24), size=st.sampled_from([3, 4]), seed=st.integers(0, 999))
def test_every_round_seats_everybody_once_and_the_first_seat_goes_round(count, size, seed):
    import random

    rng = random.Random(seed)
    met, sat_out, firsts = Counter(), Counter(), Counter()
    players = list(range(count))
    for _round in range(4):
        rng.shuffle(players)  # any standings
        result = swiss_tables(players, size, met, sat_out, firsts)
        seated = [p for t in result.tables for p in t]
        assert sorted(seated + list(result.sitting_out)) == sorted(players)
        assert all(len(t) == size for t in result.tables)
        for table in result.tables:
            firsts[table[0]] += 1
            for pair in combinations(table, 2):
                met[frozenset(pair)] += 1
        for p in result.sitting_out:
            sat_out[p] += 1
    # Sit-outs are shared: nobody sits out twice while another has never sat out... within one.
    if count % size:
        assert max(sat_out[p] for p in players) - min(sat_out[p] for p in players) <= 1
