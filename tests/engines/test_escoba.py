"""Escoba de 15 engine: the cases of shared/rules/escoba.md, option by option (issue 4)."""

from __future__ import annotations

import dataclasses
import json
import random
from collections import Counter
from itertools import combinations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import IllegalMove, InvalidMove, InvalidOptions
from games.escoba import engine as esc
from games.escoba.engine import Move

# --------------------------------------------------------------------------- helpers


def table_order(cards):
    return tuple(sorted(cards, key=esc.DECK.index))


def position(players=2, options=None, **fields):
    """A state of ``players`` with the given zones; every card not placed goes to the deck."""
    base = esc.new_game(players, options, seed=0)
    n_sides = len(base.piles)
    fields.setdefault("dealer", players - 1)
    fields.setdefault("turn", (fields["dealer"] + 1) % players)
    fields.setdefault("hands", tuple(() for _ in range(players)))
    fields["hands"] = tuple(tuple(h) for h in fields["hands"])
    fields["table"] = table_order(fields.get("table", ()))
    fields["piles"] = tuple(tuple(p) for p in fields.get("piles", [()] * n_sides))
    fields.setdefault("escobas", (0,) * n_sides)
    fields.setdefault("last_capturer", None)
    fields.setdefault("scores", (0,) * n_sides)
    fields.setdefault("last_moves", ())
    fields.setdefault("last_hand", None)
    if "deck" not in fields:
        placed = {c for h in fields["hands"] for c in h} | set(fields["table"])
        placed |= {c for p in fields["piles"] for c in p}
        fields["deck"] = tuple(c for c in esc.DECK if c not in placed)
    return dataclasses.replace(base, **fields)


def last_card_of_hand(players=2, options=None, *, piles, table, card, **fields):
    """The dealer about to play the very last card of a hand (the deck is empty)."""
    dealer = fields.pop("dealer", players - 1)
    hands = [()] * players
    hands[dealer] = (card,)
    return position(
        players,
        options,
        dealer=dealer,
        turn=dealer,
        hands=hands,
        table=table,
        deck=(),
        piles=piles,
        **fields,
    )


def play(state, code):
    return esc.apply(state, state.turn, esc.parse_move(code))


def codes(state, seat=None):
    return sorted(m.code for m in esc.legal_moves(state, state.turn if seat is None else seat))


def random_playout(players, options, seed, on_step=None):
    rng = random.Random(seed)
    state = esc.new_game(players, options, seed=seed)
    while not esc.is_over(state):
        seat = esc.to_move(state)[0]
        nxt = esc.apply(state, seat, rng.choice(esc.legal_moves(state, seat)))
        if on_step:
            on_step(state, nxt)
        state = nxt
    return state


def seed_with_opening(escobas):
    """A seed whose first deal lays four table cards worth ``escobas`` opening escobas."""
    for seed in range(20000):
        state = esc.new_game(2, {"opening_escoba": "none"}, seed=seed)
        if esc.opening_escobas(state.table) == escobas:
            return seed
    raise AssertionError("no such seed")


# --------------------------------------------------------------------------- material and deal


def test_the_deck_has_forty_spanish_cards_valued_one_to_ten():
    assert len(esc.DECK) == len(set(esc.DECK)) == 40
    assert {c[-1] for c in esc.DECK} == set("oceb")
    assert esc.VALUE["8c"] == 8 and esc.VALUE["9e"] == 9 and esc.VALUE["10b"] == 10
    assert sum(esc.VALUE.values()) == 220


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_deal_gives_three_cards_each_and_four_to_the_table(players):
    state = esc.new_game(players, {"opening_escoba": "none"}, seed=4)
    assert [len(h) for h in state.hands] == [3] * players
    assert len(state.table) == 4
    assert len(state.deck) == 40 - 3 * players - 4
    assert sorted(esc.all_cards(state)) == sorted(esc.DECK)


def test_the_mano_after_the_dealer_plays_first_and_the_deal_passes_on_each_hand():
    seen_dealers = []

    def watch(before, after):
        if after.hand != before.hand:
            seen_dealers.append((before.dealer, after.dealer))
            assert after.turn == (after.dealer + 1) % after.players

    state = esc.new_game(3, seed=9)
    assert esc.to_move(state) == ((state.dealer + 1) % 3,)
    random_playout(3, None, 9, watch)
    assert seen_dealers and all(new == (old + 1) % 3 for old, new in seen_dealers)


def test_the_first_dealer_is_drawn_from_the_seed():
    assert {esc.new_game(4, seed=s).dealer for s in range(40)} == {0, 1, 2, 3}


@pytest.mark.parametrize(("players", "deals"), [(2, 6), (3, 4), (4, 3)])
def test_three_more_cards_are_dealt_until_the_deck_runs_out(players, deals):
    state = esc.new_game(players, seed=2)
    rng = random.Random(2)
    count = 1
    while state.hand == 1 and not esc.is_over(state):
        before = state
        state = esc.apply(state, state.turn, rng.choice(esc.legal_moves(state, state.turn)))
        if state.hand == 1 and len(state.deck) < len(before.deck):
            assert [len(h) for h in state.hands] == [3] * players
            count += 1
    assert count == deals


# --------------------------------------------------------------------------- capturing


def test_capture_options_lists_every_set_making_fifteen_equal_values_apart():
    table = ("5c", "5e", "10o", "2b", "3b")
    options = esc.capture_options("5o", table)
    assert sorted(options) == sorted(
        [("5c", "5e"), ("10o",), ("5c", "2b", "3b"), ("5e", "2b", "3b")]
    )
    assert esc.capture_options("10c", ("6o", "8e")) == []
    assert esc.capture_options("7o", ()) == []


def test_capture_options_agree_with_brute_force():
    rng = random.Random(1)
    for _ in range(300):
        cards = rng.sample(esc.DECK, rng.randrange(1, 12))
        card, table = cards[0], cards[1:]
        expected = {
            combo
            for size in range(1, len(table) + 1)
            for combo in combinations(table, size)
            if esc.VALUE[card] + sum(esc.VALUE[c] for c in combo) == 15
        }
        got = esc.capture_options(card, table)
        assert len(got) == len(set(got)) and set(got) == expected


def test_legal_moves_list_every_capture_choice_separately():
    state = position(hands=[("5o", "1c", "9e"), ("1b",)], table=("5c", "5e", "10o", "6b"))
    assert codes(state) == sorted(["c:5o:5c+5e", "c:5o:10o", "c:9e:6b", "l:5o", "l:1c", "l:9e"])


def test_a_capture_takes_the_card_and_the_chosen_table_cards():
    state = position(hands=[("5o", "1c", "9e"), ("1b", "2b", "3b")], table=("5c", "5e", "10o"))
    after = play(state, "c:5o:5c+5e")
    assert after.table == ("10o",)
    assert after.piles[0] == ("5o", "5c", "5e")
    assert after.escobas == (0, 0)
    assert after.last_capturer == 0
    assert after.turn == 1


def test_taking_every_card_on_the_table_is_an_escoba():
    state = position(hands=[("5o", "1c", "9e"), ("1b", "2b", "3b")], table=("4c", "6e"))
    after = play(state, "c:5o:4c+6e")
    assert after.table == () and after.escobas == (1, 0)
    event = esc.view(after, 1)["last_moves"][-1]
    assert event == {
        "hand": 1,
        "seat": 0,
        "kind": "capture",
        "card": "5o",
        "cards": ["4c", "6e"],
        "escobas": 1,
        "from_seat": None,
    }


def test_a_card_that_cannot_capture_is_laid_face_up_on_the_table():
    state = position(hands=[("1c", "9e", "2o"), ("1b", "2b", "3b")], table=("4c",))
    after = play(state, "l:9e")
    assert after.table == ("4c", "9e") and after.piles == ((), ())


def test_illegal_moves_say_why():
    state = position(hands=[("5o", "1c", "9e"), ("1b", "2b", "3b")], table=("5c", "5e", "10o"))
    with pytest.raises(IllegalMove, match="not your turn"):
        esc.apply(state, 1, Move("1b"))
    with pytest.raises(IllegalMove, match="do not hold 7o"):
        esc.apply(state, 0, Move("7o"))
    with pytest.raises(IllegalMove, match="4b is not on the table"):
        esc.apply(state, 0, Move("1c", ("4b",)))
    with pytest.raises(IllegalMove, match="make 20, not 15"):
        esc.apply(state, 0, Move("5o", ("5c", "10o")))
    with pytest.raises(InvalidMove):
        esc.apply(state, 0, "l:5o")


def test_move_codes_round_trip_and_garbage_is_refused():
    assert esc.parse_move("c:7o:8e") == Move("7o", ("8e",))
    assert esc.parse_move("c:5o:10o+5c") == esc.parse_move("c:5o:5c+10o")
    assert esc.parse_move("l:10b").code == "l:10b"
    for garbage in ["", "l:", "l:11o", "c:5o", "c:5o:", "c:5o:5o", "c:5o:5c+5c", "x:5o", "l:5o:1c"]:
        with pytest.raises(InvalidMove):
            esc.parse_move(garbage)


# --------------------------------------------------------------------------- the opening escoba


@pytest.mark.parametrize("mode", ["dealer", "mano", "none"])
def test_four_opening_cards_making_fifteen_are_one_escoba_for_the_chosen_player(mode):
    seed = seed_with_opening(1)
    table = esc.new_game(2, {"opening_escoba": "none"}, seed=seed).table
    assert sum(esc.VALUE[c] for c in table) == 15
    state = esc.new_game(2, {"opening_escoba": mode}, seed=seed)
    mano = (state.dealer + 1) % 2
    if mode == "none":
        assert len(state.table) == 4 and state.escobas == (0, 0) and state.last_capturer is None
        return
    taker = state.dealer if mode == "dealer" else mano
    assert state.table == ()
    assert len(state.piles[taker]) == 4 and state.escobas[taker] == 1
    assert state.last_capturer == taker
    event = esc.view(state, None)["last_moves"][-1]
    assert (event["kind"], event["seat"], event["escobas"]) == ("opening", taker, 1)


def test_four_opening_cards_making_thirty_in_two_fifteens_are_two_escobas():
    seed = seed_with_opening(2)
    state = esc.new_game(2, seed=seed)
    assert state.table == () and state.escobas[state.dealer] == 2


def test_opening_escobas_counts_only_the_whole_table():
    assert esc.opening_escobas(("1o", "2o", "3o", "9c")) == 1
    assert esc.opening_escobas(("10o", "10c", "5e", "5b")) == 2
    assert esc.opening_escobas(("10o", "10c", "9e", "1b")) == 0  # 30, but no 15 inside
    assert esc.opening_escobas(("10o", "5c", "1e", "2b")) == 0  # 10 + 5 inside, 18 in all


# --------------------------------------------------------------------------- capture rules


def capture_rule_position(rule, **fields):
    fields.setdefault("hands", [("5o", "1c", "9c"), ("1b", "2b", "3b")])
    fields.setdefault("table", ("10c", "3e", "7b"))
    return position(2, {"capture_rule": rule}, **fields)


def test_optional_capture_lets_any_card_be_laid_down():
    state = capture_rule_position("optional")
    assert "l:5o" in codes(state)
    after = play(state, "l:5o")
    assert "5o" in after.table and after.piles == ((), ())


def test_obligatory_capture_forbids_laying_a_card_that_can_capture():
    state = capture_rule_position("obligatory")
    assert codes(state) == sorted(["c:5o:10c", "c:5o:3e+7b", "l:1c", "l:9c"])
    with pytest.raises(IllegalMove, match="5o can make 15, so it must capture"):
        play(state, "l:5o")
    assert "1c" in play(state, "l:1c").table  # another card may still be laid


def test_strict_obligatory_capture_allows_only_captures_when_one_exists():
    state = capture_rule_position("obligatory_strict")
    assert codes(state) == sorted(["c:5o:10c", "c:5o:3e+7b"])
    with pytest.raises(IllegalMove, match="you must capture"):
        play(state, "l:9c")
    nothing = capture_rule_position("obligatory_strict", table=("8e", "9e"))
    assert codes(nothing) == ["l:1c", "l:5o", "l:9c"]


@pytest.mark.parametrize("rule", ["obligatory", "obligatory_strict", "penalized"])
def test_no_capture_rule_forces_the_largest_capture(rule):
    state = capture_rule_position(rule)
    after = play(state, "c:5o:10c")
    assert after.piles[0] == ("5o", "10c")


def test_a_penalized_lay_is_taken_by_the_next_player_with_the_largest_capture():
    state = capture_rule_position("penalized", table=("10c", "3e", "7b", "4e", "6b", "9o"))
    assert "l:5o" in codes(state)
    after = play(state, "l:5o")
    # Two 2-card captures; the one holding a seven is taken (the rules' tie-break).
    assert after.piles == ((), ("5o", "3e", "7b"))
    assert after.table == ("4e", "6b", "9o", "10c")
    assert after.last_capturer == 1 and after.escobas == (0, 0)
    assert after.turn == 1
    moves = esc.view(after, 0)["last_moves"]
    assert [m["kind"] for m in moves[-2:]] == ["lay", "penalty"]
    assert moves[-1] == {
        "hand": 1,
        "seat": 1,
        "kind": "penalty",
        "card": "5o",
        "cards": ["3e", "7b"],
        "escobas": 0,
        "from_seat": 0,
    }


def test_the_penalty_prefers_the_capture_with_more_cards():
    # 3c+7c would hold a seven, but four cards beat two.
    state = capture_rule_position("penalized", table=("1c", "2c", "3e", "4e", "3c", "7c"))
    after = play(state, "l:5o")
    assert after.piles[1] == ("5o", "1c", "2c", "3c", "4e")


@pytest.mark.parametrize(
    ("table", "taken"),
    [
        (("2e", "3c", "7b", "8b"), ("3c", "7b")),  # the capture with a seven
        (("3c", "7o", "7b", "3e"), ("3c", "7o")),  # the one with the siete de oros
        (("2e", "4o", "6c", "8b"), ("4o", "6c")),  # the one with more oros
        (("2e", "2c", "8b"), ("2c", "8b")),  # else the first in table order
    ],
)
def test_between_captures_of_equal_size_the_penalty_takes_the_scoring_cards(table, taken):
    state = capture_rule_position("penalized", table=table)
    assert play(state, "l:5o").piles[1] == ("5o", *taken)


def test_a_penalty_that_clears_the_table_is_never_an_escoba():
    state = capture_rule_position("penalized", table=("10c",))
    after = play(state, "l:5o")
    assert after.table == () and after.piles[1] == ("5o", "10c") and after.escobas == (0, 0)


def test_a_card_that_cannot_capture_is_never_penalized():
    state = capture_rule_position("penalized")
    after = play(state, "l:9c")
    assert "9c" in after.table and after.piles == ((), ())


def test_with_pairs_the_penalty_goes_to_the_other_pair():
    state = position(
        4,
        {"capture_rule": "penalized", "pairs": True},
        dealer=0,
        turn=1,
        hands=[("1o", "1c", "1e"), ("5o", "2c", "2e"), ("3o", "3c", "3e"), ("4o", "4c", "4e")],
        table=("10c", "9b"),
    )
    after = play(state, "l:5o")
    assert after.piles == (("5o", "10c"), ())
    assert after.last_capturer == 2
    assert esc.view(after, 3)["last_moves"][-1]["seat"] == 2


# --------------------------------------------------------------------------- end of a hand


def split_rest(exclude, first):
    rest = [c for c in esc.DECK if c not in exclude]
    return [c for c in rest if c in first], [c for c in rest if c not in first]


def test_the_last_capturer_takes_what_is_left_and_it_is_not_an_escoba():
    table, card = ("2c",), "1c"
    mine, theirs = split_rest({*table, card}, set(esc.DECK[:16]))
    state = last_card_of_hand(
        piles=[mine, theirs], table=table, card=card, last_capturer=0, dealer=1
    )
    after = play(state, "l:1c")
    result = esc.view(after, 0)["last_hand"]
    assert result["taker"] == 0 and result["taken"] == ["1c", "2c"]
    assert result["sides"][0]["cards"] == len(mine) + 2
    assert result["sides"][0]["escobas"] == 0
    assert after.hand == 2


def test_when_nobody_captured_the_dealer_takes_what_is_left():
    table, card = ("2c", "3c"), "1c"
    mine, theirs = split_rest({*table, card}, set(esc.DECK[:16]))
    state = last_card_of_hand(
        piles=[mine, theirs], table=table, card=card, last_capturer=None, dealer=1
    )
    result = esc.view(play(state, "l:1c"), 0)["last_hand"]
    assert result["taker"] == 1 and result["taken"] == ["1c", "2c", "3c"]


def test_a_penalty_on_the_last_card_makes_the_taker_the_last_capturer():
    table, card = ("10c", "9e"), "5o"
    mine, theirs = split_rest({*table, card}, set(esc.DECK[:16]))
    state = last_card_of_hand(
        options={"capture_rule": "penalized"},
        piles=[mine, theirs],
        table=table,
        card=card,
        last_capturer=1,
        dealer=1,
    )
    result = esc.view(play(state, "l:5o"), 0)["last_hand"]
    assert result["taker"] == 0 and result["taken"] == ["9e"]


# --------------------------------------------------------------------------- scoring


def test_hand_points_count_escobas_the_siete_de_oros_and_the_three_majorities():
    ours = ["7o", "7c", "7e", "1o", "2o", "3o", "4o", "5o", "1c", "2c", "3c", "4c"]
    theirs = [c for c in esc.DECK if c not in ours]
    assert esc.hand_points([ours, theirs], [2, 1]) == [2 + 1 + 1 + 0 + 1, 1 + 0 + 0 + 1 + 0]
    # Item by item, per side, as the view shows it after a hand.
    breakdown = [
        esc._side_score_dict(side) for side in esc._breakdown([ours, theirs], [2, 1], "each")
    ]
    assert breakdown[0]["points"] == {
        "escobas": 2,
        "siete_de_oros": 1,
        "sevens": 1,
        "cards": 0,
        "oros": 1,
    }
    assert breakdown[1] | {"points": None} == {
        "cards": 28,
        "oros": 4,
        "sevens": 1,
        "siete_de_oros": False,
        "escobas": 1,
        "points": None,
        "total": 2,
    }


def test_a_tie_for_most_scores_for_each_tied_side_or_for_nobody():
    # 20 cards each, 2 sevens each, 5 oros each: every majority is tied.
    ours = ["7o", "7c", "1o", "2o", "3o", "4o"] + ["1c", "2c", "3c", "4c", "5c", "6c"]
    ours += ["1e", "2e", "3e", "4e", "5e", "6e", "8e", "9e"]
    theirs = [c for c in esc.DECK if c not in ours]
    assert esc.hand_points([ours, theirs], [0, 0], "each") == [1 + 3, 3]
    assert esc.hand_points([ours, theirs], [0, 0], "none") == [1, 0]


def test_three_sides_tie_for_the_point_only_among_the_highest():
    a, b, c = ["7o", "7c", "1e"], ["7e", "7b", "2e"], ["1c"]
    assert esc.hand_points([a, b, c], [0, 0, 0]) == [1 + 1 + 1 + 1, 1 + 1, 0]
    assert esc.hand_points([a, b, c], [0, 0, 0], "none") == [1 + 1, 0, 0]


def test_hand_points_refuses_an_unknown_tie_mode():
    with pytest.raises(ValueError):
        esc.hand_points([[], []], [0, 0], "split")


def test_with_pairs_the_partners_piles_and_escobas_count_together():
    table, card = ("2c",), "1c"
    mine, theirs = split_rest({*table, card}, set(esc.DECK[:30]))
    state = last_card_of_hand(
        4,
        {"pairs": True},
        piles=[mine, theirs],
        table=table,
        card=card,
        last_capturer=2,
        dealer=3,
        escobas=(1, 0),
    )
    after = play(state, "l:1c")
    view = esc.view(after, 1)
    assert [s["seats"] for s in view["sides"]] == [[0, 2], [1, 3]]
    assert view["last_hand"]["sides"][0]["cards"] == len(mine) + 2
    assert view["scores"] == esc.hand_points([[*mine, "1c", "2c"], theirs], [1, 0])
    assert view["side_of"] == [0, 1, 0, 1]


# --------------------------------------------------------------------------- the game


def finishing_hand(scores, target=21, tie_points="each"):
    """The last card of a hand whose points are known; ``scores`` are the totals before it."""
    table, card = ("2c",), "1c"
    mine, theirs = split_rest({*table, card}, set(esc.DECK[:20]))
    state = last_card_of_hand(
        options={"target": target, "tie_points": tie_points},
        piles=[mine, theirs],
        table=table,
        card=card,
        last_capturer=0,
        dealer=1,
        scores=scores,
    )
    points = esc.hand_points([[*mine, *table, card], theirs], [0, 0], tie_points)
    return state, points


def test_the_game_ends_when_someone_reaches_the_target_and_the_highest_wins():
    state, points = finishing_hand((0, 0))
    state, points = finishing_hand((21 - points[0], 21 - points[1] + 3))
    after = play(state, "l:1c")
    assert esc.is_over(after) and esc.to_move(after) == ()
    assert esc.legal_moves(after, 0) == esc.legal_moves(after, 1) == []
    assert esc.outcome(after) == [
        {"seat": 0, "score": 21, "rank": 2},
        {"seat": 1, "score": 24, "rank": 1},
    ]
    assert esc.view(after, 0)["phase"] == "over"
    with pytest.raises(IllegalMove, match="over"):
        esc.apply(after, 0, Move("1c"))


def test_a_tie_at_the_top_plays_another_hand():
    _, points = finishing_hand((0, 0))
    state, _ = finishing_hand((22 - points[0], 22 - points[1]))
    after = play(state, "l:1c")
    assert not esc.is_over(after)
    assert after.scores == (22, 22) and after.hand == 2 and after.dealer == 0
    assert sorted(esc.all_cards(after)) == sorted(esc.DECK)


def test_below_the_target_the_next_hand_is_dealt():
    state, points = finishing_hand((0, 0))
    after = play(state, "l:1c")
    assert not esc.is_over(after) and after.scores == tuple(points)
    assert after.hand == 2 and esc.view(after, 0)["last_hand"]["hand"] == 1


@pytest.mark.parametrize(
    ("players", "options", "target"),
    [(2, {}, 21), (3, {}, 31), (4, {}, 31), (4, {"pairs": True}, 21), (3, {"target": 15}, 15)],
)
def test_the_target_defaults_by_player_count(players, options, target):
    state = esc.new_game(players, options)
    assert state.target == target == esc.view(state, 0)["target"]


@pytest.mark.parametrize(
    ("players", "options", "message"),
    [
        (2, {"capture_rule": "sometimes"}, "Capture rule"),
        (2, {"opening_escoba": "everyone"}, "Opening escoba"),
        (2, {"tie_points": "half"}, "Ties for most"),
        (2, {"target": -1}, "Target: must be at least 0"),
        (2, {"target": "21"}, "Target: must be a whole number"),
        (2, {"pairs": "yes"}, "Play in pairs: must be yes or no"),
        (3, {"pairs": True}, "pairs needs exactly 4 players, not 3"),
        (2, {"jokers": True}, "Unknown house rule"),
        (5, {}, "2 to 4 players"),
    ],
)
def test_bad_options_are_refused_with_a_clear_message(players, options, message):
    with pytest.raises(InvalidOptions, match=message):
        esc.new_game(players, options)


@pytest.mark.parametrize(
    ("players", "options"),
    [(3, {}), (4, {}), (4, {"pairs": True}), (4, {"pairs": True, "capture_rule": "penalized"})],
)
def test_three_and_four_players_and_pairs_play_whole_games(players, options):
    state = random_playout(players, options, seed=5)
    outcome = esc.outcome(state)
    assert sorted(r["seat"] for r in outcome) == list(range(players))
    best = max(r["score"] for r in outcome)
    assert best >= state.target
    assert [r["seat"] for r in outcome if r["rank"] == 1] == [
        r["seat"] for r in outcome if r["score"] == best
    ]
    if options.get("pairs"):
        assert outcome[0]["score"] == outcome[2]["score"]
        assert outcome[0]["rank"] == outcome[2]["rank"]
        assert len({r["rank"] for r in outcome}) == 2


# --------------------------------------------------------------------------- view and storage


def test_the_view_shows_only_what_a_seat_may_see():
    state = esc.new_game(3, {"opening_escoba": "none"}, seed=1)
    view = esc.view(state, 1)
    text = json.dumps(view)
    assert view["hand"] == list(state.hands[1])
    for other in (0, 2):
        for card in state.hands[other]:
            assert f'"{card}"' not in text
    for card in state.deck:
        assert f'"{card}"' not in text
    assert "seed" not in text
    assert view["hand_sizes"] == [3, 3, 3] and view["deck_size"] == 27
    assert view["mano"] == (state.dealer + 1) % 3 and view["to_move"] == [view["mano"]]
    assert esc.view(state, None)["hand"] is None


def test_the_view_gives_pile_statistics_per_side():
    state = position(
        hands=[("5o", "1c"), ("1b", "2b")],
        table=("9e",),
        piles=[("7o", "8o", "7c", "10e"), ("3b", "2e", "10b")],
        escobas=(1, 0),
        scores=(4, 9),
    )
    sides = esc.view(state, 0)["sides"]
    assert sides[0] | {"pile": None} == {
        "side": 0,
        "seats": [0],
        "pile": None,
        "cards": 4,
        "oros": 2,
        "sevens": 2,
        "siete_de_oros": True,
        "escobas": 1,
        "score": 4,
    }
    assert (sides[1]["cards"], sides[1]["siete_de_oros"], sides[1]["score"]) == (3, False, 9)


def test_last_moves_keep_the_ten_most_recent():
    state = random_playout(2, None, seed=3)
    moves = esc.view(state, 0)["last_moves"]
    assert len(moves) == esc.LAST_MOVES and moves[-1]["kind"] == "last_take"


def test_dump_and_load_round_trip_through_json():
    def check(before, after):
        data = esc.dump(after)
        assert json.loads(json.dumps(data)) == data
        assert esc.load(data) == after and esc.dump(esc.load(data)) == data

    random_playout(2, {"capture_rule": "penalized"}, seed=8, on_step=check)


def test_a_spectator_view_can_be_sampled_too():
    state = esc.new_game(4, {"pairs": True}, seed=6)
    seen = esc.view(state, None)
    sampled = esc.sample_state(seen, random.Random(2))
    assert esc.view(sampled, None) == seen
    assert Counter(esc.all_cards(sampled)) == Counter(esc.DECK)


@pytest.mark.parametrize("rule", esc.CAPTURE_RULES)
def test_sampled_states_agree_with_the_view_under_every_capture_rule(rule):
    state = esc.new_game(4, {"capture_rule": rule, "pairs": True}, seed=12)
    rng = random.Random(4)
    for _ in range(60):
        seat = state.turn
        seen = esc.view(state, seat)
        sampled = esc.sample_state(seen, random.Random(7))
        assert esc.view(sampled, seat) == seen
        assert esc.legal_moves(sampled, seat) == esc.legal_moves(state, seat)
        state = esc.apply(state, seat, rng.choice(esc.legal_moves(state, seat)))


# --------------------------------------------------------------------------- properties

option_sets = st.fixed_dictionaries(
    {
        "capture_rule": st.sampled_from(esc.CAPTURE_RULES),
        "opening_escoba": st.sampled_from(esc.OPENING_MODES),
        "tie_points": st.sampled_from(esc.TIE_MODES),
        "target": st.sampled_from([0, 5, 12]),
    }
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    players=st.sampled_from([(2, False), (3, False), (4, False), (4, True)]),
    options=option_sets,
    seed=st.integers(0, 10**6),
)
def test_cards_are_kept_and_points_add_up_in_any_game(players, options, seed):
    count, pairs = players
    options = {**options, "pairs": pairs}
    hands_scored = []

    def check(before, after):
        assert sorted(esc.all_cards(after)) == sorted(esc.DECK)
        assert after.table == table_order(after.table)
        if after.last_hand is not before.last_hand:
            result = after.last_hand
            hands_scored.append(result)
            # The deck sums to 220 = 10 (mod 15): something is always left on the table.
            assert result.taken
            for side, old, new in zip(result.sides, before.scores, result.scores, strict=True):
                assert new - old == side.total
                assert side.total == (
                    side.points_escobas
                    + side.point_siete_de_oros
                    + side.point_sevens
                    + side.point_cards
                    + side.point_oros
                )
            assert sum(s.cards for s in result.sides) == 40
            assert sum(s.point_siete_de_oros for s in result.sides) == 1
            majorities = sum(s.point_sevens + s.point_cards + s.point_oros for s in result.sides)
            assert majorities >= 3 if options["tie_points"] == "each" else majorities <= 3

    final = random_playout(count, options, seed, check)
    assert hands_scored
    assert final.scores == hands_scored[-1].scores
    assert max(final.scores) >= final.target
