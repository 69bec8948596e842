"""Escoba de 15 bots: an easy heuristic and a hard determinized Monte-Carlo search.

Both levels see only the seat's ``view`` and its legal ``moves`` (issue 6). The cards a seat
cannot see are the deck minus its hand, the table and every side's pile (captures are face up);
the heuristics reason about those *unseen* cards by value, and the search deals them at random
with ``engine.sample_state``.

**Worth of a card.** A hand scores 1 per escoba, 1 for the ``7o``, and 1 each for the most
sevens, cards and oros. A card's worth to whoever takes it is therefore roughly its share of
those points: the ``7o`` is almost a point by itself, a seven is a good part of the sevens
point (4 in the deck), an oro a tenth of the oros point, any card a fortieth of the cards point.
``WORTH`` holds those shares (tuned by the benchmark, not derived exactly).

**Easy** scores every legal move as *what it takes now* minus *what the next player is likely
to take after it*:

- a capture gains the worth of the played card and the taken cards, plus a full point for an
  escoba (emptying the table); a lay gains nothing;
- the next seat (always an opponent: seats alternate sides with pairs) then plays one of the
  cards it holds, which are a random draw from the unseen cards. For each card value the bot
  estimates the chance the opponent holds one, and the best thing such a card could take from
  the table the move leaves (an escoba if the table plus that card make exactly 15). The
  expected best reply is subtracted. This is what makes the bot avoid leaving the table at a
  sum one unseen card turns into an escoba, and avoid laying sevens and oros where they can be
  picked up;
- ``penalized`` rule: laying a card that could capture hands it, with the table cards, to the
  next player at once, so that loss is counted too;
- the very last card of a hand: whatever stays on the table goes to the last capturer, so a
  capture then also gains the rest of the table, and a lay gives it to whoever captured last.

**Hard** is flat Monte-Carlo over determinizations. It deals the unseen cards at random
(``engine.sample_state``), plays each candidate move in that deal, then lets every seat play on
with the easy policy, each seeing only what it could see (:func:`_state_pick`), for a few cards
(``HARD_HORIZON``), and values what it reaches for the bot's side against the others:

- if the hand ended, its points (the bot's side minus the mean of the other sides);
- otherwise the worth of the piles and escobas, plus most of the best capture the seat to move
  holds in that deal (a sweep waiting to happen is as good as made).

Why a short horizon rather than playing to the end of the hand: the rest of a hand swings by
several points on the cards still to come, which drowns differences of a tenth of a point
between moves unless there are thousands of playouts, and the easy policy allows only a few
hundred simulated plies per move (whole-hand playouts with a cheaper policy did not beat easy
either). Four cards (in two-player play: the move, the reply, the bot's next card and the reply
to it) cover what the easy policy cannot see, its own follow-up and the exact reply of a
concrete hand. Measured on duplicate hands against easy at the same cost, four cards gained
about 0.45 points a hand, two or six cards about as much, whole-hand playouts nothing. Near the
hand's end it is the other way round (issue 35): once ``HARD_ENDGAME`` cards or fewer are left
to play (the last deal), a rollout plays them all, as the few unseen cards leave little luck
and the hand's points, the table left to the last capturer included, are then exact.

All candidates share the same sampled deals (common random numbers), so their differences are
not drowned in the luck of the deal. Candidates are the easy policy's best few moves, in its
order, which also breaks ties. The search stops after a fixed amount of simulated play
(``HARD_WORK``, deterministic for a given ``rng``), and plays the candidate with the best mean;
the time deadline (``HARD_DEADLINE``) sits far above that work's time and is only a safety net,
so the bot's strength does not depend on the machine's load.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from games.bot_search import without_gc
from games.escoba import engine

LEVELS = ("easy", "hard")

VALUE = engine.VALUE

# Point shares (see the module docstring). The 7o is also a seven and an oro.
W_CARD = 0.06
W_ORO = 0.12
W_SEVEN = 0.3
W_SIETE_DE_OROS = 1.0
ESCOBA = 1.0
# How much of the next player's expected best reply the easy bot subtracts: less than all of
# it, since the opponent's hand is a guess and the bot's own next turn is not modelled.
REPLY_WEIGHT = 0.8


def _worth(card: str) -> float:
    worth = W_CARD
    if card.endswith("o"):
        worth += W_ORO
    if VALUE[card] == 7:
        worth += W_SEVEN
    if card == engine.SIETE_DE_OROS:
        worth += W_SIETE_DE_OROS
    return worth


WORTH: dict[str, float] = {card: _worth(card) for card in engine.DECK}

# Hard search budget. The work budget (simulated plays) ends the search, so a move depends only
# on the view and the rng, never on how busy the machine is (issue 18). The deadline is only a
# safety net against a pathological position or a machine many times slower than usual: far
# above the ~130 ms (p95) the work takes on an idle core, it never decides a normal move.
HARD_DEADLINE = 5.0  # seconds
HARD_WORK = 6000  # engine.apply calls per move, rollouts included (~170 ms CPU p95)
HARD_CANDIDATES = 6  # the easy policy's best moves that the search compares
HARD_HORIZON = 4  # cards played in a rollout, the candidate included
# Cards left to play in the hand (hands and deck) at or below which a rollout plays the hand
# to its end instead (the last deals: see the module docstring).
HARD_ENDGAME = 8
LEAF_THREAT = 0.7  # share of the best capture the seat to move holds, counted at the leaf


# --------------------------------------------------------------------------- probabilities


@lru_cache(maxsize=4096)
def _holds_chance(count: int, unseen: int, hand: int) -> float:
    """Chance that ``hand`` cards drawn from ``unseen`` include one of ``count`` given cards."""
    if count <= 0 or hand <= 0 or unseen <= 0:
        return 0.0
    if unseen - count < hand:
        return 1.0
    miss = 1.0
    for i in range(hand):
        miss *= (unseen - count - i) / (unseen - i)
    return 1.0 - miss


# --------------------------------------------------------------------------- the easy policy


# Cards as bits of an int, so that a table is a cheap, hashable cache key.
_BIT: dict[str, int] = {card: 1 << i for i, card in enumerate(engine.DECK)}


def _mask(cards: Sequence[str]) -> int:
    mask = 0
    for card in cards:
        mask |= _BIT[card]
    return mask


@lru_cache(maxsize=65536)
def _reply_table(mask: int) -> tuple[float, ...]:
    """``best[need]``: the most worth one card can take with ``need`` (1-14) from the table
    ``mask``.

    Enumerates the sets of table cards adding up to at most 14 (few: table cards average 5.5)
    with their worth; a set that takes the whole table is an escoba and gains a point more.
    Cached on the table: a search meets the same tables over and over.
    """
    table = [card for card in engine.DECK if mask & _BIT[card]]
    best = [0.0] * 15
    size = len(table)
    combos: list[tuple[int, float, int]] = [(0, 0.0, 0)]
    for card in table:
        value = VALUE[card]
        worth = WORTH[card]
        combos += [(s + value, w + worth, n + 1) for s, w, n in combos if s + value <= 14]
    for total, worth, count in combos:
        if total:
            if count == size:
                worth += ESCOBA
            if worth > best[total]:
                best[total] = worth
    return tuple(best)


def _expected_reply(mask: int, threats: Sequence[tuple[int, float, float]]) -> float:
    """Expected worth of the next player's best capture on the table ``mask``.

    ``threats`` lists, for each card value the opponent may hold, ``(15 - value, chance it
    holds one, mean worth of such an unseen card)`` (the card it plays goes to its pile too).
    The opponent plays its best card: the values are taken best first and each counts only
    when no better one is held (treating the values as independent, which is close enough).
    """
    if not mask:
        return 0.0
    best = _reply_table(mask)
    gains = []
    for need, chance, card_worth in threats:
        take = best[need]
        if take:
            gains.append((take + card_worth, chance))
    if not gains:
        return 0.0
    gains.sort(reverse=True)
    expected = 0.0
    none_better = 1.0
    for gain, chance in gains:
        expected += gain * chance * none_better
        none_better *= 1.0 - chance
    return expected


def _mask_worth(mask: int) -> float:
    return sum(WORTH[card] for card in engine.DECK if mask & _BIT[card])


def _penalty_take(card: str, table: Sequence[str]) -> tuple[str, ...] | None:
    """The cards a ``penalized`` lay of ``card`` hands over (the engine's choice), or None."""
    options = engine.capture_options(card, table)
    if not options:
        return None
    return max(options, key=lambda take: (len(take), sum(WORTH[c] for c in take)))


def _easy_scores(
    moves: Sequence[engine.Move],
    table: Sequence[str],
    unseen: Sequence[str],
    next_hand: int,
    rule: str,
    last_play: bool,
    i_captured_last: bool,
) -> list[float]:
    """The easy policy's score of every move (see the module docstring)."""
    counts = [0] * 11
    worth_sum = [0.0] * 11
    for card in unseen:
        value = VALUE[card]
        counts[value] += 1
        worth_sum[value] += WORTH[card]
    n_unseen = len(unseen)
    threats = [
        (15 - v, _holds_chance(counts[v], n_unseen, next_hand), worth_sum[v] / counts[v])
        for v in range(1, 11)
        if counts[v]
    ]
    table_mask = _mask(table)

    scores = []
    for move in moves:
        card = move.card
        if move.take:
            gain = WORTH[card]
            for taken in move.take:
                gain += WORTH[taken]
            left = table_mask & ~_mask(move.take)
            if not left:
                gain += ESCOBA
            if last_play:
                # The rest of the table comes to this seat: it captured last.
                gain += _mask_worth(left)
                scores.append(gain)
                continue
        else:
            gain = 0.0
            left = table_mask | _BIT[card]
            if rule == "penalized":
                handed = _penalty_take(card, table)
                if handed is not None:
                    gain -= WORTH[card] + sum(WORTH[c] for c in handed)
                    left = table_mask & ~_mask(handed)
            if last_play:
                rest = _mask_worth(left)
                gain += rest if i_captured_last else -rest
                scores.append(gain)
                continue
        gain -= REPLY_WEIGHT * _expected_reply(left, threats)
        scores.append(gain)
    return scores


def _context(view: dict[str, Any]) -> tuple[list[str], int, bool, bool]:
    """From a view: the unseen cards, the next player's hand size, and the end-of-hand flags."""
    seat = view["seat"]
    known = set(view["hand"]).union(view["table"])
    for side in view["sides"]:
        known.update(side["pile"])
    unseen = [card for card in engine.DECK if card not in known]
    sizes = view["hand_sizes"]
    players = view["players"]
    next_hand = sizes[(seat + 1) % players]
    last_play = False
    if next_hand == 0:
        # This seat plays the round's last card: a new round is dealt, or the hand ends.
        if view["deck_size"]:
            next_hand = engine.HAND_SIZE
        else:
            last_play = sizes[seat] == 1
    last = view["last_capturer"]
    side_of = view["side_of"]
    i_captured_last = last is not None and side_of[last] == side_of[seat]
    return unseen, next_hand, last_play, i_captured_last


def _easy_ranked(view: dict[str, Any], moves: Sequence[engine.Move]) -> list[int]:
    """Indices of ``moves`` from the easy policy's best to worst (stable among equals)."""
    unseen, next_hand, last_play, i_captured_last = _context(view)
    scores = _easy_scores(
        moves,
        view["table"],
        unseen,
        next_hand,
        view["options"]["capture_rule"],
        last_play,
        i_captured_last,
    )
    return sorted(range(len(moves)), key=lambda i: -scores[i])


# --------------------------------------------------------------------------- playouts


def _side(state: engine.State, seat: int) -> int:
    return seat % 2 if state.rules.pairs else seat


def _state_pick(state: engine.State, seat: int, moves: Sequence[engine.Move]) -> engine.Move:
    """The easy policy for ``seat`` of a sampled state, seeing only what that seat could see.

    Its unseen cards are the other hands and the deck, exactly the cards a view would not show
    it, so a simulated player plays as the easy bot would without knowing the sampled deal.
    """
    players = state.players
    hands = state.hands
    unseen = list(state.deck)
    for other in range(players):
        if other != seat:
            unseen += hands[other]
    next_hand = len(hands[(seat + 1) % players])
    last_play = False
    if next_hand == 0:
        if state.deck:
            next_hand = engine.HAND_SIZE
        else:
            last_play = len(hands[seat]) == 1
    last = state.last_capturer
    i_captured_last = last is not None and _side(state, last) == _side(state, seat)
    scores = _easy_scores(
        moves,
        state.table,
        unseen,
        next_hand,
        state.rules.capture_rule,
        last_play,
        i_captured_last,
    )
    best = 0
    for i in range(1, len(moves)):
        if scores[i] > scores[best]:
            best = i
    return moves[best]


def _material(state: engine.State, side: int) -> float:
    """A hand in progress, valued for ``side``: the worth of the piles and the escobas (its
    own minus the mean of the other sides'), plus what the seat to move can take at once."""
    values = [
        sum(WORTH[c] for c in pile) + ESCOBA * escobas
        for pile, escobas in zip(state.piles, state.escobas, strict=True)
    ]
    mine = values[side]
    others = [v for i, v in enumerate(values) if i != side]
    margin = mine - sum(others) / len(others)
    table = state.table
    if table and state.turn >= 0:
        # The seat to move holds known cards in this deal: its best capture is as good as made.
        best = _reply_table(_mask(table))
        threat = 0.0
        for card in state.hands[state.turn]:
            need = 15 - VALUE[card]
            if need <= 14 and best[need]:
                threat = max(threat, best[need] + WORTH[card])
        if _side(state, state.turn) == side:
            margin += LEAF_THREAT * threat
        else:
            margin -= LEAF_THREAT * threat
    return margin


def _hand_margin(result: engine.HandResult | None, side: int) -> float:
    """The points of a finished hand: the bot's side's minus the mean of the other sides'."""
    if result is None:  # pragma: no cover - a finished hand always has a result
        return 0.0
    totals = [s.total for s in result.sides]
    others = [t for i, t in enumerate(totals) if i != side]
    return totals[side] - sum(others) / len(others)


def _rollout(state: engine.State, side: int, plies: int, work: list[int]) -> float:
    """Play ``plies`` more cards with the easy policy (or to the hand's end) and value it."""
    number = state.hand
    apply = engine.apply
    legal = engine.legal_moves
    for _ in range(plies):
        if state.turn < 0 or state.hand != number:
            break
        seat = state.turn
        moves = legal(state, seat)
        move = moves[0] if len(moves) == 1 else _state_pick(state, seat, moves)
        state = apply(state, seat, move)
        work[0] += 1
    if state.turn < 0 or state.hand != number:
        return _hand_margin(state.last_hand, side)
    return _material(state, side)


def _hard(
    view: dict[str, Any],
    moves: Sequence[engine.Move],
    rng: random.Random,
    deadline: float,
    max_work: int,
) -> engine.Move:
    """Flat Monte-Carlo over sampled deals among the easy policy's best moves (module doc)."""
    ranked = _easy_ranked(view, moves)
    candidates = [moves[i] for i in ranked[:HARD_CANDIDATES]]
    seat = view["seat"]
    my_side = view["side_of"][seat]
    totals = [0.0] * len(candidates)
    left = sum(view["hand_sizes"]) + view["deck_size"]
    horizon = left if left <= HARD_ENDGAME else HARD_HORIZON
    work = [0]
    while work[0] < max_work:
        sample = engine.sample_state(view, rng)
        values = []
        for move in candidates:
            if time.perf_counter() >= deadline:
                break
            after = engine.apply(sample, seat, move)
            work[0] += 1
            values.append(_rollout(after, my_side, horizon - 1, work))
        else:
            # Only whole deals count, so that every candidate is judged on the same deals.
            for i, value in enumerate(values):
                totals[i] += value
            continue
        break
    # The first of equal totals wins: candidates are in the easy order, which breaks ties (and
    # decides alone if the deadline came before a single deal was played out).
    best = 0
    for i in range(1, len(candidates)):
        if totals[i] > totals[best] + 1e-9:
            best = i
    return candidates[best]


# --------------------------------------------------------------------------- entry point


def choose(
    view: dict[str, Any],
    moves: Sequence[engine.Move],
    level: str = "easy",
    rng: random.Random | None = None,
    budget: float | None = None,
    work: int | None = None,
) -> engine.Move:
    """One of ``moves`` for the seat whose ``view`` this is.

    ``budget`` (seconds) and ``work`` (simulated plays) bound the hard search; by default
    :data:`HARD_DEADLINE` and :data:`HARD_WORK`. Deterministic for a given ``rng`` as long as
    the work bound, not the deadline, ends the search.
    """
    if not moves:
        raise ValueError("no legal move to choose from")
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}; expected one of {LEVELS}")
    if len(moves) == 1:
        return moves[0]
    if rng is None:
        rng = random.Random(0)
    if level == "easy":
        return moves[_easy_ranked(view, moves)[0]]
    start = time.perf_counter()
    deadline = start + (HARD_DEADLINE if budget is None else budget)
    with without_gc():
        return _hard(view, moves, rng, deadline, HARD_WORK if work is None else work)
