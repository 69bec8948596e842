"""A fast, approximate Schotten Totten round for the hard bot's playouts.

The engine's :func:`engine.apply` is exact but costs a few hundred microseconds a move (immutable
states, logs, the full claim proof), so a whole playout through it takes 15-30 ms and a search
within 150 ms would see a handful of them. Playouts only need a faithful *model* of the rest of
the round, so :class:`Round` replays the rules on plain mutable lists:

* a play, then (``after_play``) the claims, then the draw; with ``before_play`` the claims come
  first; a pass when no card fits; the automatic award when nobody can play (as the engine);
* every claimable stone is claimed at once. Claims use the engine's strength scale and
  tie-break, and the proof against an incomplete side is the same question the engine asks:
  can any card off the table complete that side into something stronger
  (:func:`best_completion`, checked against brute force in the tests).

The tests also replay whole games through the engine and this model side by side. A round is
seeded from a full engine state (one of :func:`engine.sample_state`'s deals); the real move is
always one of the engine's legal moves, the model only scores it.

The playout policy (:meth:`Round.pick`) is the easy bot's idea made cheap: a side's worth is a
coarse expected strength (:func:`pair_value`: the kinds a pair can still become, by their live
cards), a stone's win chance a logistic of the difference (``SIG``), and a play is worth the
change of that chance minus what the card was worth to our other waiting pairs.
:meth:`Round.evaluate` judges a position where a playout stops (module doc of ``bots``).
"""

from __future__ import annotations

import math

from games.schotten_totten import engine

N = len(engine.DECK)
INDEX = {card: i for i, card in enumerate(engine.DECK)}
VALUE = tuple(i % 9 + 1 for i in range(N))
COLOUR = tuple(i // 9 for i in range(N))
ALL = (1 << N) - 1


def strength(a: int, b: int, c: int) -> int:
    """Kind rank * 32 + sum (straight flush 4, three 3, flush 2, straight 1, sum 0)."""
    va, vb, vc = VALUE[a], VALUE[b], VALUE[c]
    if va > vb:
        va, vb = vb, va
    if vb > vc:
        vb, vc = vc, vb
        if va > vb:
            va, vb = vb, va
    total = va + vb + vc
    suited = COLOUR[a] == COLOUR[b] == COLOUR[c]
    if vb == va + 1 and vc == vb + 1:
        return (128 if suited else 32) + total
    if va == vc:
        return 96 + total
    if suited:
        return 64 + total
    return total


_COLOUR_MASK = tuple(0x1FF << (9 * c) for c in range(6))
_VALUE_MASK = (0,) + tuple(sum(1 << (9 * c + v - 1) for c in range(6)) for v in range(1, 10))


def _top_values(mask: int, count: int) -> int:
    """The sum of the ``count`` highest values among the cards of ``mask`` (0 if too few)."""
    total = 0
    for v in range(9, 0, -1):
        have = (mask & _VALUE_MASK[v]).bit_count()
        if have >= count:
            return total + v * count
        total += v * have
        count -= have
    return -1


def best_completion(side: list[int], free: int) -> int:
    """The strongest formation a side of zero to two cards can still become with the cards of
    ``free`` (a mask), on the strength scale; -1 if it cannot be completed at all.

    Kinds are tried strongest first, each only as far as it can be made, as the claim rule
    needs: "no completion of the opponent's side can beat ours".
    """
    k = len(side)
    if k == 2:
        r = row(side[0], side[1])
        best = -1
        while free:
            low = free & -free
            v = r[low.bit_length() - 1]
            if v > best:
                best = v
            free ^= low
        return best
    if k == 1:
        a = side[0]
        va, ca = VALUE[a], COLOUR[a]
        suit = free & _COLOUR_MASK[ca]
        for low in range(min(va, 7), max(va - 2, 1) - 1, -1):
            need = 0
            for v in range(low, low + 3):
                if v != va:
                    need |= 1 << (9 * ca + v - 1)
            if suit & need == need:
                return 128 + 3 * low + 3
        if (free & _VALUE_MASK[va]).bit_count() >= 2:
            return 96 + 3 * va
        if suit.bit_count() >= 2:
            return 64 + va + _top_values(suit, 2)
        for low in range(min(va, 7), max(va - 2, 1) - 1, -1):
            if all(v == va or free & _VALUE_MASK[v] for v in range(low, low + 3)):
                return 32 + 3 * low + 3
        rest = _top_values(free, 2)
        return -1 if rest < 0 else va + rest
    # An empty side: the best three cards of ``free``.
    for low in range(7, 0, -1):
        for c in range(6):
            run = 0b111 << (9 * c + low - 1)
            if free & run == run:
                return 128 + 3 * low + 3
    for v in range(9, 0, -1):
        if (free & _VALUE_MASK[v]).bit_count() >= 3:
            return 96 + 3 * v
    flush = max((_top_values(free & m, 3) for m in _COLOUR_MASK), default=-1)
    if flush >= 0:
        return 64 + flush
    for low in range(7, 0, -1):
        if all(free & _VALUE_MASK[v] for v in range(low, low + 3)):
            return 32 + 3 * low + 3
    return _top_values(free, 3)


_ROWS: dict[int, bytes] = {}


def row(a: int, b: int) -> bytes:
    """The strength of the pair ``a, b`` with each possible third card (cached per pair)."""
    r = _ROWS.get(a * N + b)
    if r is None:
        r = bytes(strength(a, b, c) if c != a and c != b else 0 for c in range(N))
        _ROWS[a * N + b] = _ROWS[b * N + a] = r
    return r


# Guesses on the strength scale (kind * 32 + sum) of what a lone card and an empty side become,
# and the logistic scale of a stone's win chance; tuned by playing the policy against easy.
LONE_BASE = 30
EMPTY = 36
SIG_SCALE = 32.0


def tables() -> None:
    """(Re)build the lookup tables from the constants above."""
    global LONE, SIG
    LONE = tuple(LONE_BASE + VALUE[c] for c in range(N))
    # Win chance of a stone by strength difference (logistic), offset by 256.
    SIG = tuple(1.0 / (1.0 + math.exp(-(d - 256) / SIG_SCALE)) for d in range(513))


LONE: tuple[int, ...] = ()
SIG: tuple[float, ...] = ()
tables()

# Of the unseen cards, the share that will reach a given side (draws are shared among needs).
REACH = 0.5
_Kinds = tuple[tuple[tuple[int, int], ...], int]


def _kinds(a: int, b: int) -> _Kinds:
    """For the pair ``a, b``: ``((mask, worth), ...), plain`` -- for each kind it can still
    become, strongest first, the mask of the third cards that make it and a typical strength
    of it; ``plain`` a typical plain sum. Kinds no third card makes are left out."""
    r = row(a, b)
    masks = [0] * 5
    for c in range(N):
        if c != a and c != b:
            masks[r[c] >> 5] |= 1 << c
    total = VALUE[a] + VALUE[b]
    run = total + total // 2
    worth = (0, 32 + run, 69 + total, 96 + run, 128 + run)
    kinds = tuple((masks[k], worth[k]) for k in (4, 3, 2, 1) if masks[k])
    return kinds, total + 5


_KINDS: list[_Kinds | None] = [None] * (N * N)


def _outs_table(q: float) -> tuple[float, ...]:
    """The chance of getting at least one of ``n`` wanted cards, each reached with ``q``
    (``q`` rounded to a hundredth, so the tables are shared)."""
    key = min(90, round(q * 100))
    got = _OUTS.get(key)
    if got is None:
        q = key / 100
        got = _OUTS[key] = tuple(1.0 - (1.0 - q) ** n for n in range(N))
    return got


_OUTS: dict[int, tuple[float, ...]] = {}


def _pair_kinds(a: int, b: int) -> _Kinds:
    got = _KINDS[a * N + b]
    if got is None:
        got = _KINDS[a * N + b] = _KINDS[b * N + a] = _kinds(a, b)
    return got


def pair_value(a: int, b: int, held: int, free: int, pq: tuple[float, ...]) -> float:
    """The expected strength of a side holding ``a, b``: the best kind a card of ``held`` (a
    mask) completes for sure, above it each kind by its chance from its live cards (of
    ``free``, the cards off the table), else a plain sum."""
    got = _KINDS[a * N + b]
    if got is None:
        got = _pair_kinds(a, b)
    kinds, plain = got
    value = 0.0
    remain = 1.0
    for mask, worth in kinds:
        if held & mask:
            return value + remain * worth
        n = (free & mask).bit_count()
        if n:
            p = pq[n]
            value += remain * p * worth
            remain *= 1.0 - p
    return value + remain * plain


def _sig(d: float) -> float:
    """A stone's win chance from the difference of the two sides' expected strengths."""
    return SIG[int(d) + 256]


def _outcome(mask: int) -> float:
    """The result of a round in which ``mask`` are our stones and the rest theirs: 1 if only
    we meet a winning condition, 0 if only they do, 0.5 if both (the race decides)."""
    owners = [1 if mask >> s & 1 else 0 for s in range(9)]
    met = []
    for seat in (1, 0):
        five = owners.count(seat) >= 5
        three = any(owners[i] == owners[i + 1] == owners[i + 2] == seat for i in range(7))
        met.append(five or three)
    if met[0] and met[1]:
        return 0.5
    return 1.0 if met[0] else 0.0


OUTCOME = tuple(_outcome(mask) for mask in range(512))


def _chance_to_win(mask: int, probs: list[tuple[int, float]]) -> float:
    """The chance that the open stones (``(bit, our chance)``) fall so that we win, the stones
    of ``mask`` being ours already and the others theirs; stones taken as independent."""
    masks = [mask]
    weights = [1.0]
    for bit, p in probs:
        q = 1.0 - p
        masks += [m | bit for m in masks]
        weights = [w * q for w in weights] + [w * p for w in weights]
    return sum([w * OUTCOME[m] for m, w in zip(masks, weights, strict=True)])


# The price of spending a card, per point of its value (a tie-break between plays).
PENALTY = 0.004
WEIGHT = (1.1, 1.2, 1.3, 1.3, 1.3, 1.3, 1.3, 1.2, 1.1)


class Round:
    """One round in progress, mutable. ``sides[s][seat]`` lists card indices in play order."""

    __slots__ = (
        "after",
        "hands",
        "deck",
        "sides",
        "full",
        "owners",
        "first",
        "table",
        "turn",
        "won",
    )

    def __init__(self) -> None:
        self.after = True
        self.hands: list[list[int]] = [[], []]
        self.deck: list[int] = []
        self.sides: list[list[list[int]]] = []
        # Per stone and seat, the strength of a complete side (-1 while incomplete).
        self.full: list[list[int]] = []
        self.owners: list[int | None] = []
        self.first: list[int | None] = []
        self.table = 0
        self.turn = 0
        self.won: int | None = None

    @classmethod
    def from_state(cls, state: engine.State) -> Round:
        r = cls()
        r.after = state.claim_timing == engine.AFTER_PLAY
        r.hands = [[INDEX[c] for c in h] for h in state.hands]
        r.deck = [INDEX[c] for c in reversed(state.deck)]  # popped from the end
        r.sides = [[[INDEX[c] for c in side] for side in pair] for pair in state.sides]
        r.full = [[strength(*side) if len(side) == 3 else -1 for side in pair] for pair in r.sides]
        r.owners = list(state.owners)
        r.first = list(state.completed_first)
        table = 0
        for pair in r.sides:
            for side in pair:
                for c in side:
                    table |= 1 << c
        r.table = table
        r.turn = state.turn
        r.won = None
        return r

    def copy(self) -> Round:
        r = Round()
        r.after = self.after
        r.hands = [self.hands[0][:], self.hands[1][:]]
        r.deck = self.deck[:]
        r.sides = [[pair[0][:], pair[1][:]] for pair in self.sides]
        r.full = [pair[:] for pair in self.full]
        r.owners = self.owners[:]
        r.first = self.first[:]
        r.table = self.table
        r.turn = self.turn
        r.won = self.won
        return r

    # --- rules ----------------------------------------------------------------------------

    def can_play(self, seat: int) -> bool:
        if not self.hands[seat]:
            return False
        owners, sides = self.owners, self.sides
        return any(owners[s] is None and len(sides[s][seat]) < 3 for s in range(9))

    def play(self, seat: int, card: int, s: int) -> None:
        self.hands[seat].remove(card)
        side = self.sides[s][seat]
        side.append(card)
        self.table |= 1 << card
        if len(side) == 3:
            self.full[s][seat] = strength(side[0], side[1], side[2])
            if self.first[s] is None:
                self.first[s] = seat

    def claimable(self, seat: int, s: int) -> bool:
        """May ``seat`` claim stone ``s`` (it holds three cards there, stone unclaimed)?"""
        theirs = self.sides[s][1 - seat]
        ours = self.full[s][seat]
        if len(theirs) == 3:
            other = self.full[s][1 - seat]
            return ours > other or (ours == other and self.first[s] == seat)
        if len(theirs) == 2:
            r = row(theirs[0], theirs[1])
            free = ALL & ~self.table
            while free:
                low = free & -free
                if r[low.bit_length() - 1] > ours:
                    return False
                free ^= low
            return True
        return best_completion(theirs, ALL & ~self.table) <= ours

    def claim_all(self, seat: int) -> None:
        owners, sides = self.owners, self.sides
        for s in range(9):
            if owners[s] is None and len(sides[s][seat]) == 3 and self.claimable(seat, s):
                owners[s] = seat
                if self._check_win(seat):
                    return

    def _check_win(self, seat: int) -> bool:
        owners = self.owners
        if owners.count(seat) >= 5 or any(
            owners[i] == owners[i + 1] == owners[i + 2] == seat for i in range(7)
        ):
            self.won = seat
            return True
        return False

    def end_turn(self, seat: int) -> None:
        hand = self.hands[seat]
        if self.deck and len(hand) < 6:
            hand.append(self.deck.pop())
        nxt = 1 - seat
        if not self.can_play(nxt) and not self.can_play(seat):
            self._automatic_end()
        else:
            self.turn = nxt

    def _automatic_end(self) -> None:
        owners = self.owners
        for s in range(9):
            if owners[s] is not None:
                continue
            a, b = self.sides[s]
            if len(a) == 3 and len(b) == 3:
                ka, kb = self.full[s]
                owners[s] = 0 if ka > kb or (ka == kb and self.first[s] == 0) else 1
            elif len(a) == 3:
                owners[s] = 0
            elif len(b) == 3:
                owners[s] = 1
        won = engine.winner(owners)
        if won is None:
            won = 0 if owners.count(0) > owners.count(1) else 1
        self.won = won

    def step(self, seat: int, card: int, s: int) -> None:
        """A whole turn of ``seat`` playing ``card`` on ``s`` (``card < 0``: pass)."""
        if not self.after:
            self.claim_all(seat)
            if self.won is not None:
                return
        if card >= 0:
            self.play(seat, card, s)
        if self.after:
            self.claim_all(seat)
            if self.won is not None:
                return
        self.end_turn(seat)

    # --- the cheap playout policy -----------------------------------------------------------

    def pick(self, seat: int) -> tuple[int, int]:
        """A greedy play for ``seat``: the card and stone that most raise the weighted win
        chance of a stone; ``(-1, -1)`` when it must pass.

        Sides are valued as the easy bot does, more coarsely: a pair by the kinds it can still
        become (:func:`pair_value`, dead cards and our hand counted), a lone card or an empty
        side by a fixed guess. For a complete side the third card is looked at only twice per
        stone: the one making the strongest formation and the lowest card (a stone already won
        or lost takes the cheapest card).
        """
        hand = self.hands[seat]
        if not hand:
            return -1, -1
        sides, owners, full = self.sides, self.owners, self.full
        other = 1 - seat
        held = 0
        for c in hand:
            held |= 1 << c
        free = ALL & ~self.table
        unseen = max(1, free.bit_count() - len(hand))
        half = len(self.deck) / 2
        pq_me = _outs_table(REACH * half / unseen)
        pq_op = _outs_table(REACH * (len(self.hands[other]) + half) / unseen)
        free_op = free & ~held
        low = min(hand, key=VALUE.__getitem__)
        kinds_table = _KINDS
        empty_stone = -1
        empty_opp = 999.0
        # First pass: per open stone its opposition, and what each hand card is worth to the
        # pairs of ours waiting for a third card (the cost of spending it elsewhere).
        todo = []
        cost = dict.fromkeys(hand, 0.0)
        for s in range(9):
            if owners[s] is not None:
                continue
            mine = sides[s][seat]
            k = len(mine)
            if k == 3:
                continue
            theirs = sides[s][other]
            kt = len(theirs)
            if kt == 3:
                opp = full[s][other]
            elif kt == 2:
                opp = pair_value(theirs[0], theirs[1], 0, free_op, pq_op)
            elif kt == 1:
                opp = LONE[theirs[0]]
            else:
                opp = EMPTY
            if k == 0:
                # Every empty side is alike but for the opponent: keep the weakest opposition.
                if opp < empty_opp:
                    empty_opp, empty_stone = opp, s
                continue
            if k == 2:
                a, b = mine
                now = pair_value(a, b, held, free, pq_me)
                base = SIG[int(now - opp) + 256]
                r = row(a, b)
                top = max(hand, key=lambda c: r[c] * 16 - VALUE[c])
                if r[top] >= 64:
                    # Only the card(s) that make the side strong are costly to give up.
                    loss = {}
                    for c in hand:
                        if r[c] >= 64:
                            without = pair_value(a, b, held & ~(1 << c), free, pq_me)
                            loss[c] = WEIGHT[s] * (base - SIG[int(without - opp) + 256])
                            cost[c] += loss[c]
                else:
                    loss = {}
                todo.append((s, k, kt, mine, opp, base, top, loss))
            else:
                todo.append((s, k, kt, mine, opp, SIG[int(LONE[mine[0]] - opp) + 256], -1, {}))
        best = -9.0
        pick = (-1, -1)
        for s, k, kt, mine, opp, base, top, loss in todo:
            w = WEIGHT[s]
            if k == 2:
                r = row(mine[0], mine[1])
                tries = {top, low}
                if kt == 3:
                    # Against a complete side: the cheapest card that still wins it.
                    winners = [c for c in hand if r[c] > opp]
                    if winners:
                        tries.add(min(winners, key=VALUE.__getitem__))
                for c in tries:
                    v = r[c]
                    gain = (
                        (1.0 if v > opp else 0.0) if kt == 3 else SIG[int(v - opp) + 256]
                    ) - base
                    score = w * gain - PENALTY * VALUE[c] - cost[c] + loss.get(c, 0.0)
                    if score > best:
                        best, pick = score, (c, s)
            else:
                a = mine[0] * N
                for c in hand:
                    got = kinds_table[a + c]
                    if got is None:
                        got = _pair_kinds(mine[0], c)
                    if not got[0]:
                        # A pair that can only make a plain sum: only worth it as a dump.
                        if c != low:
                            continue
                        v = got[1]
                    else:
                        v = pair_value(mine[0], c, held & ~(1 << c), free, pq_me)
                    score = w * (SIG[int(v - opp) + 256] - base) - PENALTY * VALUE[c] - cost[c]
                    if score > best:
                        best, pick = score, (c, s)
        if empty_stone >= 0:
            w = WEIGHT[empty_stone]
            base = SIG[int(EMPTY - empty_opp) + 256]
            top = max(hand, key=VALUE.__getitem__)
            for c in (top, low) if top != low else (top,):
                score = (
                    w * (SIG[int(LONE[c] - empty_opp) + 256] - base) - PENALTY * VALUE[c] - cost[c]
                )
                if score > best:
                    best, pick = score, (c, empty_stone)
        if pick[0] < 0:
            # Every open stone was skipped as complete on our side: nothing to play.
            return -1, -1
        return pick

    def rollout(self, seat: int, depth: int) -> tuple[float, int]:
        """Play up to ``depth`` turns with :meth:`pick` for both seats, then judge the position.

        Returns ``seat``'s chance of winning the round (1 or 0 if it ended, else
        :meth:`evaluate`) and the number of turns played.
        """
        plies = 0
        while self.won is None and plies < depth:
            mover = self.turn
            card, s = self.pick(mover)
            self.step(mover, card, s)
            plies += 1
        if self.won is not None:
            return (1.0 if self.won == seat else 0.0), plies
        return self.evaluate(seat), plies

    def evaluate(self, seat: int) -> float:
        """``seat``'s chance of winning the round from here, estimated.

        Each open stone gets a win chance from the two sides' expected strengths (each side
        valued with its own hand known, as :meth:`pick` values them); the stones are then taken
        as independent and every way the open ones could fall is weighed against the winning
        conditions (three adjacent or five stones; both at once counts half).
        """
        other = 1 - seat
        free = ALL & ~self.table
        deck = len(self.deck)
        held = [0, 0]
        for p in (0, 1):
            for c in self.hands[p]:
                held[p] |= 1 << c
        pool = max(1, deck)
        pq = _outs_table(REACH * deck / 2 / pool)
        sides, full = self.sides, self.full
        mask = 0
        probs: list[tuple[int, float]] = []
        for s in range(9):
            owner = self.owners[s]
            if owner is not None:
                if owner == seat:
                    mask |= 1 << s
                continue
            values = [0.0, 0.0]
            for p in (0, 1):
                side = sides[s][p]
                k = len(side)
                if k == 3:
                    values[p] = full[s][p]
                elif k == 2:
                    values[p] = pair_value(side[0], side[1], held[p], free & ~held[1 - p], pq)
                elif k == 1:
                    values[p] = LONE[side[0]]
                else:
                    values[p] = EMPTY
            if len(sides[s][seat]) == 3 and len(sides[s][other]) == 3:
                mine, theirs = full[s][seat], full[s][other]
                win = mine > theirs or (mine == theirs and self.first[s] == seat)
                if win:
                    mask |= 1 << s
                continue
            probs.append((1 << s, _sig(values[seat] - values[other])))
        return _chance_to_win(mask, probs)
