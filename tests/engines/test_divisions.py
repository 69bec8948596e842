"""Promotion and relegation between divisions."""

from __future__ import annotations

from cardclub.leagues.divisions import PROMOTED, RELEGATED, STAYED, moves


def test_the_top_go_up_and_the_bottom_go_down_one_division():
    one = ["a1", "a2", "a3", "a4"]
    two = ["b1", "b2", "b3", "b4"]
    three = ["c1", "c2", "c3", "c4"]
    top, middle, bottom = moves([one, two, three], 1)
    assert top == [("a1", STAYED), ("a2", STAYED), ("a3", STAYED), ("b1", PROMOTED)]
    assert middle == [("b2", STAYED), ("b3", STAYED), ("a4", RELEGATED), ("c1", PROMOTED)]
    assert bottom == [("c2", STAYED), ("c3", STAYED), ("c4", STAYED), ("b4", RELEGATED)]


def test_nobody_moves_with_no_places_and_every_member_lands_somewhere_once():
    divisions = [["a", "b", "c"], ["d", "e", "f"]]
    assert [[m for m, _how in d] for d in moves(divisions, 0)] == divisions
    landed = [m for d in moves(divisions, 2) for m, _how in d]
    assert sorted(landed) == sorted(m for d in divisions for m in d)
