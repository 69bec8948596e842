"""Schotten Totten bots (issue 6): ``choose(view, moves, level, rng)``.

Both levels see only the seat's ``view`` and its legal ``moves``; hidden cards (the opponent's
hand and the deck) are never read, only counted: a card that is neither on the table nor in our
hand is *unseen*, and may be in the opponent's hand or still to be drawn.

Claims are never a decision: a claim only ever takes a stone that is already won, and the sooner
a stone is ours the sooner nobody can play on it and the sooner the round may end in our favour.
So both levels claim every claimable stone (one ``c:<stone>`` move at a time) before anything
else, and only end the claim phase (``end``) when nothing is left to claim.

``easy`` scores every play with a static evaluation of the stones (:class:`_Position`):

* each side of each stone gets an *expected strength* on the engine's scale (kind * 32 + sum):
  exact for three cards; for two cards the possible third cards are walked from the strongest
  down, a card in our hand counting as certain and an unseen card as likely with a probability
  that shrinks as the deck runs out (so a suited run waiting for a card that is already on the
  table is worth nothing more than what else can complete it); for one card the best partner in
  hand is looked for the same way;
* a stone's chance of being won is a logistic function of the difference between our expected
  strength and the opponent's, except where it is already decided: a complete side that no
  unseen card can beat (our hand blocks the opponent's completions too) is won for sure, a side
  that nothing we could still get would beat is lost for sure;
* a play is worth the weighted change in those chances (centre stones and stones next to owned
  ones weigh more, because of the three-adjacent-stones win), minus what the card was worth to
  the other stones still waiting for a card of our hand. So cards go where a formation can still
  be completed and where they change a contest; on a stone that is lost (or won) whatever we do
  nothing changes, and the cheapest card is dumped there rather than a high one.

``hard`` is a determinized flat Monte-Carlo search (:func:`_hard`):

* the candidates are the easy level's best few plays (``HARD_CANDIDATES``);
* each iteration deals the hidden cards consistently with the view, weighted by what the
  opponent's plays say of their hand (:func:`_hand_weights`, issue 35): the cards that fit
  their open formations likelier, since one starts a formation holding its partners, and
  the strong completions of a pair they left waiting while they played elsewhere likelier
  still, since one holding the third card is in no hurry to play it (``last_moves`` tells
  which pairs waited). The weights are worked out once per move, not per deal (they were a
  tenth of the search's time). Every candidate is tried in that same deal (common random numbers:
  candidates are compared on equal luck, so their differences are not drowned in the luck of
  the deal);
* a try plays the candidate, then both sides play on with a cheap greedy policy (the easy
  level's idea in a coarser, much faster form, claims made at once) for ``HARD_DEPTH`` turns,
  on :mod:`._bot_sim`'s model of the rules (the engine's own ``apply`` costs too much for
  hundreds of playouts a move). A round that ends there scores 1 or 0; otherwise the position
  is judged: each open stone's win chance from the two sides' expected strengths, and from
  those the chance that the stones fall into three adjacent or five for us rather than for
  them. Short playouts plus that judgement beat playouts to the end of the round, which are
  fewer and mostly noise from the far future;
* the candidate with the best mean wins, the easy level's order breaking ties. The search
  stops after ``HARD_WORK`` simulated turns, so a move is reproducible for a given ``rng`` on
  any machine; the ``HARD_BUDGET`` deadline is only a safety net far above that work's time. A
  single legal play is returned at once.
"""

from __future__ import annotations

import dataclasses
import math
import operator
import random
import time
from typing import Any

from games.bot_search import without_gc
from games.schotten_totten import _bot_sim, engine

LEVELS = ("easy", "hard")

# The hard level's budget per move: the work (simulated turns, a judged position counting as 4)
# after which no new deal is sampled. The work ends the search, so a move depends only on the
# view and the rng, never on the machine's load (issue 18). The deadline in seconds is only a
# safety net, far above the time the work takes on an idle core.
HARD_BUDGET = 5.0
HARD_WORK = 3600
HARD_MAX_WORLDS = 1200
# How much likelier a card that fits one of the opponent's open formations is dealt to their
# hand in a sampled deal than a card that fits none (:func:`_sample`).
FIT_BIAS = 1.0
# How much likelier a strong completion of an opponent's pair is in their hand when they
# played elsewhere while the pair waited (:func:`_hand_weights`); 1 ignores that signal. A
# screen against easy over 100 paired games: 0.3 (the opposite reading) 87, 1 90, 2.5 92 wins;
# over the bench's 200 games 2.5 wins 85.0% [79.4%, 89.3%], 1 won 81.5% on the same seeds.
HELD_BACK = 2.5
# Turns played in each playout before the position is judged.
HARD_DEPTH = 10
# How many of the easy level's best plays the search compares.
HARD_CANDIDATES = 6

_INDEX = _bot_sim.INDEX
_VALUE = _bot_sim.VALUE
# A formation's strength on the engine's scale (kind rank * 32 + sum of the values), and the
# strengths of a pair with every possible third card: shared with the playout model.
_strength = _bot_sim.strength
_row = _bot_sim.row

# The expected strength of a side with no card yet, and of a lone card with no partner in hand,
# are guesses on the scale above: a side usually ends up around a run or a weak colour.
_EMPTY = 40.0
_LONE = 34.0
# The logistic scale of a stone's win chance, in strength points (a kind is 32).
_SCALE = 10.0
# Of the cards we might still get, how many actually reach the side we want them on.
_REACH = 0.5

# How many adjacent triples each stone belongs to (the three-adjacent-stones win).
_TRIPLES = (1, 2, 3, 3, 3, 3, 3, 2, 1)


def _walk(unseen_desc: list[int], certain: int, q: float) -> float:
    """Expected strength of a pair's completion.

    ``unseen_desc`` are the strengths the unseen third cards would give, strongest first;
    ``certain`` the best a card of our hand gives (0 if none). Each unseen card arrives with
    probability ``q``, independently; the side ends with the best card it actually gets, and a
    card in hand always arrives.
    """
    expected = 0.0
    remain = 1.0
    floor = 0
    for strength in unseen_desc:
        if strength <= certain:
            break
        expected += remain * q * strength
        remain *= 1.0 - q
        floor = strength
        if remain < 1e-3:
            return expected
    return expected + remain * (certain or floor)


def _sigmoid(x: float) -> float:
    if x > 40:
        return 1.0
    if x < -40:
        return 0.0
    return 1.0 / (1.0 + math.exp(-x))


class _Position:
    """What ``seat`` knows of a position (from its view), with the easy level's evaluation."""

    def __init__(
        self,
        seat: int,
        hand: list[int],
        sides: list[tuple[list[int], list[int]]],
        owners: list[int | None],
        first: list[int | None],
        deck_size: int,
        opp_hand_size: int,
    ) -> None:
        self.seat = seat
        self.hand = hand
        self.mine = [pair[seat] for pair in sides]
        self.theirs = [pair[1 - seat] for pair in sides]
        self.owners = owners
        self.first = first
        table = set()
        for a, b in sides:
            table.update(a)
            table.update(b)
        self.table = table
        held = set(hand)
        self.unseen = [i for i in range(_bot_sim.N) if i not in table and i not in held]
        self.unseen_mask = sum(1 << i for i in self.unseen)
        # Reads the unseen cards' entries of a pair's row in one call (C speed).
        if len(self.unseen) >= 2:
            self._pick_unseen = operator.itemgetter(*self.unseen)
        else:
            self._pick_unseen = lambda row: [row[c] for c in self.unseen]
        self.hand_mask = sum(1 << i for i in hand)
        unseen_count = max(1, len(self.unseen))
        # Our future cards: about half the deck; theirs: their hand and the other half.
        self.q_me = min(0.9, _REACH * (deck_size + 1) / 2 / unseen_count)
        self.q_op = min(0.9, _REACH * (opp_hand_size + deck_size / 2) / unseen_count)

    @classmethod
    def from_view(cls, view: dict[str, Any]) -> _Position:
        seat = view["seat"]
        sides = [
            ([_INDEX[c] for c in st["cards"][0]], [_INDEX[c] for c in st["cards"][1]])
            for st in view["stones"]
        ]
        return cls(
            seat,
            [_INDEX[c] for c in view["hand"]],
            sides,
            [st["owner"] for st in view["stones"]],
            [st["completed_first"] for st in view["stones"]],
            view["deck_size"],
            view["hand_sizes"][1 - seat],
        )

    # --- expected strengths ---------------------------------------------------------------

    def _pair_value(self, a: int, b: int, hand: list[int], q: float) -> float:
        """Expected strength of a side holding ``a, b``, completed from ``hand`` or unseen."""
        row = _row(a, b)
        unseen_desc = sorted(self._pick_unseen(row), reverse=True)
        certain = max((row[c] for c in hand), default=0)
        return _walk(unseen_desc, certain, q)

    def _lone_partners(self, a: int, hand: list[int]) -> dict[int, float]:
        """A lone card of ours: the value of the pair it would make with each card of ``hand``
        (slightly discounted: the pair still has to be played)."""
        out = {}
        for b in hand:
            rest = [c for c in hand if c != b]
            out[b] = self._pair_value(a, b, rest, self.q_me) * 0.97
        return out

    def _their_value(self, s: int) -> float:
        theirs = self.theirs[s]
        if len(theirs) == 3:
            return float(_strength(*theirs))
        if len(theirs) == 2:
            return self._pair_value(theirs[0], theirs[1], [], self.q_op)
        if len(theirs) == 1:
            return _LONE + _VALUE[theirs[0]] - 5.0
        return _EMPTY

    def _chance(self, s: int, mine: list[int], my_value: float, their_value: float) -> float:
        """The chance of winning stone ``s`` with ``mine`` on our side (valued ``my_value``)."""
        theirs = self.theirs[s]
        if len(mine) == 3:
            if len(theirs) == 3:
                ours = _strength(*mine)
                other = _strength(*theirs)
                if ours != other:
                    return 1.0 if ours > other else 0.0
                # Equal: whoever completed first; if we complete now, they were first.
                return 1.0 if self.first[s] == self.seat else 0.0
            if self._safe(mine, theirs):
                return 1.0
        elif len(theirs) == 3 and self._hopeless(mine, theirs):
            return 0.0
        return _sigmoid((my_value - their_value) / _SCALE)

    def _safe(self, mine: list[int], theirs: list[int]) -> bool:
        """Our complete side cannot be beaten by any completion of theirs from unseen cards
        (the cards of our hand cannot reach them either). Ties are ours: we completed first."""
        return _bot_sim.best_completion(theirs, self.unseen_mask) <= _strength(*mine)

    def _hopeless(self, mine: list[int], theirs: list[int]) -> bool:
        """Nothing we might still get beats their complete side (they completed first)."""
        return _bot_sim.best_completion(mine, self.unseen_mask | self.hand_mask) <= _strength(
            *theirs
        )

    def weight(self, s: int) -> float:
        """How much stone ``s`` matters: centre stones and neighbours of owned stones more."""
        w = 1.0 + 0.1 * _TRIPLES[s]
        for n in (s - 1, s + 1):
            if 0 <= n < 9 and self.owners[n] is not None:
                w += 0.25
        return w

    # --- scoring plays ----------------------------------------------------------------------

    def score_plays(self, plays: list[engine.Play]) -> dict[engine.Play, float]:
        """The easy score of every play: weighted change of the stones' win chances, minus what
        the card was worth to our other waiting sides."""
        hand = self.hand
        q = self.q_me
        open_stones = sorted({p.stone for p in plays})
        their_values = {s: self._their_value(s) for s in open_stones}
        weights = {s: self.weight(s) for s in open_stones}
        chance_now: dict[int, float] = {}
        # Per stone, the value of our side if a given hand card were played elsewhere.
        without: dict[int, dict[int, float]] = {}
        # Per stone with one card of ours, the pair each hand card would make there.
        lone_partners: dict[int, dict[int, float]] = {}
        for s in open_stones:
            mine = self.mine[s]
            if len(mine) == 2:
                row = _row(mine[0], mine[1])
                unseen_desc = sorted(self._pick_unseen(row), reverse=True)
                now = _walk(unseen_desc, max((row[c] for c in hand), default=0), q)
                without[s] = {
                    c: _walk(unseen_desc, max((row[h] for h in hand if h != c), default=0), q)
                    for c in hand
                }
            elif len(mine) == 1:
                partners = self._lone_partners(mine[0], hand)
                lone_partners[s] = partners
                alone = _LONE + _VALUE[mine[0]] - 5.0
                now = max(alone, *partners.values()) if partners else alone
                without[s] = {
                    c: max([alone, *(v for b, v in partners.items() if b != c)]) for c in hand
                }
            else:
                now = _EMPTY
                without[s] = {}
            chance_now[s] = self._chance(s, mine, now, their_values[s])

        # The cost of giving up a card: what each partial side loses without it.
        loss: dict[int, dict[int, float]] = {c: {} for c in hand}
        for s in open_stones:
            for c, value in without[s].items():
                after = self._chance(s, self.mine[s], value, their_values[s])
                loss[c][s] = weights[s] * (chance_now[s] - after)
        cost = {c: sum(loss[c].values()) for c in hand}

        # A card started on an empty stone: its best pair with the rest of the hand.
        pair_cache: dict[tuple[int, int], float] = {}
        lone_start: dict[int, float] = {}
        for c in hand:
            best = _LONE + _VALUE[c] - 5.0
            for b in hand:
                if b == c:
                    continue
                k = (min(b, c), max(b, c))
                if k not in pair_cache:
                    rest = [h for h in hand if h != b and h != c]
                    pair_cache[k] = self._pair_value(b, c, rest, q) * 0.97
                best = max(best, pair_cache[k])
            lone_start[c] = best

        scores: dict[engine.Play, float] = {}
        for play in plays:
            c = _INDEX[play.card]
            s = play.stone
            mine = [*self.mine[s], c]
            if len(mine) == 3:
                value = float(_strength(*mine))
            elif len(mine) == 2:
                value = lone_partners[s][c] / 0.97
            else:
                value = lone_start[c]
            gain = self._chance(s, mine, value, their_values[s]) - chance_now[s]
            # The card's loss is counted for the other stones only.
            elsewhere = cost[c] - loss[c].get(s, 0.0)
            scores[play] = weights[s] * gain - elsewhere - 0.002 * _VALUE[c]
        return scores


def _claim_or_end(moves: list) -> Any | None:
    """A claim if there is one (the lowest stone first), else ``None``."""
    claims = [m for m in moves if isinstance(m, engine.Claim)]
    if claims:
        return min(claims, key=lambda m: m.stone)
    return None


def _easy(view: dict[str, Any], moves: list, rng: random.Random) -> Any:
    """The best play by :meth:`_Position.score_plays`; ``rng`` breaks exact ties."""
    plays = [m for m in moves if isinstance(m, engine.Play)]
    if not plays:
        return moves[0]
    scores = _Position.from_view(view).score_plays(plays)
    best = max(scores.values())
    top = [m for m in plays if scores[m] >= best - 1e-9]
    return top[0] if len(top) == 1 else rng.choice(top)


def choose(view: dict[str, Any], moves: list, level: str = "easy", rng: Any = None) -> Any:
    """One of ``moves`` for the seat of ``view`` at ``level`` (``"easy"`` or ``"hard"``)."""
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}")
    if not moves:
        raise ValueError("choose: no legal moves")
    if rng is None:
        rng = random.Random(0)
    claim = _claim_or_end(moves)
    if claim is not None:
        return claim
    if len(moves) == 1:
        return moves[0]
    if level == "hard":
        with without_gc():
            return _hard(view, moves, rng)
    return _easy(view, moves, rng)


def _hard(view: dict[str, Any], moves: list, rng: random.Random) -> Any:
    """Flat Monte-Carlo over sampled deals among the easy level's best plays (module doc)."""
    plays = [m for m in moves if isinstance(m, engine.Play)]
    if len(plays) <= 1:
        return plays[0] if plays else moves[0]
    deadline = time.perf_counter() + HARD_BUDGET
    scores = _Position.from_view(view).score_plays(plays)
    candidates = sorted(plays, key=lambda m: -scores[m])[:HARD_CANDIDATES]
    seat = view["seat"]
    totals = [0.0] * len(candidates)
    worlds = work = 0
    weights = _hand_weights(view)
    while work < HARD_WORK and worlds < HARD_MAX_WORLDS:
        deal = _bot_sim.Round.from_state(_sample(view, rng, weights))
        values = []
        for move in candidates:
            if time.perf_counter() > deadline:
                break
            trial = deal.copy()
            trial.step(seat, _INDEX[move.card], move.stone)
            value, turns = trial.rollout(seat, HARD_DEPTH)
            values.append(value)
            work += turns + 4
        if len(values) < len(candidates):
            break  # out of time: a deal not tried on every candidate would be unfair to some
        totals = [t + v for t, v in zip(totals, values, strict=True)]
        worlds += 1
    # The best total; among equals the easy level's preference (``candidates`` is in its order).
    best = max(range(len(candidates)), key=lambda i: (totals[i], -i))
    return candidates[best]


def _fit(card: str, side: list[str]) -> float:
    """How well ``card`` goes with the cards of an open side: 1 for a suited run still
    possible, 0.75 for three of a kind, 0.5 for the same colour, 0.25 for a run, else 0."""
    colour, value = card[0], int(card[1:])
    values = [int(c[1:]) for c in side]
    suited = all(c[0] == colour for c in side)
    span = max(*values, value) - min(*values, value)
    run = span <= 2 and value not in values
    if suited and run:
        return 1.0
    if all(v == value for v in values):
        return 0.75
    if suited:
        return 0.5
    return 0.25 if run else 0.0


def _waited(view: dict[str, Any], other: int, side: list[str]) -> bool:
    """Did the opponent play elsewhere while ``side`` (a pair of theirs) waited for its third
    card? ``last_moves`` holds the last few plays: the pair's second card is found there (or
    is older than all of them), and a later play of theirs is looked for."""
    plays = [m for m in view.get("last_moves", ()) if m.get("kind") == "play"]
    theirs = [i for i, m in enumerate(plays) if m["seat"] == other]
    if not theirs:
        return False
    placed = next((i for i, m in enumerate(plays) if m["card"] == side[-1]), -1)
    return theirs[-1] > placed


def _hand_weights(view: dict[str, Any]) -> dict[str, float] | None:
    """Each unseen card's weight of being in the opponent's hand, from what their plays say
    (``None`` when they say nothing).

    * A player starts or extends a formation on a stone mostly when their hand holds cards
      that can complete it (the easy level does so by design, and so do people): a card that
      fits an open side of theirs gets ``1 + FIT_BIAS * fit`` (its best :func:`_fit`).
    * A pair of theirs that waited while they played elsewhere says more: its strong
      completions (suited run, three of a kind) get ``HELD_BACK`` times more. A player holding
      the third card can finish the stone any time, so there is no hurry and the card is kept
      back (the easy level counts a card in hand as a sure completion, so finishing gains it
      little; people keep it back so as not to show the formation). One could read it the
      other way (holding it they would have finished), but on paired games against easy that
      reading lost games and this one won some (``HELD_BACK``'s comment).
    """
    other = 1 - view["seat"]
    sides = []
    doubted = []
    for st in view["stones"]:
        side = st["cards"][other]
        if st["owner"] is None and 0 < len(side) < engine.SIDE_SIZE:
            sides.append(side)
            if len(side) == 2 and _waited(view, other, side):
                doubted.append(side)
    if not sides:
        return None
    visible = set(view["hand"])
    for st in view["stones"]:
        for cards in st["cards"]:
            visible.update(cards)
    weights = {}
    for card in engine.DECK:
        if card in visible:
            continue
        weight = 1.0 + FIT_BIAS * max(_fit(card, side) for side in sides)
        if any(_fit(card, side) >= 0.75 for side in doubted):
            weight *= HELD_BACK
        weights[card] = weight
    return weights


def _sample(
    view: dict[str, Any], rng: random.Random, weights: dict[str, float] | None = None
) -> engine.State:
    """A deal of the hidden cards that respects what the opponent's plays say of their hand.

    Each unseen card is dealt to their hand with its :func:`_hand_weights` weight (computed
    once per move and passed in by the search), without replacement (keys
    ``u ** (1 / weight)``, the largest win); the rest is the deck, in random order. Every card
    still goes somewhere it may be, so the deal stays consistent with the view.
    """
    deal = engine.sample_state(view, rng)
    other = 1 - view["seat"]
    if weights is None:
        weights = _hand_weights(view)
    if weights is None or not deal.hands[other]:
        return deal
    unseen = [*deal.hands[other], *deal.deck]
    keys = [(rng.random() ** (1.0 / weights[card]), card) for card in unseen]
    keys.sort(reverse=True)
    size = len(deal.hands[other])
    hand = tuple(card for _, card in keys[:size])
    deck = [card for _, card in keys[size:]]
    rng.shuffle(deck)
    hands = (deal.hands[0], hand) if other == 1 else (hand, deal.hands[1])
    return dataclasses.replace(deal, hands=hands, deck=tuple(deck))
