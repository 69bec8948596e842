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
    # Rounds 2 and 4 of this 2010 event differ in a few boards because it was paired by the
    # Dutch rules then in force (before the 2013 and 2017 rewrites), not by a transcription
    # error: in round 2's 1-point group both pairings satisfy every colour preference, and the
    # engine's S2 order (13 15 14 16 20 17 ...) comes before the one played (13 15 14 17 16
    # 21 ...), which today's rule for choosing among transpositions (C.04.3, 2017) requires.
    # Round 4 differs in ten boards of the lower groups, around the round-1 forfeits and the
    # requested byes. Not a transcription error: the file passes the engine's strict checks
    # (every game written alike from both sides, every total the sum of its rounds).
    lines, played = published_rounds()
    assert set(swiss.pair_trf(truncated(lines, played, number - 1))) == as_paired(played, number)


# A whole tournament paired round by round by JaVaFo 2.2, FIDE's reference program for the
# Dutch system (2017 rules, the ones py4swiss implements): gnutterts/chesspairing on GitHub,
# pairing/dutch/testdata/golden-javafo/20-players-9-rounds/round-1.json … round-9.json
# (commits 2d418b10 and aa036717). Twenty players rated 2700, 2653, … (47 apart), starting
# numbers in rating order; in every game the higher-rated player won. White first.
JAVAFO_20 = {
    1: "1-11 12-2 3-13 14-4 5-15 16-6 7-17 18-8 9-19 20-10",
    2: "6-1 2-7 8-3 4-9 10-5 11-16 17-12 13-18 19-14 15-20",
    3: "1-4 3-2 5-6 7-11 12-8 9-13 14-10 16-15 20-17 18-19",
    4: "2-5 8-1 10-3 4-7 15-9 6-14 11-18 13-12 17-16 19-20",
    5: "1-2 3-9 5-4 12-6 7-10 15-8 14-11 16-19 18-17 20-13",
    6: "3-1 2-4 8-5 6-11 9-7 13-16 17-15 10-18 19-12 20-14",
    7: "1-5 6-2 4-3 7-8 12-9 15-10 11-13 14-16 19-17 18-20",
    8: "7-1 2-10 11-3 4-6 5-9 13-15 17-14 18-12 8-19 16-20",
    9: "1-13 9-2 3-5 12-4 14-7 6-8 10-17 20-11 16-18 15-19",
}


def board_pairs(text: str) -> set[tuple[int, int | None]]:
    return {tuple(int(n) for n in board.split("-")) for board in text.split()}


@pytest.mark.parametrize("number", range(1, 10))
def test_every_round_of_a_tournament_paired_by_javafo_is_paired_the_same_seats_included(number):
    # Through the club's own entry point (round 1 without the engine, then the TRF it
    # writes), with chess points doubled into the club's whole numbers.
    entrants = {seed: swiss.Entrant(seed=seed) for seed in range(1, 21)}
    for earlier in range(1, number):
        for white, black in board_pairs(JAVAFO_20[earlier]):
            entrants[white].games.append(
                swiss.Game(black, True, "win" if white < black else "loss")
            )
            entrants[black].games.append(
                swiss.Game(white, False, "win" if black < white else "loss")
            )
    points = swiss.Points(win=2, draw=1, loss=0, bye=2)
    assert set(swiss.pair(list(entrants.values()), 9, points)) == board_pairs(JAVAFO_20[number])


# FIDE's own worked example, "Mastering the Dutch" (FIDE TEC, 2026 edition, chapters 3-11,
# pp. 11-67; transcribed from its crosstables and pairing tables as in gnutterts/chesspairing,
# pairing/dutch/mastering_dutch_2026_test.go): fifteen players in starting order, nine rounds,
# with requested half-point byes (H), forfeits (+ for the winner, written after the pair) and
# pairing-allocated byes (U). Results are White's: 1, = or 0; "+"/"-" a forfeit.
MASTERING = {
    1: ("1-8 1 9-2 = 3-10 1 11-4 0 5-12 = 13-6 1 7-14 0", {15: "U"}),
    2: ("14-1 0 2-5 1 15-3 0 4-13 1 10-7 0 8-11 1 12-9 =", {6: "H"}),
    3: ("1-4 = 3-2 = 6-5 = 13-8 - 9-14 1 11-10 1 12-15 1", {7: "H"}),
    4: ("4-3 - 2-1 0 8-9 0 7-12 1 5-13 1 14-6 0 15-11 0", {10: "U"}),
    5: ("1-3 = 9-7 0 4-5 1 12-2 = 6-8 0 13-11 1 10-15 1", {14: "U"}),
    6: ("7-1 0 3-4 1 8-12 1 11-9 = 2-10 1 5-14 - 15-6 0", {13: "U"}),
    7: ("3-8 1 1-9 = 4-2 1 6-7 0 13-14 1 12-11 1 5-10 0", {15: "H"}),
    8: ("7-3 = 1-13 1 9-4 0 2-8 1 10-12 1 11-6 1 14-15 0", {5: "U"}),
    9: ("10-1 ? 9-3 ? 4-7 ? 13-2 ? 8-15 ? 5-11 ? 12-14 ?", {6: "U"}),
}
_OTHER_SIDE = {"1": "0", "0": "1", "=": "=", "+": "-", "-": "+", "?": "?"}


def mastering_trf(played: int) -> str:
    """The example's tournament file after ``played`` rounds, with the next round's requested
    byes already entered, as a pairing program is given them."""
    rows = {seed: [] for seed in range(1, 16)}
    for number in range(1, played + 2):
        boards, byes = MASTERING[number]
        if number == played + 1:
            boards, byes = "", {s: k for s, k in byes.items() if k == "H"}
        tokens = boards.split()
        for pair, result in zip(tokens[::2], tokens[1::2], strict=True):
            white, black = (int(n) for n in pair.split("-"))
            rows[white].append(f"{black:4d} w {result}")
            rows[black].append(f"{white:4d} b {_OTHER_SIDE[result]}")
        for seed, kind in byes.items():
            rows[seed].append(f"0000 - {kind}")
    worth = {"1": 1.0, "=": 0.5, "0": 0.0, "+": 1.0, "-": 0.0, "U": 1.0, "H": 0.5}
    lines = [
        "012 Mastering the Dutch",
        "XXR 9",
        "XXC white1",
        "XXS WW=1.0 BW=1.0 WD=0.5 BD=0.5 WL=0.0 BL=0.0 ZPB=0.0 HPB=0.5 FPB=1.0 PAB=1.0 "
        "FW=1.0 FL=0.0",
    ]
    for seed, cells in rows.items():
        total = sum(worth[cell[-1]] for cell in cells)
        line = f"001 {seed:4d}      {'P' + str(seed):<33} {3000 - seed:4d} {'':3} {'':11} {'':10} "
        lines.append(line + f"{total:4.1f} {seed:4d}" + "".join("  " + c for c in cells))
    return "\n".join(lines) + "\n"


def mastering_pairs(number: int) -> set[tuple[int, int | None]]:
    boards, byes = MASTERING[number]
    pairs = board_pairs(" ".join(boards.split()[::2]))
    return pairs | {(seed, None) for seed, kind in byes.items() if kind == "U"}


@pytest.mark.parametrize("number", [1, 2, 3, 4, 6, 7])
def test_fides_worked_example_is_paired_as_fide_paired_it(number):
    assert set(swiss.pair_trf(mastering_trf(number - 1))) == mastering_pairs(number)


@pytest.mark.parametrize("number", [5, 8, 9])
def test_fides_2026_example_differs_only_where_the_2026_rules_choose_the_bye_otherwise(number):
    # The 2026 edition works the rules in force from February 2026, which added a criterion
    # for the pairing-allocated bye (fewest unplayed games first); py4swiss, like JaVaFo
    # above, implements the rules in force until then. In these three rounds FIDE's bye
    # goes elsewhere, and only the boards that follow from that move; every other board is
    # FIDE's.
    ours = set(swiss.pair_trf(mastering_trf(number - 1)))
    theirs = mastering_pairs(number)
    our_bye = next(a for a, b in ours if b is None)
    their_bye = next(a for a, b in theirs if b is None)
    assert our_bye != their_bye
    moved = {p for pair in ours ^ theirs for p in pair if p is not None}
    assert {our_bye, their_bye} <= moved and len(ours & theirs) >= len(theirs) - 4


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
def test_first_seats_stay_within_one_unless_the_pair_itself_forbids_it(count, seed):
    """The issue asks for first seats "balanced within one". What a pairing can promise is
    within one wherever the pair it has made allows it, and that is what is checked here: a
    member's first seats minus second seats (over games played; a bye or a forfeit is no
    game, as FIDE counts colours) goes past one only in a round where their opponent was owed
    the same seat (FIDE's colour preference, C.04.3 A.6: away from the side they lean to,
    or away from the seat they had twice running), so one of the two had to be let down
    whichever way the seats were given.

    The pairs themselves are the Dutch system's, and it is kept rather than a pairing that
    picks opponents for their seats: FIDE ranks meeting a member on the same points, and the
    float rules, above colours (C.04.3 criteria C.6-C.11 before C.12-C.13), and allows a
    difference of two as its absolute limit (C.04.1 f, C.04.3 C.3); a difference of three,
    or the same seat three rounds running, is never allowed but to the last round's leaders
    and, in that round, to their opponents.
    Breaking a score group to spare one member a second first seat in a row would make
    worse games for a club that asked for a Swiss."""
    rounds = max(1, min(5, count // 2 - 1))
    entrants, history = play_season(count, rounds, seed)
    leaders = last_round_leaders(entrants)
    for number, pairs in enumerate(history):
        if pairs is None:
            break
        for first, second in pairs:
            if second is None:
                continue
            a, b = entrants[first], entrants[second]
            if a.games[number].result not in ("win", "draw", "loss"):
                continue  # a forfeit is no game: it moves nobody's seats
            owed = {m.seed: owed_seat(m.games[:number]) for m in (a, b)}
            for member, other in ((a, b), (b, a)):
                if abs(swiss.seat_difference(member.games[: number + 1])) > 1:
                    assert owed[member.seed] == owed[other.seed] is not None, (number, a, b)
    for entrant in entrants.values():
        if entrant.seed in leaders:
            continue
        games = entrant.games
        if games[-1].opponent in leaders:
            # The leaders' exception is the pair's: a leader's last opponent, owed the seat
            # the leader is owed too, may be refused it for the leader's stronger claim
            # (C.04.3 A.7, E.2).
            games = games[:-1]
        seats = [g.first for g in played_games(games)]
        assert abs(swiss.seat_difference(games)) <= 2, entrant
        assert all(len(set(seats[i : i + 3])) > 1 for i in range(len(seats) - 2)), entrant


def owed_seat(games) -> bool | None:
    """The seat FIDE's colour preference asks for next (True: the first), None before any
    game: the side away from the lean past one, else away from a seat had twice running,
    else away from the lean, else the other seat from the last game."""
    seats = [
        g.first
        for g in games
        if g is not None and g.opponent is not None and g.result in ("win", "draw", "loss")
    ]
    if not seats:
        return None
    lean = swiss.seat_difference(games)
    if abs(lean) > 1 or (len(seats) < 2 or seats[-1] != seats[-2]) and lean:
        return lean < 0
    return not seats[-1]


def played_games(games) -> list:
    return [
        g
        for g in games
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
