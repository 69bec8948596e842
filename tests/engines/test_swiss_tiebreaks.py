"""Swiss tie-breaks on a small season worked out by hand."""

from __future__ import annotations

from cardclub.leagues import tiebreaks

# Four rounds, win 3 / draw 1 / loss 0 / bye 3. Final points: A 9, B 7, C 4, D 3, E 3.
POINTS = {"A": 9, "B": 7, "C": 4, "D": 3, "E": 3}
GAMES = {
    "A": [("B", "win"), ("C", "win"), ("D", "loss"), (None, "bye")],
    "B": [("A", "loss"), ("D", "win"), (None, "bye"), ("C", "draw")],
    "C": [("D", "draw"), ("A", "loss"), ("E", "win"), ("B", "draw")],
    "D": [("C", "draw"), ("B", "loss"), ("A", "win"), ("E", "forfeit_loss")],
    "E": [(None, "bye"), ("D", "forfeit_win"), ("C", "loss"), ("A", "loss")],
}


def test_buchholz_adds_the_opponents_points_with_the_members_own_for_an_unplayed_round():
    values = tiebreaks.compute(POINTS, GAMES)
    assert values["A"][tiebreaks.BUCHHOLZ] == 7 + 4 + 3 + 9  # the bye counts A's own 9
    assert values["D"][tiebreaks.BUCHHOLZ] == 4 + 7 + 9 + 3  # the forfeit counts D's own 3
    assert values["C"][tiebreaks.BUCHHOLZ] == 3 + 9 + 3 + 7


def test_buchholz_cut_one_drops_the_weakest_opponent():
    values = tiebreaks.compute(POINTS, GAMES)
    assert values["A"][tiebreaks.BUCHHOLZ_CUT1] == 7 + 4 + 9
    assert values["C"][tiebreaks.BUCHHOLZ_CUT1] == 9 + 3 + 7


def test_sonneborn_berger_weighs_each_opponent_by_the_result_against_them():
    values = tiebreaks.compute(POINTS, GAMES)
    assert values["A"][tiebreaks.SONNEBORN_BERGER] == 7 + 4 + 0 + 9
    assert values["C"][tiebreaks.SONNEBORN_BERGER] == 3 * 0.5 + 0 + 3 + 7 * 0.5
    # A forfeit win and a bye count like a win over an opponent with E's own points.
    assert values["E"][tiebreaks.SONNEBORN_BERGER] == 3 + 3


def test_unknown_or_repeated_tie_breaks_are_named():
    assert tiebreaks.unknown(["buchholz", "wins"]) == []
    assert tiebreaks.unknown(["buchholz", "luck", "buchholz"]) == ["luck", "buchholz"]
    assert tiebreaks.unknown("buchholz") == ["buchholz"]
