"""Schotten Totten: the game of ``shared/rules/schotten_totten.md`` as a pure engine.

The contract is in :mod:`games.engine`; this module adds the rule helpers of issue 3
(:func:`formation`, :func:`claim_valid`, :func:`counter_example`, :func:`winner`).

A turn (rules, "A turn"), with ``claim_timing = "after_play"`` (the default):

* phase ``"play"``: play a card (``p:R7:3`` = card R7 on stone index 3) or, only when no card can
  be played, ``pass``;
* phase ``"claim"``, entered only if the mover may claim some stone after the play: ``c:3``
  claims stone index 3, ``end`` ends the turn; the turn also ends by itself once nothing more
  is claimable;
* the draw happens by itself when the turn ends.

With ``claim_timing = "before_play"`` (the 1999 order) the claim moves are offered in phase
``"play"`` next to the play moves, so they can only come first: playing (or passing) ends the turn.

Stones are indexed 0-8 in moves, dumps and views (the rules' numbering); messages a person reads
name them 1-9, as the rules say they are shown.

Decisions where the rules file and the seed are silent (each also marked where it is coded):

* Dealing: every round is a fresh shuffle of all 54 cards salted with the round number; the six
  cards of each hand are dealt one at a time, the round's first player first. The next card to
  draw is ``deck[0]``.
* Passing is an explicit move (``pass``) so the seat to move always has a legal move. A player
  who passes draws nothing (their hand is either still full or the deck is empty).
* Automatic end (rules: "If neither player can play a card"): it is checked whenever a turn
  ends, and exactly the full stones are awarded, as the rules say (the tie-break by completion
  order applies). That this always ends the round is a theorem, not a hope: when neither can
  play, every unclaimed stone holds three cards on *both* sides. (If both hands are empty, all 54
  cards lie on the 54 places. If a player X holds cards it cannot place, every unclaimed stone
  has three of X's cards; if the other player Y also holds cards, the same goes for Y. If Y's
  hand is empty, Y never passed while the deck had cards -- a player who passes holding cards
  can never play again, so Y's hand could not have emptied -- and so Y drew after every one of
  its turns until the deck ran out: Y received at least 27 cards (6 + 21 of the 42 drawn, more if
  X passed) and played them all, which fills all 27 of Y's places on the 9 stones.) So every
  stone ends up owned, one seat holds five or more, and the round has a winner. A property test
  checks this over random games.
* :func:`winner` when both seats meet a condition at once (only possible when stones are awarded
  together at the automatic end): the seat with more stones wins.
* :func:`claim_valid` with fewer than three cards in ``mine`` answers ``False`` (the rules require
  a complete formation); :func:`counter_example` requires three.
* ``last_moves`` records plays, passes, claims, the automatic award and round ends; draws (hidden
  cards) and ``end`` (no information) are not recorded.
* Between rounds the next deal happens at once inside :func:`apply`; the finished round's
  result (points and the final owners of the stones) stays in ``round_results``.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, replace
from typing import Any

from games.cards import shuffled
from games.engine import (
    IllegalMove,
    Info,
    InvalidMove,
    Option,
    check_players,
    gettext_noop,
    logged_apply,
    resolve_options,
)

INFO = Info(
    key="schotten_totten", title=gettext_noop("Schotten Totten"), min_players=2, max_players=2
)

AFTER_PLAY = "after_play"
BEFORE_PLAY = "before_play"

OPTIONS: tuple[Option, ...] = (
    Option(
        name="claim_timing",
        label=gettext_noop("When stones are claimed"),
        kind="choice",
        default=AFTER_PLAY,
        help=gettext_noop(
            "After playing a card (the current rules) or at the start of the turn, before "
            "playing (the 1999 rules)."
        ),
        choices=(
            (AFTER_PLAY, gettext_noop("After playing a card")),
            (BEFORE_PLAY, gettext_noop("Before playing a card (1999 rules)")),
        ),
    ),
    Option(
        name="rounds",
        label=gettext_noop("Rounds"),
        kind="int",
        default=1,
        help=gettext_noop(
            "Rounds in the match. A round's winner scores 5 points, the loser 1 point per stone "
            "they control."
        ),
        min_value=1,
        max_value=9,
    ),
)

COLOURS = "ROYGBP"
DECK: tuple[str, ...] = tuple(f"{colour}{value}" for colour in COLOURS for value in range(1, 10))
STONES = 9
HAND_SIZE = 6
SIDE_SIZE = 3
WIN_POINTS = 5
LAST_MOVES = 10

# Formation kinds, weakest first: the index is the kind's rank (rules, "Formations").
KINDS: tuple[str, ...] = ("sum", "straight", "flush", "three", "straight_flush")
_SUM, _STRAIGHT, _FLUSH, _THREE, _STRAIGHT_FLUSH = range(5)

PLAY = "play"
CLAIM = "claim"
OVER = "over"


# --- cards as bits -----------------------------------------------------------------------------
#
# Claimability is computed on every turn and thousands of times by bots, so the search works on
# 54-bit masks: card ``i`` (its index in DECK) is bit ``i``; colour ``i // 9``, value ``i % 9 + 1``.
# Within a colour, a higher bit is a higher value, which the searches below rely on.

_INDEX: dict[str, int] = {card: i for i, card in enumerate(DECK)}
_VALUE: tuple[int, ...] = tuple(i % 9 + 1 for i in range(len(DECK)))
_COLOUR: tuple[int, ...] = tuple(i // 9 for i in range(len(DECK)))
_ALL = (1 << len(DECK)) - 1
_COLOUR_MASK: tuple[int, ...] = tuple(0x1FF << (9 * c) for c in range(len(COLOURS)))
# Indexed by value (slot 0 unused) so that ``_VALUE_MASK[v]`` reads naturally.
_VALUE_MASK: tuple[int, ...] = (0,) + tuple(
    sum(1 << (9 * c + v - 1) for c in range(len(COLOURS))) for v in range(1, 10)
)
# Colour runs of one colour, highest first, as (lowest value, mask).
_RUNS_BY_COLOUR: tuple[tuple[tuple[int, int], ...], ...] = tuple(
    tuple((v, 0b111 << (9 * c + v - 1)) for v in range(7, 0, -1)) for c in range(len(COLOURS))
)
# Every colour run, highest first (ties between colours in colour order).
_RUNS: tuple[tuple[int, int], ...] = tuple(
    (v, 0b111 << (9 * c + v - 1)) for v in range(7, 0, -1) for c in range(len(COLOURS))
)


def _key(rank: int, total: int) -> int:
    """One comparable number per strength: kind first, then sum (sums are at most 27 < 32)."""
    return rank * 32 + total


def _rank_total(a: int, b: int, c: int) -> tuple[int, int]:
    """(kind rank, sum) of three card indices (rules, "Formations")."""
    va, vb, vc = sorted((_VALUE[a], _VALUE[b], _VALUE[c]))
    one_colour = _COLOUR[a] == _COLOUR[b] == _COLOUR[c]
    run = vb == va + 1 and vc == vb + 1
    total = va + vb + vc
    if one_colour and run:
        return _STRAIGHT_FLUSH, total
    if va == vc:
        return _THREE, total
    if one_colour:
        return _FLUSH, total
    if run:
        return _STRAIGHT, total
    return _SUM, total


def _side_key(cards: tuple[str, ...] | list[str]) -> int:
    return _key(*_rank_total(*(_INDEX[card] for card in cards)))


def _indices(cards: Any, what: str) -> list[int]:
    """Card ids to indices; a helper given an unknown or repeated id raises ``ValueError``."""
    try:
        out = [_INDEX[card] for card in cards]
    except (KeyError, TypeError) as error:
        raise ValueError(f"{what}: not a list of Schotten Totten card ids: {cards!r}") from error
    if len(set(out)) != len(out):
        raise ValueError(f"{what}: a card is given twice: {cards!r}")
    return out


def _mask(indices: list[int]) -> int:
    mask = 0
    for i in indices:
        mask |= 1 << i
    return mask


def _top_bits(mask: int, count: int) -> int:
    """The ``count`` highest bits of ``mask`` (within a colour: the highest values)."""
    out = 0
    for _ in range(count):
        bit = 1 << (mask.bit_length() - 1)
        out |= bit
        mask ^= bit
    return out


def _values_of(mask: int) -> int:
    total = 0
    while mask:
        low = mask & -mask
        total += _VALUE[low.bit_length() - 1]
        mask ^= low
    return total


def _strongest_completion(theirs: list[int], unseen: int) -> tuple[int, int] | None:
    """The strongest way to complete a side: ``(strength key, mask of the cards added)``.

    ``theirs`` are the side's card indices (0-3), ``unseen`` the cards that may still come to it.
    ``None`` when there are not enough unseen cards to complete it.

    Rather than trying every unseen triple (up to 17,296), each formation kind is searched from
    the strongest down and the first kind that can be made at all is the answer, with the best sum
    within that kind. The order matters for correctness: a completion picked for a weaker kind
    (say the three highest cards of one colour, for a flush) could in principle be a stronger kind
    too, but then that stronger kind would exist and would have been returned first.
    """
    need = SIDE_SIZE - len(theirs)
    if need == 0:
        return _key(*_rank_total(*theirs)), 0
    if unseen.bit_count() < need:
        return None
    have = _mask(theirs)
    usable = have | unseen
    colours = {_COLOUR[i] for i in theirs}
    values = [_VALUE[i] for i in theirs]
    base = sum(values)
    one_colour = len(colours) <= 1
    distinct = len(set(values)) == len(values)

    # 1. Colour run: the highest run of one colour that contains our cards and needs only unseen
    # cards. Runs are listed highest first, so the first fit is the best.
    if one_colour and distinct:
        runs = _RUNS_BY_COLOUR[next(iter(colours))] if colours else _RUNS
        for low, run in runs:
            if run & have == have and run & ~usable == 0:
                return _key(_STRAIGHT_FLUSH, 3 * low + 3), run & ~have

    # 2. Three of a kind: the highest value with enough unseen cards of it.
    if len(set(values)) <= 1:
        for value in values[:1] or range(9, 0, -1):
            free = _VALUE_MASK[value] & unseen
            if free.bit_count() >= need:
                return _key(_THREE, 3 * value), _top_bits(free, need)

    # 3. Colour: in each possible colour, the highest unseen cards of it.
    if one_colour:
        best: tuple[int, int] | None = None
        for colour in colours or range(len(COLOURS)):
            free = _COLOUR_MASK[colour] & unseen
            if free.bit_count() >= need:
                added = _top_bits(free, need)
                total = base + _values_of(added)
                if best is None or total > best[0]:
                    best = (total, added)
        if best is not None:
            return _key(_FLUSH, best[0]), best[1]

    # 4. Run of any colours: the highest run whose missing values are all unseen in some colour.
    if distinct:
        for low in range(7, 0, -1):
            if any(not low <= v <= low + 2 for v in values):
                continue
            added = 0
            for value in range(low, low + 3):
                if value in values:
                    continue
                free = _VALUE_MASK[value] & unseen
                if not free:
                    break
                added |= 1 << (free.bit_length() - 1)
            else:
                return _key(_STRAIGHT, 3 * low + 3), added

    # 5. Sum: the highest unseen values, whatever they are.
    added = 0
    left = need
    for value in range(9, 0, -1):
        free = _VALUE_MASK[value] & unseen
        while free and left:
            bit = free & -free
            added |= bit
            free ^= bit
            left -= 1
        if not left:
            break
    return _key(_SUM, base + _values_of(added)), added


def _mask_cards(mask: int) -> list[str]:
    return [DECK[i] for i in range(len(DECK)) if mask >> i & 1]


# --- the rule helpers of issue 3 ---------------------------------------------------------------


def formation(cards: list[str] | tuple[str, ...]) -> tuple[str, int]:
    """The formation of three cards: ``(kind, total)`` (rules, "Formations").

    ``kind`` is ``"straight_flush"`` (colour run), ``"three"`` (three of a kind), ``"flush"``
    (colour), ``"straight"`` (run) or ``"sum"``; ``total`` is the sum of the three values.
    Runs do not wrap around (9-1-2 is not a run).
    """
    indices = _indices(cards, "formation")
    if len(indices) != SIDE_SIZE:
        raise ValueError(f"formation: three cards are needed, not {len(indices)}")
    rank, total = _rank_total(*indices)
    return KINDS[rank], total


def _beats(mine: int, theirs: int, mine_completed_first: bool) -> bool:
    """Rules, "Formations": kind, then sum, then whoever completed first."""
    return mine > theirs or (mine == theirs and mine_completed_first)


def claim_valid(
    mine: list[str] | tuple[str, ...],
    theirs: list[str] | tuple[str, ...],
    other_visible: list[str] | tuple[str, ...],
    mine_completed_first: bool = True,
) -> bool:
    """May the owner of ``mine`` claim the stone? (rules, "Claiming a stone")

    ``theirs`` are the opponent's cards on the stone, ``other_visible`` every other card on the
    table (any stone, either side, claimed or not). With three cards on each side the stronger
    formation wins, a tie of kind and sum going to whoever completed first
    (``mine_completed_first``). Otherwise the claim is valid only if no completion of ``theirs``
    with cards not on the table beats ``mine``; a completion that only ties loses, because
    ``mine`` was completed first. The claimant's hand is not proof: its cards count as unseen.
    Fewer than three cards in ``mine`` can never claim.
    """
    mine_i = _indices(mine, "claim_valid mine")
    theirs_i = _indices(theirs, "claim_valid theirs")
    other_i = _indices(other_visible, "claim_valid other_visible")
    if len(theirs_i) > SIDE_SIZE or len(mine_i) > SIDE_SIZE:
        raise ValueError("claim_valid: a side holds at most three cards")
    if len(mine_i) < SIDE_SIZE:
        return False
    table = _mask(mine_i) | _mask(theirs_i) | _mask(other_i)
    return _claim_ok(mine_i, theirs_i, _ALL & ~table, mine_completed_first)


def _claim_ok(mine: list[int], theirs: list[int], unseen: int, mine_completed_first: bool) -> bool:
    mine_key = _key(*_rank_total(*mine))
    if len(theirs) == SIDE_SIZE:
        return _beats(mine_key, _key(*_rank_total(*theirs)), mine_completed_first)
    best = _strongest_completion(theirs, unseen)
    # ``mine`` is complete and ``theirs`` is not, so mine was completed first: ties are ours.
    return best is None or best[0] <= mine_key


def counter_example(
    mine: list[str] | tuple[str, ...],
    theirs: list[str] | tuple[str, ...],
    other_visible: list[str] | tuple[str, ...],
) -> list[str] | None:
    """Why a stone cannot be claimed (rules, "Claiming a stone"), or ``None`` if it can.

    The unseen cards (not on the table; the asker's hand counts as unseen) that complete the
    opponent's side into the strongest formation it can still make, when that beats ``mine``.
    An empty list means the opponent's three cards already beat ``mine``; ``mine`` is taken as
    completed first when the opponent's side is full (ties of kind and sum then go to ``mine``),
    as it would be whenever the opponent completed later.
    """
    mine_i = _indices(mine, "counter_example mine")
    theirs_i = _indices(theirs, "counter_example theirs")
    other_i = _indices(other_visible, "counter_example other_visible")
    if len(mine_i) != SIDE_SIZE or len(theirs_i) > SIDE_SIZE:
        raise ValueError("counter_example: mine needs three cards, theirs at most three")
    table = _mask(mine_i) | _mask(theirs_i) | _mask(other_i)
    return _counter(mine_i, theirs_i, _ALL & ~table, True)


def _counter(
    mine: list[int], theirs: list[int], unseen: int, mine_completed_first: bool
) -> list[str] | None:
    mine_key = _key(*_rank_total(*mine))
    if len(theirs) == SIDE_SIZE:
        their_key = _key(*_rank_total(*theirs))
        return None if _beats(mine_key, their_key, mine_completed_first) else []
    best = _strongest_completion(theirs, unseen)
    if best is None or best[0] <= mine_key:
        return None
    return _mask_cards(best[1])


def winner(owners: list[int | None] | tuple[int | None, ...]) -> int | None:
    """The seat that has won the round, or ``None`` (rules, "End of the game").

    ``owners`` are the owners of the 9 stones (``None``, ``0`` or ``1``). A seat wins with three
    adjacent stones or five stones in all. **[decision]** Should both seats meet a condition at
    once (only when stones are awarded together at the automatic end) the seat with more stones
    wins; equal counts give ``None``.
    """
    if len(owners) != STONES:
        raise ValueError(f"winner: {STONES} owners are needed, not {len(owners)}")
    met = []
    for seat in (0, 1):
        five = sum(1 for owner in owners if owner == seat) >= 5
        three = any(owners[i] == owners[i + 1] == owners[i + 2] == seat for i in range(STONES - 2))
        if five or three:
            met.append(seat)
    if len(met) == 1:
        return met[0]
    if len(met) == 2:
        count = [sum(1 for owner in owners if owner == seat) for seat in (0, 1)]
        if count[0] != count[1]:
            return 0 if count[0] > count[1] else 1
    return None


# --- moves -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Play:
    """Play ``card`` on the mover's side of stone ``stone`` (0-8)."""

    card: str
    stone: int

    @property
    def code(self) -> str:
        return f"p:{self.card}:{self.stone}"


@dataclass(frozen=True)
class Claim:
    """Claim stone ``stone`` (0-8)."""

    stone: int

    @property
    def code(self) -> str:
        return f"c:{self.stone}"


@dataclass(frozen=True)
class EndTurn:
    """Stop claiming; the turn ends (and the draw happens)."""

    @property
    def code(self) -> str:
        return "end"


@dataclass(frozen=True)
class Pass:
    """Skip the play because no card can be played (rules, "A turn")."""

    @property
    def code(self) -> str:
        return "pass"


Move = Play | Claim | EndTurn | Pass

# Every play there can be, built once: legal_moves lists up to 54 of them on every turn.
_PLAYS: dict[tuple[str, int], Play] = {(card, s): Play(card, s) for card in DECK for s in range(9)}

_PLAY_CODE = re.compile(r"p:([ROYGBP][1-9]):([0-8])")
_CLAIM_CODE = re.compile(r"c:([0-8])")


def parse_move(code: str) -> Move:
    """The move for a code: ``p:<card>:<stone>``, ``c:<stone>``, ``end`` or ``pass``."""
    if isinstance(code, str):
        if code == "end":
            return EndTurn()
        if code == "pass":
            return Pass()
        if match := _PLAY_CODE.fullmatch(code):
            return Play(match[1], int(match[2]))
        if match := _CLAIM_CODE.fullmatch(code):
            return Claim(int(match[1]))
    raise InvalidMove(gettext_noop("%(code)s is not a Schotten Totten move."), code=repr(code)[:40])


# --- state -------------------------------------------------------------------------------------

# A recorded public event, kept as sorted (key, value) pairs so the state stays immutable;
# list values are kept as tuples.
Event = tuple[tuple[str, Any], ...]


@dataclass(frozen=True)
class RoundResult:
    winner: int
    points: tuple[int, int]
    owners: tuple[int | None, ...]


@dataclass(frozen=True)
class State:
    claim_timing: str
    rounds: int
    seed: Any
    round: int  # 0-based
    turn: int  # the seat to move (kept, unused, once the game is over)
    phase: str  # PLAY, CLAIM or OVER
    hands: tuple[tuple[str, ...], tuple[str, ...]]
    deck: tuple[str, ...]  # deck[0] is drawn next
    sides: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]  # per stone, per seat, play order
    owners: tuple[int | None, ...]
    completed_first: tuple[int | None, ...]  # per stone: the seat that completed its side first
    scores: tuple[int, int]
    round_results: tuple[RoundResult, ...]
    last_moves: tuple[Event, ...]


def _event(**fields: Any) -> Event:
    return tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in fields.items()))


def _event_json(event: Event) -> dict[str, Any]:
    return {k: list(v) if isinstance(v, tuple) else v for k, v in event}


def _log(state: State, **fields: Any) -> tuple[Event, ...]:
    return (*state.last_moves, _event(**fields))[-LAST_MOVES:]


def _result_json(result: RoundResult, index: int) -> dict[str, Any]:
    return {
        "round": index + 1,
        "winner": result.winner,
        "points": list(result.points),
        "owners": list(result.owners),
    }


def _result_from_json(data: dict[str, Any]) -> RoundResult:
    return RoundResult(data["winner"], tuple(data["points"]), tuple(data["owners"]))


def _replace_at(items: tuple, index: int, value: Any) -> tuple:
    return (*items[:index], value, *items[index + 1 :])


def _deal(
    claim_timing: str,
    rounds: int,
    seed: Any,
    round_index: int,
    scores: tuple[int, int],
    round_results: tuple[RoundResult, ...],
    last_moves: tuple[Event, ...],
) -> State:
    """A new round (rules, "Set-up" and "Rounds"): a fresh seeded shuffle, six cards each.

    **[decision]** the first player is seat 0 in round 1 and alternates; cards are dealt one at
    a time starting with the round's first player.
    """
    cards = shuffled(DECK, seed, "round", round_index)
    first = round_index % 2
    dealt = 2 * HAND_SIZE
    hands = [(), ()]
    hands[first] = tuple(cards[0:dealt:2])
    hands[1 - first] = tuple(cards[1:dealt:2])
    return State(
        claim_timing=claim_timing,
        rounds=rounds,
        seed=seed,
        round=round_index,
        turn=first,
        phase=PLAY,
        hands=(hands[0], hands[1]),
        deck=tuple(cards[dealt:]),
        sides=(((), ()),) * STONES,
        owners=(None,) * STONES,
        completed_first=(None,) * STONES,
        scores=scores,
        round_results=round_results,
        last_moves=last_moves,
    )


def new_game(players: int, options: dict | None = None, seed: Any = 0) -> State:
    """The first state (rules, "Material" and "Set-up"): two players, seat 0 moves first."""
    check_players(INFO, players)
    opts = resolve_options(OPTIONS, options)
    return _deal(opts["claim_timing"], opts["rounds"], seed, 0, (0, 0), (), ())


def to_move(state: State) -> tuple[int, ...]:
    """The seat whose decision is awaited; empty once the match is over."""
    return () if state.phase == OVER else (state.turn,)


def is_over(state: State) -> bool:
    """True once the last round has been won (rules, "End of the game" and "Rounds")."""
    return state.phase == OVER


def _match_winner(state: State) -> int:
    """Rules, "Rounds": most points; equal points -> the winner of the last round."""
    a, b = state.scores
    if a != b:
        return 0 if a > b else 1
    return state.round_results[-1].winner


def outcome(state: State) -> list[dict[str, int]]:
    """Final points and ranks (rules, "Rounds"); there is no shared place in Schotten Totten."""
    if not is_over(state):
        raise ValueError("outcome: the game is not over")
    best = _match_winner(state)
    return [
        {"seat": seat, "score": state.scores[seat], "rank": 1 if seat == best else 2}
        for seat in (0, 1)
    ]


# --- rules on a state --------------------------------------------------------------------------


def _table_mask(state: State) -> int:
    mask = 0
    for pair in state.sides:
        for side in pair:
            for card in side:
                mask |= 1 << _INDEX[card]
    return mask


def _open_stones(state: State, seat: int) -> list[int]:
    """Stones that can take a card of ``seat`` (rules, "A turn" 1)."""
    return [
        s
        for s in range(STONES)
        if state.owners[s] is None and len(state.sides[s][seat]) < SIDE_SIZE
    ]


def _can_play(state: State, seat: int) -> bool:
    return bool(state.hands[seat]) and bool(_open_stones(state, seat))


def _claim_checks(state: State, seat: int) -> list[tuple[int, list[int], list[int]]]:
    """Unclaimed stones where ``seat`` has a complete formation: (stone, mine, theirs)."""
    out = []
    for s in range(STONES):
        if state.owners[s] is None and len(state.sides[s][seat]) == SIDE_SIZE:
            mine = [_INDEX[c] for c in state.sides[s][seat]]
            theirs = [_INDEX[c] for c in state.sides[s][1 - seat]]
            out.append((s, mine, theirs))
    return out


def claimable_stones(state: State, seat: int) -> list[int]:
    """The stones ``seat`` could prove and claim in this position (rules, "Claiming a stone").

    Only the table is used, never a hand. Whether a claim move is legal *now* also depends on the
    phase (see :func:`legal_moves`).
    """
    checks = _claim_checks(state, seat)
    if not checks:
        return []
    unseen = _ALL & ~_table_mask(state)
    return [
        s
        for s, mine, theirs in checks
        if _claim_ok(mine, theirs, unseen, state.completed_first[s] == seat)
    ]


def _counter_examples(state: State, seat: int) -> list[dict[str, Any]]:
    checks = _claim_checks(state, seat)
    if not checks:
        return []
    unseen = _ALL & ~_table_mask(state)
    out = []
    for s, mine, theirs in checks:
        cards = _counter(mine, theirs, unseen, state.completed_first[s] == seat)
        if cards is not None:
            out.append({"stone": s, "cards": cards})
    return out


def _claims_now(state: State, seat: int) -> list[int]:
    """Stones ``seat`` may claim with its next move: in the claim phase (after_play) or in the
    play phase (before_play, claims before the play)."""
    if state.phase == OVER or seat != state.turn:
        return []
    window = CLAIM if state.claim_timing == AFTER_PLAY else PLAY
    return claimable_stones(state, seat) if state.phase == window else []


def legal_moves(state: State, seat: int) -> list[Move]:
    """The moves of ``seat`` now (rules, "A turn"); empty if it is not to move."""
    if state.phase == OVER or seat != state.turn:
        return []
    moves: list[Move] = [Claim(s) for s in _claims_now(state, seat)]
    if state.phase == CLAIM:
        moves.append(EndTurn())
        return moves
    stones = _open_stones(state, seat)
    plays = [_PLAYS[card, s] for card in state.hands[seat] for s in stones]
    moves.extend(plays or [Pass()])
    return moves


def apply(state: State, seat: int, move: Move) -> State:
    """The state after ``seat`` makes ``move`` (rules, "A turn"); illegal moves raise."""
    if not isinstance(move, Play | Claim | EndTurn | Pass):
        raise InvalidMove(gettext_noop("That is not a Schotten Totten move."))
    if state.phase == OVER:
        raise IllegalMove(gettext_noop("The game is over."))
    if seat != state.turn:
        raise IllegalMove(gettext_noop("It is not your turn."))
    if isinstance(move, Play):
        return _apply_play(state, seat, move)
    if isinstance(move, Pass):
        return _apply_pass(state, seat)
    if isinstance(move, Claim):
        return _apply_claim(state, seat, move.stone)
    if state.phase != CLAIM:
        raise IllegalMove(gettext_noop("There is no claim to finish: play a card first."))
    return _end_turn(state, seat)


def _apply_play(state: State, seat: int, move: Play) -> State:
    if state.phase != PLAY:
        raise IllegalMove(
            gettext_noop("You have already played this turn: claim a stone or end your turn.")
        )
    hand = state.hands[seat]
    if move.card not in hand:
        raise IllegalMove(gettext_noop("You do not hold %(card)s."), card=move.card)
    s = move.stone
    if not isinstance(s, int) or not 0 <= s < STONES:
        raise IllegalMove(gettext_noop("There is no such stone."))
    if state.owners[s] is not None:
        raise IllegalMove(gettext_noop("Stone %(stone)s is already claimed."), stone=s + 1)
    side = state.sides[s][seat]
    if len(side) >= SIDE_SIZE:
        raise IllegalMove(
            gettext_noop("You already have three cards on stone %(stone)s."), stone=s + 1
        )
    side = (*side, move.card)
    completed = state.completed_first
    if len(side) == SIDE_SIZE and completed[s] is None:
        # Rules, "Formations": the order of completion breaks ties of kind and sum.
        completed = _replace_at(completed, s, seat)
    pair = (side, state.sides[s][1]) if seat == 0 else (state.sides[s][0], side)
    played = replace(
        state,
        hands=_replace_at(state.hands, seat, tuple(c for c in hand if c != move.card)),
        sides=_replace_at(state.sides, s, pair),
        completed_first=completed,
        last_moves=_log(state, seat=seat, kind="play", card=move.card, stone=s),
    )
    return _after_play_step(played, seat)


def _apply_pass(state: State, seat: int) -> State:
    if state.phase != PLAY:
        raise IllegalMove(
            gettext_noop("You have already played this turn: claim a stone or end your turn.")
        )
    if _can_play(state, seat):
        raise IllegalMove(gettext_noop("You can still play a card, so you may not pass."))
    return _after_play_step(replace(state, last_moves=_log(state, seat=seat, kind="pass")), seat)


def _after_play_step(state: State, seat: int) -> State:
    """After the play (or the pass): claims if any are possible, else the turn ends."""
    if state.claim_timing == AFTER_PLAY and claimable_stones(state, seat):
        return replace(state, phase=CLAIM)
    return _end_turn(state, seat)


def _apply_claim(state: State, seat: int, s: int) -> State:
    after = state.claim_timing == AFTER_PLAY
    if after and state.phase != CLAIM:
        raise IllegalMove(gettext_noop("Play a card first: stones are claimed after playing."))
    if not isinstance(s, int) or not 0 <= s < STONES:
        raise IllegalMove(gettext_noop("There is no such stone."))
    if state.owners[s] is not None:
        raise IllegalMove(gettext_noop("Stone %(stone)s is already claimed."), stone=s + 1)
    if len(state.sides[s][seat]) < SIDE_SIZE:
        raise IllegalMove(
            gettext_noop("You need three cards on stone %(stone)s to claim it."), stone=s + 1
        )
    if s not in claimable_stones(state, seat):
        if len(state.sides[s][1 - seat]) == SIDE_SIZE:
            raise IllegalMove(
                gettext_noop("Your formation on stone %(stone)s does not beat your opponent's."),
                stone=s + 1,
            )
        raise IllegalMove(
            gettext_noop(
                "Stone %(stone)s cannot be claimed yet: the cards on the table do not prove that "
                "your opponent cannot beat you."
            ),
            stone=s + 1,
        )
    owners = _replace_at(state.owners, s, seat)
    claimed = replace(
        state, owners=owners, last_moves=_log(state, seat=seat, kind="claim", stone=s)
    )
    won = winner(owners)
    if won is not None:
        # Rules, "End of the game": the round ends at once.
        return _finish_round(claimed, won)
    if after and not claimable_stones(claimed, seat):
        return _end_turn(claimed, seat)
    return claimed


def _end_turn(state: State, seat: int) -> State:
    """Draw (rules, "A turn" 3), then hand over or, if nobody can play, end automatically."""
    hand, deck = state.hands[seat], state.deck
    if deck and len(hand) < HAND_SIZE:
        hand, deck = (*hand, deck[0]), deck[1:]
    nxt = 1 - seat
    state = replace(
        state, hands=_replace_at(state.hands, seat, hand), deck=deck, turn=nxt, phase=PLAY
    )
    if not _can_play(state, nxt) and not _can_play(state, seat):
        return _automatic_end(state)
    return state


def _automatic_end(state: State) -> State:
    """Rules, "A turn": if neither player can play, every full stone goes to the stronger side.

    The module docstring proves that every unclaimed stone is full at this point, so every stone
    is owned afterwards and :func:`winner` answers.
    """
    owners = list(state.owners)
    awarded = []
    for s in range(STONES):
        a, b = state.sides[s]
        if owners[s] is None and len(a) == SIDE_SIZE and len(b) == SIDE_SIZE:
            first = state.completed_first[s] == 0
            owners[s] = 0 if _beats(_side_key(a), _side_key(b), first) else 1
            awarded.append(s)
    won = winner(owners)
    if won is None:
        # Unreachable in a game (see above); only a hand-made position could get here. Rather
        # than leave a round without an end, the seat with more stones wins, else the second
        # player of the round.
        count = [owners.count(0), owners.count(1)]
        won = (1 - state.round % 2) if count[0] == count[1] else (0 if count[0] > count[1] else 1)
    ended = replace(
        state,
        owners=tuple(owners),
        last_moves=_log(state, seat=None, kind="auto_award", stones=awarded),
    )
    return _finish_round(ended, won)


def _finish_round(state: State, won: int) -> State:
    """Rules, "Rounds": the winner scores 5, the loser 1 per stone it controls; next round."""
    points = [0, 0]
    points[won] = WIN_POINTS
    points[1 - won] = sum(1 for owner in state.owners if owner == 1 - won)
    scores = (state.scores[0] + points[0], state.scores[1] + points[1])
    results = (*state.round_results, RoundResult(won, (points[0], points[1]), state.owners))
    log = (
        *state.last_moves,
        _event(seat=won, kind="round_end", round=state.round + 1, points=points),
    )[-LAST_MOVES:]
    if state.round + 1 < state.rounds:
        return _deal(
            state.claim_timing, state.rounds, state.seed, state.round + 1, scores, results, log
        )
    return replace(state, phase=OVER, scores=scores, round_results=results, last_moves=log)


# --- what a seat sees --------------------------------------------------------------------------


def _formation_json(side: tuple[str, ...]) -> dict[str, Any] | None:
    if len(side) != SIDE_SIZE:
        return None
    kind, total = formation(side)
    return {"kind": kind, "total": total}


apply_logged = logged_apply(apply, LAST_MOVES, _event_json)


def view(state: State, seat: int | None) -> dict[str, Any]:
    """What ``seat`` may see (rules, "What a player may see"); ``None`` is a spectator.

    The table (every stone's cards in play order, owner, who completed first, formations), the
    seat's own hand, hand sizes, deck size, turn and phase, scores and round results, recent
    public moves; for the seat to move, the stones it may claim now and, for each of its full
    stones that it cannot claim, a counter-example (cards that are not on the table).
    """
    mover = seat is not None and seat in to_move(state)
    return {
        "game": INFO.key,
        "seat": seat,
        "options": {"claim_timing": state.claim_timing, "rounds": state.rounds},
        "round": state.round + 1,
        "rounds": state.rounds,
        "first_player": state.round % 2,
        "turn": state.turn,
        "to_move": list(to_move(state)),
        "phase": state.phase,
        "stones": [
            {
                "index": s,
                "cards": [list(state.sides[s][0]), list(state.sides[s][1])],
                "owner": state.owners[s],
                "completed_first": state.completed_first[s],
                "formations": [_formation_json(side) for side in state.sides[s]],
            }
            for s in range(STONES)
        ],
        "hand": None if seat is None else list(state.hands[seat]),
        "hand_sizes": [len(hand) for hand in state.hands],
        "deck_size": len(state.deck),
        "claimable": _claims_now(state, seat) if mover else [],
        "counter_examples": _counter_examples(state, seat) if mover else [],
        "scores": list(state.scores),
        "round_results": [_result_json(r, i) for i, r in enumerate(state.round_results)],
        "winner": _match_winner(state) if state.phase == OVER else None,
        "last_moves": [_event_json(e) for e in state.last_moves],
    }


def all_cards(state: State) -> list[str]:
    """Every card of the current round's zones: hands, deck and stones, each once."""
    cards = [*state.hands[0], *state.hands[1], *state.deck]
    for pair in state.sides:
        cards.extend(pair[0])
        cards.extend(pair[1])
    return cards


def _public_state(
    data: dict[str, Any], round_index: int, hands: list[list[str]], deck: list[str], seed: Any
) -> State:
    """A State from the public fields shared by ``dump`` and ``view`` plus the hidden zones."""
    stones = data["stones"]
    return State(
        claim_timing=data["options"]["claim_timing"],
        rounds=data["options"]["rounds"],
        seed=seed,
        round=round_index,
        turn=data["turn"],
        phase=data["phase"],
        hands=(tuple(hands[0]), tuple(hands[1])),
        deck=tuple(deck),
        sides=tuple((tuple(st["cards"][0]), tuple(st["cards"][1])) for st in stones),
        owners=tuple(st["owner"] for st in stones),
        completed_first=tuple(st["completed_first"] for st in stones),
        scores=(data["scores"][0], data["scores"][1]),
        round_results=tuple(_result_from_json(r) for r in data["round_results"]),
        last_moves=tuple(_event(**e) for e in data["last_moves"]),
    )


def sample_state(seen: dict[str, Any], rng: random.Random) -> State:
    """A full state consistent with ``seen`` (a :func:`view`), for bots to search on.

    Every card the seat cannot see (not on the table, not in its hand) is dealt at random with
    ``rng`` to the other hand (its size is public) and the deck. The seed is not in the view, so
    a random one is drawn too: later rounds of the sample deal differently from the real match.
    """
    seat = seen["seat"]
    own = list(seen["hand"] or [])
    visible = set(own)
    for st in seen["stones"]:
        for side in st["cards"]:
            visible.update(side)
    unseen = [card for card in DECK if card not in visible]
    rng.shuffle(unseen)
    hands: list[list[str]] = [[], []]
    for s in (0, 1):
        if s == seat:
            hands[s] = own
        else:
            size = seen["hand_sizes"][s]
            hands[s], unseen = unseen[:size], unseen[size:]
    return _public_state(seen, seen["round"] - 1, hands, unseen, rng.getrandbits(62))


def dump(state: State) -> dict[str, Any]:
    """The state as plain JSON; hidden zones under ``"hands"`` and ``"deck"`` (deck[0] next)."""
    return {
        "options": {"claim_timing": state.claim_timing, "rounds": state.rounds},
        "seed": state.seed,
        "round": state.round,
        "turn": state.turn,
        "phase": state.phase,
        "hands": [list(state.hands[0]), list(state.hands[1])],
        "deck": list(state.deck),
        "stones": [
            {
                "cards": [list(state.sides[s][0]), list(state.sides[s][1])],
                "owner": state.owners[s],
                "completed_first": state.completed_first[s],
            }
            for s in range(STONES)
        ],
        "scores": list(state.scores),
        "round_results": [_result_json(r, i) for i, r in enumerate(state.round_results)],
        "last_moves": [_event_json(e) for e in state.last_moves],
    }


def load(data: dict[str, Any]) -> State:
    """The state of a :func:`dump`."""
    return _public_state(data, data["round"], data["hands"], data["deck"], data["seed"])


def reveals_nothing(state: State, seat: int, move: Move) -> bool:
    """Whether ``seat`` playing ``move`` sees nothing it did not know before (a takeback, where
    the club allows them): not when the turn's end draws it a card, nor when the round or the
    game ends. ``move`` must be legal for ``seat``."""
    after = apply(state, seat, move)
    return (
        not is_over(after)
        and after.round == state.round
        and set(after.hands[seat]) <= set(state.hands[seat])
    )
