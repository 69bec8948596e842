"""Swiss pairings (FIDE Dutch system through py4swiss): a published tournament, and the
properties every season relies on, checked over random seasons."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardclub.leagues import swiss

GROS = Path(__file__).resolve().parent.parent / "fixtures" / "swiss" / "gros-2010.trf"
POINTS = {"1": 1.0, "=": 0.5, "0": 0.0, "+": 1.0, "-": 0.0, "H": 0.5, "Z": 0.0, "U": 1.0}


def published_rounds() -> tuple[list[str], dict[int, list[tuple[str, str, str]]]]:
    """The XX Open Internacional de Gros (Donostia, 2010), the example tournament of JaVaFo's
    manual (JaVaFo is a FIDE-endorsed pairing program): 52 players, four rounds as paired and
    played, with forfeits, requested half-point byes and absences."""
    lines = GROS.read_text(encoding="utf-8").splitlines()
    played = {}
    for line in lines:
        if line.startswith("001"):
            entries = [line[at : at + 8] for at in range(91, len(line), 10)]
            played[int(line[4:8])] = [(e[0:4].strip(), e[5], e[7]) for e in entries]
    return lines, played


def truncated(lines, played, upto: int) -> str:
    """The tournament file as it stood before round ``upto`` + 1, with that round's absentees."""
    absent = [
        n for n, games in played.items() if games[upto][0] == "0000" and games[upto][2] != "U"
    ]
    out = []
    for line in lines:
        if line.startswith("XXZ"):
            line = "XXZ " + " ".join(map(str, absent))
        if line.startswith("001"):
            number = int(line[4:8])
            points = sum(POINTS[result] for _o, _c, result in played[number][:upto])
            line = line[:80] + f"{points:4.1f}" + line[84 : 91 + 10 * upto].rstrip()
        out.append(line)
    return "\n".join(out) + "\n"


def as_paired(played, number: int) -> set[tuple[int, int | None]]:
    pairs = set()
    for player, games in played.items():
        opponent, colour, result = games[number - 1]
        if result == "U":
            pairs.add((player, None))
        elif opponent != "0000" and colour == "w":
            pairs.add((player, int(opponent)))
    return pairs


@pytest.mark.parametrize("number", [1, 3])
def test_the_engine_pairs_rounds_of_a_published_tournament_exactly_as_they_were_paired(number):
    # Rounds 2 and 4 of this 2010 event differ in a few boards: they were paired by the rules
    # then in force (the Dutch rules were rewritten in 2013 and 2017); rounds 1 and 3 are the
    # same pairs, colours and bye under today's rules.
    lines, played = published_rounds()
    assert set(swiss.pair_trf(truncated(lines, played, number - 1))) == as_paired(played, number)


@pytest.mark.parametrize("count", [2, 3, 8, 9, 31])
def test_round_one_without_the_engine_is_the_engines_round_one(count):
    entrants = [swiss.Entrant(seed=n) for n in range(1, count + 1)]
    text = swiss.trf(entrants, 5, swiss.Points())
    assert swiss.first_round(count) == swiss.pair_trf(text)


def test_the_file_written_for_the_engine_carries_seats_results_byes_and_absences():
    entrants = [
        swiss.Entrant(1, [swiss.Game(2, True, "win")]),
        swiss.Entrant(2, [swiss.Game(1, False, "loss")]),
        swiss.Entrant(3, [swiss.Game(None)], playing=False),
    ]
    text = swiss.trf(entrants, 3, swiss.Points(win=3, draw=1, loss=0, bye=2))
    rows = {line[4:8].strip(): line for line in text.splitlines() if line.startswith("001")}
    assert "XXZ 3" in text
    assert "PAB=2.0" in text and "WW=3.0" in text
    assert rows["1"][80:84] == " 3.0" and rows["1"][91:99] == "   2 w 1"
    assert rows["2"][91:99] == "   1 b 0"
    assert rows["3"][80:84] == " 2.0" and rows["3"][91:99] == "0000 - U"


def play_season(count: int, rounds: int, seed: int):
    """A whole Swiss of ``count`` entrants with random results; every round's pairs."""
    rng = random.Random(seed)
    entrants = {n: swiss.Entrant(seed=n) for n in range(1, count + 1)}
    history = []
    for _number in range(rounds):
        try:
            pairs = swiss.pair(list(entrants.values()), rounds, swiss.Points())
        except swiss.PairingImpossible:
            history.append(None)
            break
        history.append(pairs)
        for a, b in pairs:
            if b is None:
                entrants[a].games.append(swiss.Game(None))
                continue
            result = rng.choice(["win", "loss", "draw", "win", "loss", "forfeit_win"])
            other = {"win": "loss", "loss": "win", "draw": "draw", "forfeit_win": "forfeit_loss"}
            entrants[a].games.append(swiss.Game(b, True, result))
            entrants[b].games.append(swiss.Game(a, False, other[result]))
    return entrants, history


def repeat_free_pairing_exists(count: int, met: set[frozenset], byes: set[int]) -> bool:
    """Brute force, for small fields: can everybody meet a new opponent (an odd field's bye
    going to somebody who has not had one)?"""

    def matched(left: list[int]) -> bool:
        if not left:
            return True
        first, rest = left[0], left[1:]
        return any(
            frozenset((first, other)) not in met and matched([p for p in rest if p != other])
            for other in rest
        )

    people = list(range(1, count + 1))
    if count % 2 == 0:
        return matched(people)
    return any(matched([p for p in people if p != bye]) for bye in people if bye not in byes)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(count=st.integers(2, 12), seed=st.integers(0, 10_000), data=st.data())
def test_random_seasons_never_repeat_a_pair_while_avoidable_and_give_one_bye_at_most(
    count, seed, data
):
    rounds = data.draw(st.integers(1, count - 1 if count > 2 else 1))
    entrants, history = play_season(count, rounds, seed)
    met: set[frozenset] = set()
    byes: list[int] = []
    for pairs in history:
        if pairs is None:
            # The engine gave up: only when no repeat-free round exists at all.
            assert not repeat_free_pairing_exists(count, met, set(byes))
            break
        seated = [p for pair in pairs for p in pair if p is not None]
        assert sorted(seated) == list(range(1, count + 1))  # everybody, once
        for a, b in pairs:
            if b is None:
                byes.append(a)
            else:
                assert frozenset((a, b)) not in met
                met.add(frozenset((a, b)))
    assert len(byes) == len(set(byes))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(count=st.integers(4, 16), seed=st.integers(0, 10_000))
def test_first_seats_stay_within_the_dutch_systems_colour_limits(count, seed):
    # FIDE's absolute colour rule: over the games played (a forfeit is no game) nobody has two
    # first seats more than second seats, or the other way, nor the same seat three rounds in
    # a row; only the leaders of the last round may go past it. A difference of two does
    # happen when two members who both need the second seat must meet; "within one" is what
    # the rule prefers, not what it promises.
    rounds = max(1, min(5, count // 2 - 1))
    entrants, history = play_season(count, rounds, seed)
    for entrant in entrants.values():
        if entrant.seed in last_round_leaders(entrants):
            continue
        seats = [g.first for g in played_games(entrant)]
        assert abs(2 * sum(seats) - len(seats)) <= 2, entrant
        assert all(len(set(seats[i : i + 3])) > 1 for i in range(len(seats) - 2)), entrant
    balanced = sum(
        abs(2 * sum(g.first for g in played_games(e)) - len(played_games(e))) <= 1
        for e in entrants.values()
    )
    assert balanced >= len(entrants) // 2  # most members end within one


def played_games(entrant) -> list:
    return [
        g
        for g in entrant.games
        if g is not None and g.opponent is not None and g.result in ("win", "draw", "loss")
    ]


def last_round_leaders(entrants) -> set[int]:
    """Who had more than half the possible points before the last round."""
    points = swiss.Points()
    before = {
        n: sum(swiss._points_of(g, points) for g in e.games[:-1]) for n, e in entrants.items()
    }
    most = points.win * (len(next(iter(entrants.values())).games) - 1)
    return {n for n, p in before.items() if p > most / 2}
