"""Scout (Oink Games, 2019) as this club plays it: ``shared/rules/scout.md``, 2 to 5 players.

Cards. A card id is ``a-b`` with ``a < b`` (``DECK``). In a hand, on the table, in moves, views
and the dump a card is written ``up/down`` (``7/3``: the 7 is in play). Inside the engine a card
is the int ``up << 4 | down`` so that the value in play is ``card >> 4``; move generation only
ever looks at those ints, which is what keeps ``legal_moves`` fast.

Move codes:

``k`` / ``r``                keep / rotate the whole hand (the hand decision)
``s:<start>:<length>``       show that window of the hand
``c:<L|R>:<turn>:<pos>``     scout the left/right end of the active set, turned (1) or not (0),
                             inserted before hand position ``pos`` (0..len(hand))
``cs:<L|R>:<turn>:<pos>:<start>:<length>``
                             scout & show: the scout above, then show that window of the hand
                             as it is after the insertion
``p``                        pass (2 players only): the round ends

Decisions where the rules file (and the seed) are silent:

- A set scouted down to nothing keeps its owner (no longer a decision: the rules file says so
  since issue 23, "A turn", Scout): the table is empty, the next player who cannot scout must
  show (any set), and end (b) still counts from the owner's show, so when the last of the others' scouts empties the set the turn comes back to the owner
  and the round ends with the owner as the ender. Before issue 23 such a set lost its owner and
  the round went on; that old rule survives only to replay matches stored before the change
  (see "Rules revisions" below).
- The 2-player pass is offered only while there is an active set: with none, a show of any single
  card is always possible, and the seed's condition is "after a show, the other player could not
  or would not show or scout".
- Scout tokens are unlimited (the box has 23, which a long 5-player round could exhaust).
- ``legal_moves`` lists each distinct outcome once. Two scout & show codes lead to the same
  position whenever the scouted card is shown alone (any insert position) or is inserted just
  after the shown window instead of just before it; the listed (canonical) form is ``pos 0`` for
  the first and "just before" for the second. ``parse_move`` and ``apply`` map the other forms to
  the canonical one, so a UI may build either. A one-card active set has one end: only ``L``.
- The hand decisions are secret: the recent-moves list says that a seat decided, not what.
  A scout shows which card was taken and from which end, not where it went nor which way up.
- Every card taken face down was shown face up on the table first, so the view lists them
  (``taken_cards``): a player with a good memory knows them, and bots should too.
- The cards out of play (``deck`` in the dump) are the removed ones written ``low/high``; in the
  2-player game the 22 cards of round 1 join them when round 2 is dealt from ``set_aside``.
- A round that ends deals the next one at once. Its public summary stays in the state for the
  rest of the game (``round_summaries`` in the view and the dump): who ended it and how, and per
  seat the cards taken, the tokens, the cards left in hand, the exemption, the points and the
  running total. Everything in it was public the moment the round ended (hand sizes, taken
  piles and tokens are in every view), so every seat and spectators see all of it.
- The ways a round ends (``RoundSummary.end``): ``"empty_hand"`` (end (a): a show emptied the
  ender's hand), ``"all_scouted"`` (end (b) with 3-5 players: every other player scouted, so the
  turn came back to the owner of the active set) and ``"pass"`` (end (b) of the 2-player game:
  the player on turn passed). The ender is always the owner of the active set, the one seat
  exempt from the hand penalty, so with end (a) the exemption changes nothing (0 cards).
- At the end of the game the view still hides the other hands (reviewing a finished match with
  open hands is the web layer's business, from the dump).
- A round can still go round in circles (3-5 players): shows onto the empty table take nothing,
  so if every show is scouted away before the turn comes back to its owner, the cards only move
  from hand to hand. With 3 or 5 players: one card shown, the next player scouts it, the one
  after must show one card, and so on, every player showing as many cards as they scout; with 4,
  one- and two-card shows in turn do the same. Nothing in the rules ends that, so the engine
  does not either: any player may break it (a show that beats the card, or two or more cards
  shown onto the empty table), and the bots do (``bots.py``).

Rules revisions. A match's move log must replay to the state it stored, so a rules fix may not
change the meaning of moves already played. The engine-internal option ``LEGACY_MOVES_OPTION``
(not a house rule: not in ``OPTIONS``, never shown) says that the first N moves of the game are
played under the rule before issue 23 (a set scouted away lost its owner); every later move is
played under the rule of the rules file. A data migration sets it to the number of moves already
played on the matches stored before the change whose log needs it; new matches never carry it.
The state counts the old-rule moves still to come (``legacy_moves``); the dump holds it only
while it is not 0, so every state stored before the change loads and dumps unchanged, and a match
in play continues under the corrected rule from its next move.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from games.cards import rng_for, shuffled
from games.engine import (
    IllegalMove,
    Info,
    InvalidMove,
    InvalidOptions,
    Option,
    check_players,
    gettext_noop,
    logged_apply,
    resolve_options,
)

INFO = Info(key="scout", title=gettext_noop("Scout"), min_players=2, max_players=5)
OPTIONS: tuple[Option, ...] = ()

# Engine-internal, not a house rule: how many of the game's first moves follow the round-end
# rule before issue 23 (see "Rules revisions" in the module docstring).
LEGACY_MOVES_OPTION = "_legacy_round_end_moves"

DECIDE, PLAY, OVER = "decide", "play", "over"

# --------------------------------------------------------------------------------------------
# Cards
# --------------------------------------------------------------------------------------------

DECK: tuple[str, ...] = tuple(f"{a}-{b}" for a in range(1, 10) for b in range(a + 1, 11))

_CANON: tuple[int, ...] = tuple(a << 4 | b for a in range(1, 10) for b in range(a + 1, 11))
_STR: list[str] = [""] * 176
_ID: list[str] = [""] * 176
_FLIP: list[int] = [0] * 176
_PARSE: dict[str, int] = {}
for _c in _CANON:
    _a, _b = _c >> 4, _c & 15
    for _up, _down in ((_a, _b), (_b, _a)):
        _card = _up << 4 | _down
        _STR[_card] = f"{_up}/{_down}"
        _ID[_card] = f"{_a}-{_b}"
        _FLIP[_card] = _down << 4 | _up
        _PARSE[_STR[_card]] = _card
del _c, _a, _b, _up, _down, _card

# Set-up by player count (rules, "Set-up by player count").
_REMOVED: dict[int, tuple[int, ...]] = {
    2: (9 << 4 | 10,),
    3: tuple(c for c in _CANON if c & 15 == 10),
    4: (9 << 4 | 10,),
    5: (),
}
_HAND_SIZE = {2: 11, 3: 12, 4: 11, 5: 9}
_SET_ASIDE_2P = 22


def _rounds(players: int) -> int:
    return 2 if players == 2 else players


def _game_cards(players: int) -> list[int]:
    removed = set(_REMOVED[players])
    return [c for c in _CANON if c not in removed]


def _card(text: str) -> int:
    try:
        return _PARSE[text]
    except (KeyError, TypeError):
        raise ValueError(f"not a card: {text!r}") from None


def _strs(cards: tuple[int, ...] | list[int]) -> list[str]:
    return [_STR[c] for c in cards]


def _rotated(hand: tuple[int, ...]) -> tuple[int, ...]:
    """The hand turned 180°: reversed order, every card on its other value."""
    return tuple(_FLIP[c] for c in reversed(hand))


# --------------------------------------------------------------------------------------------
# Rule helpers
# --------------------------------------------------------------------------------------------

# The strength of a set is one int so that "beats" is one comparison: length first, then the
# type (matching over consecutive), then the lowest value. Values are at most 10, so the type
# fits in the hundreds and the length in the thousands. 0 stands for "no active set", -1 for
# "not a set".
_GROUP = 100


def set_strength(values: Sequence[int]) -> int:
    """A set's strength as one int (0: no set shown, -1: not a set); the bots use it too."""
    n = len(values)
    if n == 0:
        return 0
    first = values[0]
    if n == 1:
        return 1000 + first
    step = values[1] - first
    if step not in (-1, 0, 1):
        return -1
    prev = values[1]
    for v in values[2:]:
        if v - prev != step:
            return -1
        prev = v
    if step == 0:
        return n * 1000 + _GROUP + first
    return n * 1000 + min(first, prev)


def set_kind(values: list[int] | tuple[int, ...]) -> str | None:
    """What the shown values of adjacent cards form (rules, "A turn", Show).

    ``"single"`` for one card, ``"group"`` for matching values (all equal), ``"run"`` for
    consecutive values (each step exactly +1, or each exactly -1, in hand order; no wrap from 10
    to 1), ``None`` for anything else (including no cards).
    """
    strength = set_strength(values)
    if strength <= 0:
        return None
    if len(values) == 1:
        return "single"
    return "group" if strength % 1000 >= _GROUP else "run"


def beats(new: list[int] | tuple[int, ...], active: list[int] | tuple[int, ...]) -> bool:
    """Whether ``new`` is a set that may be shown against the active set ``active`` (``[]``: none).

    Rules, "A turn", Show: more cards beat fewer; with as many cards matching beats
    consecutive; with the same number and type the higher lowest value wins. An equal set does
    not beat. With no active set any set may be shown.
    """
    target = set_strength(active)
    if target < 0:
        raise ValueError(f"the active set {list(active)!r} is not a set")
    strength = set_strength(new)
    return strength > 0 and strength > target


def _sets_in(values: list[int], floor: int = 0) -> list[tuple[int, int]]:
    """Every window of ``values`` forming a set stronger than ``floor``: ``(strength, window)``.

    ``window`` is ``start << 6 | length``: a hand never holds more than 45 cards, and the packed
    int is also the key of the move caches. One pass from the right, carrying the length of the
    matching / rising / falling stretch that starts at each position; windows shorter than the
    floor's length are never looked at.
    """
    shortest = max(2, floor // 1000)
    sets: list[tuple[int, int]] = []
    append = sets.append
    same = rise = fall = 1
    nxt = -9  # no value is within 1 of it: the first card from the right starts fresh
    for s in range(len(values) - 1, -1, -1):
        v = values[s]
        if 1000 + v > floor:
            append((1000 + v, s << 6 | 1))
        step = nxt - v
        nxt = v
        # Most neighbours are unrelated, so that case is tested first and costs least.
        if step > 1 or step < -1:
            same = rise = fall = 1
        elif step == 0:
            same += 1
            rise = fall = 1
            if same >= shortest:
                for length in range(shortest, same + 1):
                    strength = length * 1000 + _GROUP + v
                    if strength > floor:
                        append((strength, s << 6 | length))
        elif step == 1:
            rise += 1
            same = fall = 1
            if rise >= shortest:
                for length in range(shortest, rise + 1):
                    strength = length * 1000 + v
                    if strength > floor:
                        append((strength, s << 6 | length))
        else:
            fall += 1
            same = rise = 1
            if fall >= shortest:
                for length in range(shortest, fall + 1):
                    strength = length * 1000 + v - length + 1
                    if strength > floor:
                        append((strength, s << 6 | length))
    return sets


def show_windows(
    hand: list[int] | tuple[int, ...], active: list[int] | tuple[int, ...]
) -> list[tuple[int, int]]:
    """Every ``(start, length)`` of the hand's shown values that may be shown against ``active``.

    Rules, "A turn", Show: a single card or several adjacent cards forming a set, which must
    beat the active set if there is one (see :func:`beats`). Sorted by start, then length.
    """
    target = set_strength(active)
    if target < 0:
        raise ValueError(f"the active set {list(active)!r} is not a set")
    return sorted((window >> 6, window & 63) for _, window in _sets_in(list(hand), max(target, 0)))


def round_points(
    taken: list[int] | tuple[int, ...],
    tokens: list[int] | tuple[int, ...],
    hand_sizes: list[int] | tuple[int, ...],
    ender: int | None,
) -> list[int]:
    """A round's points per seat (rules, "Scoring each round" and "Two players").

    ``taken[i]`` cards taken face down and ``tokens[i]`` scout tokens (received with 3-5
    players, still held with 2) score +1 each; every card left in hand scores -1, except for
    ``ender``, the seat that ended the round (the owner of the active set), or nobody (``None``).
    """
    return [taken[i] + tokens[i] - (0 if i == ender else hand_sizes[i]) for i in range(len(taken))]


# --------------------------------------------------------------------------------------------
# Moves
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Decide:
    """Keep the hand as dealt, or rotate it 180° (rules, "Hand decision")."""

    rotate: bool

    @property
    def code(self) -> str:
        return "r" if self.rotate else "k"


@dataclass(frozen=True, slots=True)
class Show:
    """Show the window ``start``..``start+length-1`` of the hand."""

    start: int
    length: int

    @property
    def code(self) -> str:
        return f"s:{self.start}:{self.length}"


@dataclass(frozen=True, slots=True)
class Scout:
    """Take the card at ``end`` (``"L"``/``"R"``) of the active set, turned or not, into ``pos``."""

    end: str
    turn: bool
    pos: int

    @property
    def code(self) -> str:
        return f"c:{self.end}:{int(self.turn)}:{self.pos}"


@dataclass(frozen=True, slots=True)
class ScoutShow:
    """Scout as :class:`Scout`, then show the window ``start``/``length`` of the new hand."""

    end: str
    turn: bool
    pos: int
    start: int
    length: int

    @property
    def code(self) -> str:
        return f"cs:{self.end}:{int(self.turn)}:{self.pos}:{self.start}:{self.length}"


@dataclass(frozen=True, slots=True)
class Pass:
    """Neither show nor scout: ends the round (2 players only)."""

    @property
    def code(self) -> str:
        return "p"


Move = Decide | Show | Scout | ScoutShow | Pass

KEEP, ROTATE, PASS = Decide(False), Decide(True), Pass()
_ENDS = ("L", "R")

# Moves are values, so the generator hands out shared instances instead of building hundreds
# of frozen dataclasses per call (building one costs more than the rest of the work). Keys pack
# the fields into one int: window = start << 6 | length (a hand holds at most 45 cards).
_SHOW_CACHE: dict[int, Show] = {}
_SCOUT_CACHE: dict[tuple[int, int], tuple[Scout, ...]] = {}
_SCOUT_SHOW_CACHE: dict[int, ScoutShow] = {}
_SPAN_CACHE: dict[tuple[int, int, int], tuple[ScoutShow, ...]] = {}


def _show(window: int) -> Show:
    move = _SHOW_CACHE[window] = Show(window >> 6, window & 63)
    return move


def _scouts(hand_size: int, ends: int) -> tuple[Scout, ...]:
    moves = _SCOUT_CACHE.get((hand_size, ends))
    if moves is None:
        moves = _SCOUT_CACHE[hand_size, ends] = tuple(
            Scout(_ENDS[e], bool(t), p)
            for e in range(ends)
            for t in (0, 1)
            for p in range(hand_size + 1)
        )
    return moves


def _scout_show(key: int) -> ScoutShow:
    """The cached move for ``key`` = end << 19 | turn << 18 | pos << 12 | start << 6 | length."""
    move = _SCOUT_SHOW_CACHE.get(key)
    if move is None:
        move = _SCOUT_SHOW_CACHE[key] = ScoutShow(
            _ENDS[key >> 19], bool(key >> 18 & 1), key >> 12 & 63, key >> 6 & 63, key & 63
        )
    return move


def _span(end_turn: int, window: int, hand_size: int) -> tuple[ScoutShow, ...]:
    """Every listed scout & show that shows ``window`` of the old hand, X inserted outside it.

    Inserted at or before the window's start, X pushes the window one place right; inserted
    just after the window it gives the same position as just before, so that one is left out.
    """
    key = (end_turn, window, hand_size)
    moves = _SPAN_CACHE.get(key)
    if moves is None:
        start, length = window >> 6, window & 63
        base = end_turn << 18
        moves = _SPAN_CACHE[key] = tuple(
            [_scout_show(base | p << 12 | window + 64) for p in range(start + 1)]
            + [
                _scout_show(base | p << 12 | window)
                for p in range(start + length + 1, hand_size + 1)
            ]
        )
    return moves


def _canonical(move: ScoutShow) -> ScoutShow:
    """The listed form of a scout & show (see the module docstring)."""
    if move.length == 1 and move.start == move.pos:
        if move.pos == 0:
            return move
        return ScoutShow(move.end, move.turn, 0, 0, 1)
    if move.start + move.length == move.pos:
        return ScoutShow(move.end, move.turn, move.start, move.start + 1, move.length)
    return move


_NUM = r"(0|[1-9][0-9]?)"
_CODE = re.compile(
    rf"(?P<kind>[krp])|s:(?P<s0>{_NUM}):(?P<s1>{_NUM})"
    rf"|c:(?P<c0>[LR]):(?P<c1>[01]):(?P<c2>{_NUM})"
    rf"|cs:(?P<x0>[LR]):(?P<x1>[01]):(?P<x2>{_NUM}):(?P<x3>{_NUM}):(?P<x4>{_NUM})"
)


def parse_move(code: str) -> Move:
    """The move named by ``code`` (see the module docstring); garbage raises ``InvalidMove``.

    A scout & show in a non-listed but equivalent form comes back in its listed form.
    """
    match = _CODE.fullmatch(code) if isinstance(code, str) else None
    if match is None:
        raise InvalidMove(gettext_noop("%(code)s is not a Scout move."), code=repr(code)[:40])
    g = match.group
    if g("kind"):
        return {"k": KEEP, "r": ROTATE, "p": PASS}[g("kind")]
    if g("s0") is not None:
        if int(g("s1")) < 1:
            raise InvalidMove(gettext_noop("A show needs at least one card."))
        return Show(int(g("s0")), int(g("s1")))
    if g("c0") is not None:
        return Scout(g("c0"), g("c1") == "1", int(g("c2")))
    if int(g("x4")) < 1:
        raise InvalidMove(gettext_noop("A show needs at least one card."))
    return _canonical(ScoutShow(g("x0"), g("x1") == "1", int(g("x2")), int(g("x3")), int(g("x4"))))


# --------------------------------------------------------------------------------------------
# State
# --------------------------------------------------------------------------------------------


class _Entry(NamedTuple):
    """One public line of the recent-moves list (only what every seat saw)."""

    seat: int | None
    kind: str  # decide, show, scout, scout_show, pass, round_end (its summary: RoundSummary)
    round: int
    cards: tuple[int, ...] = ()  # shown cards
    scouted: int | None = None  # the card taken, as it lay on the table
    end: str | None = None  # "left" / "right"
    took: int = 0  # cards taken face down by this show

    def as_dict(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "kind": self.kind,
            "round": self.round,
            "cards": _strs(self.cards),
            "scouted": None if self.scouted is None else _STR[self.scouted],
            "end": self.end,
            "took": self.took,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> _Entry:
        return cls(
            data["seat"],
            data["kind"],
            data["round"],
            tuple(_card(c) for c in data["cards"]),
            None if data["scouted"] is None else _card(data["scouted"]),
            data["end"],
            data["took"],
        )


LAST_MOVES = 10

# How a round ended (rules, "End of a round" and "Two players"); see the module docstring.
END_EMPTY_HAND, END_ALL_SCOUTED, END_PASS = "empty_hand", "all_scouted", "pass"
_END_KINDS = (END_EMPTY_HAND, END_ALL_SCOUTED, END_PASS)


class RoundSummary(NamedTuple):
    """A finished round's public scoring (rules, "End of a round", "Scoring each round").

    Per-seat tuples hold the counts the points were computed from: cards taken face down,
    scout tokens (received with 3-5 players, still held with 2) and cards left in hand; the
    ender (the owner of the active set when the round ended) is exempt from the hand penalty.
    """

    round: int
    end: str  # END_EMPTY_HAND, END_ALL_SCOUTED or END_PASS
    ender: int | None
    taken: tuple[int, ...]
    tokens: tuple[int, ...]
    hand: tuple[int, ...]
    points: tuple[int, ...]
    totals: tuple[int, ...]  # the game totals after this round

    def as_dict(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "end": self.end,
            "ender": self.ender,
            "seats": [
                {
                    "seat": i,
                    "taken": self.taken[i],
                    "tokens": self.tokens[i],
                    "hand": self.hand[i],
                    "exempt": i == self.ender,
                    "points": self.points[i],
                    "total": self.totals[i],
                }
                for i in range(len(self.points))
            ],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RoundSummary:
        if data["end"] not in _END_KINDS:
            raise ValueError(f"not a way to end a round: {data['end']!r}")
        seats = data["seats"]
        return cls(
            data["round"],
            data["end"],
            data["ender"],
            tuple(s["taken"] for s in seats),
            tuple(s["tokens"] for s in seats),
            tuple(s["hand"] for s in seats),
            tuple(s["points"] for s in seats),
            tuple(s["total"] for s in seats),
        )


@dataclass(frozen=True)
class State:
    players: int
    options: tuple[tuple[str, Any], ...]
    seed: int
    round: int  # 1-based
    phase: str  # DECIDE, PLAY or OVER
    first: int  # the round's first player
    turn: int | None  # the seat on turn while playing
    decided: tuple[bool, ...]
    hands: tuple[tuple[int, ...], ...]
    deck: tuple[int, ...]  # out of play
    set_aside: tuple[int, ...]  # 2 players: round 2's cards
    active: tuple[int, ...]
    owner: int | None
    taken: tuple[tuple[int, ...], ...]  # face down, per seat
    tokens: tuple[int, ...]  # received (3-5 players) or held (2 players)
    chips: tuple[bool, ...]  # scout & show chip spent
    scores: tuple[int, ...]  # game totals of the finished rounds
    summaries: tuple[RoundSummary, ...]  # one per finished round, in order
    last_moves: tuple[_Entry, ...]
    # Moves still to be played under the rule before issue 23 (a set scouted away loses its
    # owner); 0 for every game but the replay of a match stored before the change.
    legacy_moves: int = 0


def _deal(players: int, seed: int, rnd: int) -> list[int]:
    """The round's cards in deal order, each turned at random (rules, "Set-up")."""
    order = shuffled(_game_cards(players), seed, "scout-deal", rnd)
    rng = rng_for(seed, "scout-turn", rnd)
    return [_FLIP[c] if rng.random() < 0.5 else c for c in order]


def _start_round(
    players: int,
    options: tuple[tuple[str, Any], ...],
    seed: int,
    rnd: int,
    hands: tuple[tuple[int, ...], ...],
    deck: tuple[int, ...],
    set_aside: tuple[int, ...],
    scores: tuple[int, ...],
    summaries: tuple[RoundSummary, ...],
    last_moves: tuple[_Entry, ...],
) -> State:
    two = players == 2
    return State(
        players=players,
        options=options,
        seed=seed,
        round=rnd,
        phase=DECIDE,
        # Round 1 starts with seat 0 [decision]; the start moves one seat on each round.
        first=(rnd - 1) % players,
        turn=None,
        decided=(False,) * players,
        hands=hands,
        deck=deck,
        set_aside=set_aside,
        active=(),
        owner=None,
        taken=((),) * players,
        tokens=(3 if two else 0,) * players,
        chips=(two,) * players,  # no chip in the 2-player game: count it as spent
        scores=scores,
        summaries=summaries,
        last_moves=last_moves,
    )


def _split(cards: list[int] | tuple[int, ...], players: int, size: int) -> tuple:
    return tuple(tuple(cards[i * size : (i + 1) * size]) for i in range(players))


def new_game(players: int, options: dict | None = None, seed: int = 0) -> State:
    """The first state: round 1 dealt, every seat to make its hand decision (rules, "Set-up")."""
    check_players(INFO, players)
    options = dict(options or {})
    legacy = options.pop(LEGACY_MOVES_OPTION, 0)
    if isinstance(legacy, bool) or not isinstance(legacy, int):
        raise InvalidOptions(
            gettext_noop("%(label)s: must be a whole number."), label=LEGACY_MOVES_OPTION
        )
    if legacy < 0:
        raise InvalidOptions(
            gettext_noop("%(label)s: must be at least %(min)s."), label=LEGACY_MOVES_OPTION, min=0
        )
    opts = tuple(sorted(resolve_options(OPTIONS, options).items()))
    cards = _deal(players, seed, 1)
    size = _HAND_SIZE[players]
    hands = _split(cards, players, size)
    set_aside = tuple(cards[players * size :])
    assert players != 2 or len(set_aside) == _SET_ASIDE_2P
    state = _start_round(
        players,
        opts,
        seed,
        1,
        hands,
        _REMOVED[players],
        set_aside,
        (0,) * players,
        (),
        (),
    )
    return _evolve(state, {"legacy_moves": legacy}) if legacy else state


def to_move(state: State) -> tuple[int, ...]:
    """Seats awaited: every undecided seat during the hand decision, else the seat on turn."""
    if state.phase == PLAY:
        return (state.turn,)
    if state.phase == DECIDE:
        return tuple(i for i, done in enumerate(state.decided) if not done)
    return ()


def is_over(state: State) -> bool:
    """Whether all the rounds have been played (rules, "Scoring each round")."""
    return state.phase == OVER


def outcome(state: State) -> list[dict[str, int]]:
    """Totals and ranks; equal totals share the place (rules, "Scoring each round")."""
    if state.phase != OVER:
        raise ValueError("the game is not over")
    return [
        {"seat": i, "score": s, "rank": 1 + sum(1 for t in state.scores if t > s)}
        for i, s in enumerate(state.scores)
    ]


# --------------------------------------------------------------------------------------------
# Legal moves
# --------------------------------------------------------------------------------------------


def legal_moves(state: State, seat: int) -> list[Move]:
    """Every distinct move of ``seat`` now (rules, "Hand decision", "A turn", "Two players").

    Shows of every window that beats the active set; scouts from each end of the active set,
    either way up, into every position (2 players: only while holding a token); scout & show
    once a round when a show can follow (3-5 players); the pass (2 players, active set present).
    """
    if state.phase == DECIDE:
        if seat in range(state.players) and not state.decided[seat]:
            return [KEEP, ROTATE]
        return []
    if state.phase != PLAY or seat != state.turn:
        return []
    hand = state.hands[seat]
    values = [c >> 4 for c in hand]
    active = state.active
    target = set_strength([c >> 4 for c in active])
    two = state.players == 2
    scout_show = bool(active) and not two and not state.chips[seat]
    get = _SHOW_CACHE.get
    if scout_show:
        # A scout & show is measured against the active set less one card: look lower.
        sets = _sets_in(values, (len(active) - 1) * 1000)
        moves: list[Move] = [get(w) or _show(w) for strength, w in sets if strength > target]
    else:
        moves = [get(w) or _show(w) for _, w in _sets_in(values, target)]
    if not active:
        return moves
    ends = 1 if len(active) == 1 else 2
    if not two or state.tokens[seat] > 0:
        moves.extend(_scouts(len(hand), ends))
    if two:
        moves.append(PASS)
    elif scout_show:
        _add_scout_shows(moves, values, sets, active, ends)
    return moves


def stretches(values: Sequence[int]) -> tuple[list[int], ...]:
    """Lengths of the matching / rising / falling runs of values starting at each position
    (``same``, ``rise``, ``fall``) and ending at it (``same_end``, ``rise_end``, ``fall_end``)."""
    n = len(values)
    same, rise, fall = [1] * n, [1] * n, [1] * n
    same_end, rise_end, fall_end = [1] * n, [1] * n, [1] * n
    for i in range(n - 2, -1, -1):
        step = values[i + 1] - values[i]
        if step == 0:
            same[i] = same[i + 1] + 1
        elif step == 1:
            rise[i] = rise[i + 1] + 1
        elif step == -1:
            fall[i] = fall[i + 1] + 1
    for i in range(1, n):
        step = values[i] - values[i - 1]
        if step == 0:
            same_end[i] = same_end[i - 1] + 1
        elif step == 1:
            rise_end[i] = rise_end[i - 1] + 1
        elif step == -1:
            fall_end[i] = fall_end[i - 1] + 1
    return same, rise, fall, same_end, rise_end, fall_end


def _add_scout_shows(
    moves: list[Move],
    values: list[int],
    sets: list[tuple[int, int]],
    active: tuple[int, ...],
    ends: int,
) -> None:
    """Append every listed scout & show (rules, "Scout & Show").

    After inserting card X at position p, a show is either a window of the old hand that beats
    what is left of the active set and is not cut by p (see :func:`_span`), or a set through X:
    X with the matching / rising / falling stretches of the old hand on either side of p. Only
    positions next to a value within 1 of X can give the latter, so no hand is ever rebuilt.
    """
    n = len(values)
    same, rise, fall, same_end, rise_end, fall_end = stretches(values)
    out = moves.append
    extend = moves.extend
    for e in range(ends):
        card = active[-1] if e else active[0]
        rest = active[:-1] if e else active[1:]
        target = set_strength([c >> 4 for c in rest])
        least = target // 1000  # a show shorter than what is left cannot beat it
        windows = [w for strength, w in sets if strength > target]
        for t in (0, 1):
            end_turn = e << 1 | t
            base = end_turn << 18
            x = (_FLIP[card] if t else card) >> 4
            if 1000 + x > target:  # X shown alone: the same from any position, listed at 0
                out(_scout_show(base | 1))
            near = {p for k, v in enumerate(values) if -1 <= v - x <= 1 for p in (k, k + 1)}
            for p in sorted(near):
                left = values[p - 1] if p else -9
                right = values[p] if p < n else -9
                for kind in (0, 1, 2):
                    if kind == 0:
                        a = same_end[p - 1] if left == x else 0
                        b = same[p] if right == x else 0
                    elif kind == 1:
                        a = rise_end[p - 1] if left == x - 1 else 0
                        b = rise[p] if right == x + 1 else 0
                    else:
                        a = fall_end[p - 1] if left == x + 1 else 0
                        b = fall[p] if right == x - 1 else 0
                    if not (a or b) or a + b + 1 < least:
                        continue
                    for i in range(a + 1):
                        for j in range(b + 1):
                            if not (i or j):
                                continue
                            length = i + j + 1
                            if kind == 0:
                                strength = length * 1000 + _GROUP + x
                            elif kind == 1:
                                strength = length * 1000 + x - i
                            else:
                                strength = length * 1000 + x - j
                            if strength > target:
                                out(_scout_show(base | p << 12 | (p - i) << 6 | length))
            for w in windows:
                extend(_span(end_turn, w, n))


# --------------------------------------------------------------------------------------------
# Apply
# --------------------------------------------------------------------------------------------


def _push(last_moves: tuple[_Entry, ...], entry: _Entry) -> tuple[_Entry, ...]:
    return (
        (*last_moves[1 - LAST_MOVES :], entry)
        if len(last_moves) >= LAST_MOVES
        else (*last_moves, entry)
    )


def _set_at(items: tuple, index: int, value: Any) -> tuple:
    return (*items[:index], value, *items[index + 1 :])


def apply(state: State, seat: int, move: Move) -> State:
    """The state after ``seat`` plays ``move``; an illegal move raises ``IllegalMove``.

    Rules: "Hand decision", "A turn", "End of a round", "Scoring each round", "Two players".
    """
    if state.phase == OVER:
        raise IllegalMove(gettext_noop("The game is over."))
    if seat not in range(state.players):
        raise IllegalMove(gettext_noop("There is no seat %(seat)s."), seat=str(seat)[:10])
    if isinstance(move, Decide):
        return _counted(state, _decide(state, seat, move))
    if state.phase == DECIDE:
        raise IllegalMove(
            gettext_noop("Every player first decides whether to keep or rotate their hand.")
        )
    if seat != state.turn:
        raise IllegalMove(gettext_noop("It is not seat %(seat)s's turn."), seat=seat)
    play = _PLAYS.get(type(move))
    if play is None:
        raise IllegalMove(gettext_noop("That is not a Scout move."))
    return _counted(state, play(state, seat, move))


def _counted(before: State, after: State) -> State:
    """``after``, one old-rule move fewer to come if ``before`` still had some (rules revisions)."""
    if before.legacy_moves:
        return _evolve(after, {"legacy_moves": before.legacy_moves - 1})
    return after


def _decide(state: State, seat: int, move: Decide) -> State:
    """Rules, "Hand decision": keep, or reverse the order and turn every card."""
    if state.phase != DECIDE:
        raise IllegalMove(gettext_noop("Hands are kept or rotated only before the first turn."))
    if state.decided[seat]:
        raise IllegalMove(gettext_noop("Seat %(seat)s has already decided."), seat=seat)
    hands = state.hands
    if move.rotate:
        hands = _set_at(hands, seat, _rotated(hands[seat]))
    decided = _set_at(state.decided, seat, True)
    everyone = all(decided)
    return _evolve(
        state,
        {
            "hands": hands,
            "decided": decided,
            "phase": PLAY if everyone else DECIDE,
            "turn": state.first if everyone else None,
            "last_moves": _push(state.last_moves, _Entry(seat, "decide", state.round)),
        },
    )


def _evolve(state: State, changes: dict[str, Any]) -> State:
    """A copy of ``state`` with ``changes``: what ``dataclasses.replace`` does, ten times faster.

    ``State`` is frozen against assignment, but a new instance's ``__dict__`` may be filled
    before anybody sees it; going through ``__init__`` costs more than the rest of a move.
    """
    new = object.__new__(State)
    fields = new.__dict__
    fields.update(state.__dict__)
    fields.update(changes)
    return new


def _check_window(hand_size: int, start: int, length: int) -> None:
    if length < 1 or start < 0 or start + length > hand_size:
        raise IllegalMove(
            gettext_noop("There is no window of %(length)s cards at position %(start)s."),
            start=start,
            length=length,
        )


def _check_beats(shown: tuple[int, ...], active: tuple[int, ...]) -> None:
    strength = set_strength([c >> 4 for c in shown])
    if strength <= 0:
        raise IllegalMove(
            gettext_noop("Those cards are neither matching nor consecutive, so they are no set.")
        )
    if strength <= set_strength([c >> 4 for c in active]):
        raise IllegalMove(gettext_noop("That set does not beat the active set."))


def _play_show(state: State, seat: int, move: Show) -> State:
    """Rules, "A turn", Show; the round ends if the hand is now empty (end (a))."""
    hand = state.hands[seat]
    _check_window(len(hand), move.start, move.length)
    shown = hand[move.start : move.start + move.length]
    _check_beats(shown, state.active)
    new_hand = hand[: move.start] + hand[move.start + move.length :]
    entry = _Entry(seat, "show", state.round, shown, None, None, len(state.active))
    return _after_show(state, seat, new_hand, state.active, shown, state.tokens, state.chips, entry)


def _take_end(state: State, move: Scout | ScoutShow) -> tuple[int, tuple[int, ...]]:
    active = state.active
    if not active:
        raise IllegalMove(gettext_noop("There is no active set to scout from."))
    if move.end == "R" and len(active) == 1:
        raise IllegalMove(gettext_noop("The active set has one card: scout it from the left."))
    if move.end == "L":
        return active[0], active[1:]
    if move.end == "R":
        return active[-1], active[:-1]
    raise IllegalMove(gettext_noop("Scout from the left (L) or the right (R) end."))


def _insert(hand: tuple[int, ...], card: int, move: Scout | ScoutShow) -> tuple[int, ...]:
    if not 0 <= move.pos <= len(hand):
        raise IllegalMove(
            gettext_noop("A card can be inserted at positions 0 to %(last)s."), last=len(hand)
        )
    if move.turn:
        card = _FLIP[card]
    return (*hand[: move.pos], card, *hand[move.pos :])


def _play_scout(state: State, seat: int, move: Scout) -> State:
    """Rules, "A turn", Scout; 2 players: pay a token and keep the turn ("Two players").

    With 3-5 players the owner of the active set receives a token, and the round ends when the
    turn comes back to that owner (end (b)), also when the scouts took every card of the set:
    a set scouted down to 0 cards keeps its owner.
    """
    two = state.players == 2
    if two and state.tokens[seat] < 1:
        raise IllegalMove(gettext_noop("You have no scout token left to pay for a scout."))
    card, rest = _take_end(state, move)
    hands = _set_at(state.hands, seat, _insert(state.hands[seat], card, move))
    owner = state.owner
    if two:
        tokens = _set_at(state.tokens, seat, state.tokens[seat] - 1)
    else:
        tokens = _set_at(state.tokens, owner, state.tokens[owner] + 1)
    end = "left" if move.end == "L" else "right"
    last_moves = _push(state.last_moves, _Entry(seat, "scout", state.round, (), card, end))
    if not rest and state.legacy_moves:
        owner = None  # the rule before issue 23, kept only to replay old matches
    turn = seat if two else (seat + 1) % state.players
    if not two and turn == owner:
        return _end_round(
            state, END_ALL_SCOUTED, hands, rest, owner, state.taken, tokens, state.chips, last_moves
        )
    return _evolve(
        state,
        {
            "turn": turn,
            "hands": hands,
            "active": rest,
            "owner": owner,
            "tokens": tokens,
            "last_moves": last_moves,
        },
    )


def _play_scout_show(state: State, seat: int, move: ScoutShow) -> State:
    """Rules, "A turn", Scout & Show: once a round, the show must beat what is left."""
    move = _canonical(move)
    if state.players == 2:
        raise IllegalMove(gettext_noop("There is no scout & show in the 2-player game."))
    if state.chips[seat]:
        raise IllegalMove(gettext_noop("Your scout & show chip is already spent this round."))
    card, rest = _take_end(state, move)
    hand = _insert(state.hands[seat], card, move)
    _check_window(len(hand), move.start, move.length)
    shown = hand[move.start : move.start + move.length]
    _check_beats(shown, rest)
    new_hand = hand[: move.start] + hand[move.start + move.length :]
    owner = state.owner
    tokens = _set_at(state.tokens, owner, state.tokens[owner] + 1)
    entry = _Entry(
        seat,
        "scout_show",
        state.round,
        cards=shown,
        scouted=card,
        end="left" if move.end == "L" else "right",
        took=len(rest),
    )
    chips = _set_at(state.chips, seat, True)
    return _after_show(state, seat, new_hand, rest, shown, tokens, chips, entry)


def _after_show(
    state: State,
    seat: int,
    new_hand: tuple[int, ...],
    beaten: tuple[int, ...],
    shown: tuple[int, ...],
    tokens: tuple[int, ...],
    chips: tuple[bool, ...],
    entry: _Entry,
) -> State:
    hands = _set_at(state.hands, seat, new_hand)
    taken = state.taken
    if beaten:
        taken = _set_at(taken, seat, taken[seat] + beaten)
    last_moves = _push(state.last_moves, entry)
    if not new_hand:  # end (a): the show emptied the hand
        return _end_round(
            state, END_EMPTY_HAND, hands, shown, seat, taken, tokens, chips, last_moves
        )
    turn = (seat + 1) % state.players
    return _evolve(
        state,
        {
            "turn": turn,
            "hands": hands,
            "active": shown,
            "owner": seat,
            "taken": taken,
            "tokens": tokens,
            "chips": chips,
            "last_moves": last_moves,
        },
    )


def _play_pass(state: State, seat: int, move: Pass = PASS) -> State:
    """Rules, "Two players": not showing nor scouting ends the round; the owner is exempt."""
    if state.players != 2:
        raise IllegalMove(gettext_noop("Only the 2-player game has a pass."))
    if not state.active:
        raise IllegalMove(gettext_noop("With no active set any card can be shown: show one."))
    last_moves = _push(state.last_moves, _Entry(seat, "pass", state.round))
    return _end_round(
        state,
        END_PASS,
        state.hands,
        state.active,
        state.owner,
        state.taken,
        state.tokens,
        state.chips,
        last_moves,
    )


_PLAYS = {Show: _play_show, Scout: _play_scout, ScoutShow: _play_scout_show, Pass: _play_pass}


def _end_round(
    state: State,
    end: str,
    hands: tuple[tuple[int, ...], ...],
    active: tuple[int, ...],
    ender: int | None,
    taken: tuple[tuple[int, ...], ...],
    tokens: tuple[int, ...],
    chips: tuple[bool, ...],
    last_moves: tuple[_Entry, ...],
) -> State:
    """Score the round (rules, "Scoring each round"), keep its summary, and deal the next round
    or end the game. ``end`` says how the round ended (``END_*``), ``ender`` who ended it."""
    n = state.players
    taken_counts = tuple(len(t) for t in taken)
    hand_sizes = tuple(len(h) for h in hands)
    points = tuple(round_points(taken_counts, tokens, hand_sizes, ender))
    scores = tuple(s + p for s, p in zip(state.scores, points, strict=True))
    summary = RoundSummary(
        state.round, end, ender, taken_counts, tokens, hand_sizes, points, scores
    )
    summaries = (*state.summaries, summary)
    last_moves = _push(last_moves, _Entry(ender, "round_end", state.round))
    if state.round == _rounds(n):
        return _evolve(
            state,
            {
                "phase": OVER,
                "turn": None,
                "hands": hands,
                "active": active,
                "owner": ender,
                "taken": taken,
                "tokens": tokens,
                "chips": chips,
                "scores": scores,
                "summaries": summaries,
                "last_moves": last_moves,
            },
        )
    rnd = state.round + 1
    if n == 2:
        # Round 2 is dealt from the 22 cards set aside; round 1's cards leave play.
        used = [c for h in hands for c in h] + list(active) + [c for t in taken for c in t]
        new_hands = _split(state.set_aside, 2, _HAND_SIZE[2])
        deck, set_aside = (*state.deck, *used), ()
    else:
        new_hands = _split(_deal(n, state.seed, rnd), n, _HAND_SIZE[n])
        deck, set_aside = state.deck, ()
    return _start_round(
        n,
        state.options,
        state.seed,
        rnd,
        new_hands,
        deck,
        set_aside,
        scores,
        summaries,
        last_moves,
    )


# --------------------------------------------------------------------------------------------
# View, dump, sampling
# --------------------------------------------------------------------------------------------


def _sort_key(card: int) -> tuple[str, int]:
    return (_ID[card], card)


apply_logged = logged_apply(apply, LAST_MOVES, _Entry.as_dict)


def view(state: State, seat: int | None) -> dict[str, Any]:
    """What ``seat`` may see (rules, "What a player may see"); ``None`` is a spectator.

    Own hand (and, during its hand decision, the hand as it would be rotated); for every seat
    only counts and public facts; never another hand, its order, the deck or the set-aside cards.
    ``round_summaries`` holds every finished round's scoring (:class:`RoundSummary`, as dicts
    with a ``seats`` list); the game totals so far are ``scores``.
    """
    n = state.players
    if seat is not None and (
        isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n
    ):
        raise ValueError(f"no seat {seat!r}")
    hand = None if seat is None else state.hands[seat]
    deciding = state.phase == DECIDE and seat is not None and not state.decided[seat]
    two = n == 2
    return {
        "game": INFO.key,
        "seat": seat,
        "options": dict(state.options),
        "player_count": n,
        "round": state.round,
        "rounds": _rounds(n),
        "phase": state.phase,
        "first": state.first,
        "turn": state.turn,
        "to_move": list(to_move(state)),
        "hand": None if hand is None else _strs(hand),
        "rotated_hand": _strs(_rotated(hand)) if deciding else None,
        "active": _strs(state.active),
        "active_owner": state.owner,
        "seats": [
            {
                "seat": i,
                "decided": state.decided[i],
                "hand_size": len(state.hands[i]),
                "taken": len(state.taken[i]),
                "tokens": state.tokens[i],
                "chip_spent": None if two else state.chips[i],
            }
            for i in range(n)
        ],
        "taken_cards": _strs(sorted((c for t in state.taken for c in t), key=_sort_key)),
        "set_aside": len(state.set_aside),
        "scores": list(state.scores),
        "round_summaries": [r.as_dict() for r in state.summaries],
        "last_moves": [e.as_dict() for e in state.last_moves],
    }


def dump(state: State) -> dict[str, Any]:
    """The whole state as plain JSON (hidden zones: ``hands``, ``deck``, ``set_aside``)."""
    return {
        "players": state.players,
        "options": dict(state.options),
        "seed": state.seed,
        "round": state.round,
        "phase": state.phase,
        "first": state.first,
        "turn": state.turn,
        "decided": list(state.decided),
        "hands": [_strs(h) for h in state.hands],
        "deck": _strs(state.deck),
        "set_aside": _strs(state.set_aside),
        "active": _strs(state.active),
        "owner": state.owner,
        "taken": [_strs(t) for t in state.taken],
        "tokens": list(state.tokens),
        "chips": list(state.chips),
        "scores": list(state.scores),
        "round_summaries": [r.as_dict() for r in state.summaries],
        "last_moves": [e.as_dict() for e in state.last_moves],
        # Only while old-rule moves are still to come (replays of old matches), so that every
        # state stored before the rules revision dumps as it was stored.
        **({"legacy_moves": state.legacy_moves} if state.legacy_moves else {}),
    }


def load(data: dict[str, Any]) -> State:
    """The state of a :func:`dump`."""

    def cards(items: list[str]) -> tuple[int, ...]:
        return tuple(_card(c) for c in items)

    return State(
        players=data["players"],
        options=tuple(sorted(data["options"].items())),
        seed=data["seed"],
        round=data["round"],
        phase=data["phase"],
        first=data["first"],
        turn=data["turn"],
        decided=tuple(data["decided"]),
        hands=tuple(cards(h) for h in data["hands"]),
        deck=cards(data["deck"]),
        set_aside=cards(data["set_aside"]),
        active=cards(data["active"]),
        owner=data["owner"],
        taken=tuple(cards(t) for t in data["taken"]),
        tokens=tuple(data["tokens"]),
        chips=tuple(data["chips"]),
        scores=tuple(data["scores"]),
        summaries=tuple(RoundSummary.from_dict(r) for r in data["round_summaries"]),
        last_moves=tuple(_Entry.from_dict(e) for e in data["last_moves"]),
        legacy_moves=data.get("legacy_moves", 0),
    )


def all_cards(state: State) -> list[str]:
    """Every card id in some zone: hands, active set, taken piles, deck and set-aside cards."""
    zones = [*state.hands, state.active, *state.taken, state.deck, state.set_aside]
    return [_ID[c] for zone in zones for c in zone]


def sample_state(seen: dict[str, Any], rng: random.Random) -> State:
    """A full state consistent with the view ``seen``; unseen cards dealt at random by ``rng``.

    The seat's own hand, the active set and the taken cards are known; every other card of the
    game goes at random (and randomly turned) to the other hands, the set-aside cards and, in
    round 2 of the 2-player game, round 1's cards out of play. The seed is unknown, so later
    rounds are dealt from a random one.
    """
    n = seen["player_count"]
    seat = seen["seat"]
    seats = seen["seats"]
    own = tuple(_card(c) for c in seen["hand"]) if seat is not None else ()
    active = tuple(_card(c) for c in seen["active"])
    taken_all = [_card(c) for c in seen["taken_cards"]]
    known = {_ID[c] for c in (*own, *active, *taken_all)}
    unseen = [c for c in _game_cards(n) if _ID[c] not in known]
    rng.shuffle(unseen)
    unseen = [_FLIP[c] if rng.random() < 0.5 else c for c in unseen]

    hands = []
    for i in range(n):
        if i == seat:
            hands.append(own)
            continue
        size = seats[i]["hand_size"]
        hands.append(tuple(unseen[:size]))
        unseen = unseen[size:]
    set_aside = tuple(unseen[: seen["set_aside"]])
    rest = tuple(unseen[seen["set_aside"] :])
    taken = []
    for i in range(n):
        size = seats[i]["taken"]
        taken.append(tuple(taken_all[:size]))
        taken_all = taken_all[size:]
    return State(
        players=n,
        options=tuple(sorted(seen["options"].items())),
        seed=rng.getrandbits(32),
        round=seen["round"],
        phase=seen["phase"],
        first=seen["first"],
        turn=seen["turn"],
        decided=tuple(s["decided"] for s in seats),
        hands=tuple(hands),
        deck=(*_REMOVED[n], *rest),
        set_aside=set_aside,
        active=active,
        owner=seen["active_owner"],
        taken=tuple(taken),
        tokens=tuple(s["tokens"] for s in seats),
        chips=tuple(n == 2 or bool(s["chip_spent"]) for s in seats),
        scores=tuple(seen["scores"]),
        summaries=tuple(RoundSummary.from_dict(r) for r in seen["round_summaries"]),
        last_moves=tuple(_Entry.from_dict(e) for e in seen["last_moves"]),
    )


def reveals_nothing(state: State, seat: int, move: Move) -> bool:
    """Whether ``seat`` playing ``move`` sees nothing it did not know before (a takeback, where
    the club allows them): a card scouted comes from the face-up active set, so it is known;
    the end of a round (a new deal) or of the game is not. ``move`` must be legal for ``seat``."""
    after = apply(state, seat, move)
    if is_over(after) or after.round != state.round:
        return False
    known = set(state.hands[seat]) | set(state.active) | {_FLIP[c] for c in state.active}
    return set(after.hands[seat]) <= known
