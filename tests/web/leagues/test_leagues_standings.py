"""Standings from results: points, every tie-break, forfeits. No database: seasons unsaved."""

from __future__ import annotations

from cardclub.leagues.models import Season
from cardclub.leagues.standings import Result, compute, crosstable

PLAYERS = {1: "ana", 2: "bea", 3: "cris", 4: "dani"}


def two(fixture_id, a, b, rank_a, rank_b, score_a=0, score_b=0, forfeit=()):
    return [
        Result(fixture_id, 0, a, rank_a, score_a, 0 in forfeit),
        Result(fixture_id, 1, b, rank_b, score_b, 1 in forfeit),
    ]


def order(rows):
    return [row.name for row in rows]


def by_name(rows):
    return {row.name: row for row in rows}


def test_a_win_earns_three_a_draw_one_and_a_loss_nothing_by_default():
    season = Season(format=Season.Format.SINGLE)
    rows = by_name(compute(season, PLAYERS, [two(1, 1, 2, 1, 2, 5, 3), two(2, 3, 4, 1, 1, 4, 4)]))
    assert (rows["ana"].points, rows["ana"].won, rows["ana"].played) == (3, 1, 1)
    assert (rows["bea"].points, rows["bea"].lost) == (0, 1)
    assert (rows["cris"].points, rows["cris"].drawn) == (1, 1)
    assert (rows["dani"].points, rows["dani"].drawn) == (1, 1)
    assert (rows["ana"].score_for, rows["ana"].score_against) == (5, 3)


def test_points_per_result_are_the_seasons_own():
    season = Season(format=Season.Format.SINGLE, points_win=2, points_draw=1, points_loss=-1)
    rows = by_name(compute(season, PLAYERS, [two(1, 1, 2, 1, 2)]))
    assert (rows["ana"].points, rows["bea"].points) == (2, -1)


def test_members_level_on_points_are_ordered_by_head_to_head_first():
    season = Season(format=Season.Format.SINGLE)
    results = [
        two(1, 2, 1, 1, 2, 1, 0),  # bea beats ana narrowly
        two(2, 1, 3, 1, 2, 9, 0),  # ana thrashes cris
        two(3, 4, 2, 1, 2, 1, 0),  # dani beats bea
    ]
    rows = compute(season, PLAYERS, results)
    # ana, bea and dani have 3 points each; ana's game score is the best (+8), but she took no
    # points from the other two: head to head puts her third of them.
    assert order(rows) == ["dani", "bea", "ana", "cris"]
    assert by_name(rows)["bea"].head_to_head == 3
    assert by_name(rows)["ana"].head_to_head == 0


def test_level_on_points_and_head_to_head_the_game_score_difference_decides():
    season = Season(format=Season.Format.SINGLE)
    results = [two(1, 1, 3, 1, 2, 2, 1), two(2, 2, 4, 1, 2, 7, 0)]  # ana and bea never met
    rows = compute(season, PLAYERS, results)
    assert order(rows)[:2] == ["bea", "ana"]


def test_level_on_points_head_to_head_and_game_score_more_wins_rank_higher():
    season = Season(format=Season.Format.SINGLE)
    players = {1: "zoe", 2: "amy", 3: "x1", 4: "x2", 5: "x3", 6: "x4"}
    results = [
        two(1, 1, 3, 1, 2, 3, 0),  # zoe: a win 3–0 ...
        two(2, 1, 4, 2, 1, 0, 3),  # ... and a loss 0–3: 3 points, difference 0, one win
        two(3, 2, 5, 1, 1, 1, 1),  # amy: three draws: 3 points, difference 0, no win
        two(4, 2, 6, 1, 1, 2, 2),
        two(5, 2, 3, 1, 1, 0, 0),
    ]
    rows = by_name(compute(season, players, results))
    assert rows["zoe"].points == rows["amy"].points == 3
    assert rows["zoe"].score_difference == rows["amy"].score_difference == 0
    assert rows["zoe"].position < rows["amy"].position  # "amy" would come first by name


def test_a_forfeit_is_a_win_for_the_other_side_and_a_loss_for_the_forfeiter():
    season = Season(format=Season.Format.SINGLE)
    rows = by_name(compute(season, PLAYERS, [two(1, 1, 2, 2, 1, forfeit=(0,))]))
    assert (rows["ana"].points, rows["ana"].lost, rows["ana"].played) == (0, 1, 1)
    assert (rows["bea"].points, rows["bea"].won) == (3, 1)


def test_a_double_forfeit_scores_nothing_for_anyone():
    season = Season(format=Season.Format.SINGLE)
    rows = by_name(compute(season, PLAYERS, [two(1, 1, 2, None, None, forfeit=(0, 1))]))
    for name in ("ana", "bea"):
        assert (rows[name].points, rows[name].lost, rows[name].played) == (0, 1, 1)


def test_tables_score_by_place_with_shared_places_earning_that_places_points():
    season = Season(format=Season.Format.TABLES, table_size=4)
    seats = [
        Result(1, 0, 1, 1, 30, False),
        Result(1, 1, 2, 2, 20, False),
        Result(1, 2, 3, 2, 20, False),
        Result(1, 3, 4, 4, 5, False),
    ]
    rows = by_name(compute(season, PLAYERS, [seats]))
    assert [rows[n].points for n in ("ana", "bea", "cris", "dani")] == [3, 2, 2, 0]
    assert rows["ana"].won == 1 and rows["bea"].lost == 1
    assert rows["ana"].score_against == 45


def test_tables_use_custom_points_by_place():
    season = Season(format=Season.Format.TABLES, table_size=3, points_by_rank=[5, 2, 0])
    seats = [Result(1, 0, 1, 2, 0, False), Result(1, 1, 2, 1, 0, False)]
    seats.append(Result(1, 2, 3, 3, 0, False))
    rows = by_name(compute(season, PLAYERS, [seats]))
    assert [rows[n].points for n in ("ana", "bea", "cris")] == [2, 5, 0]


def test_the_crosstable_shows_the_points_of_each_meeting_and_marks_forfeits():
    season = Season(format=Season.Format.DOUBLE)
    results = [two(1, 1, 2, 1, 2), two(2, 2, 1, 1, 1), two(3, 3, 4, 2, 1, forfeit=(0,))]
    rows = compute(season, PLAYERS, results)
    cells = {
        row.name: dict(zip(order(rows), cs, strict=True))
        for row, cs, _html in crosstable(rows, results, season)
    }
    assert cells["ana"]["bea"] == "3 1"
    assert cells["bea"]["ana"] == "0 1"
    assert cells["cris"]["dani"] == "−"
    assert cells["dani"]["cris"] == "+"
    assert cells["ana"]["ana"] == "×"
