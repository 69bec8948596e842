"""A bare model of one Scout round for the hard bot's playouts (``bots.py``).

The engine's ``apply`` checks every move, keeps the public recent-moves list, builds a frozen
``State`` per move and, when a round ends, deals the next one: all of it needed in a match and
none of it in a playout, which only plays the bots' own (legal) choices to the round's end and
reads its points. The profile of a hard move put the engine's share of the search at about
half; this model plays the same rules (``shared/rules/scout.md``, "A turn", "End of a round",
"Two players") on plain lists and stops at the round's end.

Moves are the bots' specs (``bots._move`` documents them): ``("s", start, length)``,
``("c", end, turn, pos)``, ``("x", end, turn, pos, start, length)``, ``("p",)``, ``("k",)``
and ``("r",)``. Nothing is checked: the specs come from the policy, which only lists legal
ones, and ``tests/engines/test_scout_bots.py`` plays this model against the engine.
"""

from __future__ import annotations

from games.scout import engine

_FLIP = tuple((c & 15) << 4 | c >> 4 for c in range(256))


class Round:
    """One round in play: hands as tuples of engine card ints, counts for the rest."""

    __slots__ = (
        "players",
        "hands",
        "active",
        "owner",
        "taken",
        "tokens",
        "chips",
        "turn",
        "deciding",
        "first",
        "ender",
        "over",
        "work",
    )

    @classmethod
    def from_state(cls, state: engine.State) -> Round:
        r = cls()
        r.players = state.players
        r.hands = list(state.hands)
        r.active = state.active
        r.owner = state.owner
        r.taken = [len(t) for t in state.taken]
        r.tokens = list(state.tokens)
        r.chips = list(state.chips)
        r.turn = state.turn
        r.deciding = [] if state.phase != engine.DECIDE else [not d for d in state.decided]
        r.first = state.first
        r.ender = None
        r.over = state.phase == engine.OVER
        r.work = 0
        return r

    def copy(self) -> Round:
        r = Round()
        r.players = self.players
        r.hands = self.hands[:]
        r.active = self.active
        r.owner = self.owner
        r.taken = self.taken[:]
        r.tokens = self.tokens[:]
        r.chips = self.chips[:]
        r.turn = self.turn
        r.deciding = self.deciding[:]
        r.first = self.first
        r.ender = self.ender
        r.over = self.over
        r.work = 0
        return r

    def decide(self, seat: int, rotate: bool) -> None:
        """Rules, "Hand decision": play starts with the round's first player once all decided."""
        if rotate:
            self.hands[seat] = tuple(_FLIP[c] for c in reversed(self.hands[seat]))
        self.deciding[seat] = False
        if not any(self.deciding):
            self.deciding = []
            self.turn = self.first

    def play(self, seat: int, spec: tuple) -> None:
        """The move ``spec`` of ``seat`` (the seat on turn; see the module docstring).

        ``work`` counts one plus the mover's hand size per move: what choosing the move cost
        the policy, which looks at every card of the hand (the bots' budget is in this unit).
        """
        self.work += 1 + len(self.hands[seat])
        kind = spec[0]
        if kind == "k" or kind == "r":
            self.decide(seat, kind == "r")
            return
        if kind == "p":  # 2 players: the round ends, the owner exempt
            self._end(self.owner)
            return
        hand = self.hands[seat]
        active = self.active
        if kind == "s":
            start, length = spec[1], spec[2]
            self._show(seat, hand, start, length, active)
            return
        # A scout, or the scout of a scout & show.
        if spec[1] == "L":
            card, rest = active[0], active[1:]
        else:
            card, rest = active[-1], active[:-1]
        if spec[2]:
            card = _FLIP[card]
        pos = spec[3]
        hand = (*hand[:pos], card, *hand[pos:])
        owner = self.owner
        if self.players == 2:
            self.tokens[seat] -= 1
            self.hands[seat] = hand
            self.active = rest
            return  # still our turn
        self.tokens[owner] += 1
        if kind == "x":
            self.chips[seat] = True
            self._show(seat, hand, spec[4], spec[5], rest)
            return
        self.hands[seat] = hand
        self.active = rest
        turn = (seat + 1) % self.players
        if turn == owner:  # end (b): every other player scouted; a set scouted empty included
            self._end(owner)
            return
        self.turn = turn

    def _show(self, seat: int, hand: tuple, start: int, length: int, beaten: tuple) -> None:
        self.taken[seat] += len(beaten)
        self.active = hand[start : start + length]
        hand = hand[:start] + hand[start + length :]
        self.hands[seat] = hand
        self.owner = seat
        if not hand:  # end (a)
            self._end(seat)
            return
        self.turn = (seat + 1) % self.players

    def _end(self, ender: int | None) -> None:
        self.ender = ender
        self.over = True

    def points(self, exempt: bool = True) -> list[int]:
        """Each seat's points for the round as it stands (rules, "Scoring each round"); with
        ``exempt`` false nobody is spared the hand penalty."""
        ender = self.ender if exempt else None
        return [
            self.taken[i] + self.tokens[i] - (0 if i == ender else len(self.hands[i]))
            for i in range(self.players)
        ]
