"""Escoba de 15, as the club plays it (``shared/rules/escoba.md``).

A pure rules module meeting the engine contract of ``games/engine.py``. Everything a hand needs
happens inside :func:`apply`: the re-deals, the last capturer's take, the scoring and the next
hand's deal, so the only decision a seat ever makes is which card to play and what it takes.

Decisions where the rules file is silent (following the seed where it says something):

- The first dealer is drawn by lot from the match seed (seed: "Por sorteo se decide quién es el
  primero que reparte"); play goes up the seat numbers, the mano is the seat after the dealer and
  the deal passes to the next seat every hand.
- Cards are dealt one at a time starting with the mano, then the four table cards.
- The table is a set, so it is kept sorted (by value, then suit) rather than in laying order;
  capture choices and move codes list their cards in that same order.
- The opening escoba counts as its taker's capture for "captured last" (with ``mano`` the mano
  takes it, with ``none`` the four cards simply stay).
- ``penalized``: every capture sums to 15, so "the most value" never separates two captures of
  the same size; the penalty then prefers the capture with the ``7o``, then the most sevens,
  then the most oros (the cards that score), then the first in table order. The taker is the
  next seat in turn order even when that seat has no card left in this round; a penalty on the
  very last card of a hand is taken before the rest of the table goes to the last capturer.
- A "most" point (sevens, cards, oros) needs at least one such card. In a real hand every card is
  taken, so this only matters when :func:`hand_points` is given partial piles.
- The view shows every side's pile (captures happen face up, rules "What a player may see"); bots
  need it to know which cards are still unseen. It keeps the last 10 public events: plays,
  penalty takes, opening escobas and the last capturer's take.
- ``target`` may be 1 to 200 (0: by player count). With pairs, partners share one pile and one
  score; ``outcome`` gives both partners the pair's score and rank.

Move codes: ``l:<card>`` lays a card down, ``c:<card>:<card>+<card>…`` captures (the taken
cards in table order; :func:`parse_move` accepts any order).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache, partial
from itertools import combinations
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

INFO = Info(key="escoba", title=gettext_noop("Escoba de 15"), min_players=2, max_players=4)

SUITS = "oceb"  # oros, copas, espadas, bastos
# Value-major order, so a sorted table reads 1, 1, 2, … and sums are easy to see.
DECK: tuple[str, ...] = tuple(f"{rank}{suit}" for rank in range(1, 11) for suit in SUITS)
VALUE: dict[str, int] = {card: int(card[:-1]) for card in DECK}
_ORDER: dict[str, int] = {card: i for i, card in enumerate(DECK)}
SIETE_DE_OROS = "7o"
_SEVENS = frozenset(card for card in DECK if VALUE[card] == 7)
_OROS = frozenset(card for card in DECK if card.endswith("o"))

HAND_SIZE = 3
TABLE_SIZE = 4
LAST_MOVES = 10  # how many recent public moves the state (and so the view) remembers

CAPTURE_RULES = ("optional", "obligatory", "obligatory_strict", "penalized")
OPENING_MODES = ("dealer", "mano", "none")
TIE_MODES = ("each", "none")

OPTIONS: tuple[Option, ...] = (
    Option(
        name="capture_rule",
        label=gettext_noop("Capture rule"),
        kind="choice",
        default="optional",
        help=gettext_noop(
            "Whether a card that can make 15 may be laid down instead, and what happens then."
        ),
        choices=(
            ("optional", gettext_noop("Optional: any card may be laid down")),
            ("obligatory", gettext_noop("Obligatory: a card that can capture must capture")),
            (
                "obligatory_strict",
                gettext_noop("Strict: if any card in hand can capture, you must capture"),
            ),
            (
                "penalized",
                gettext_noop("Penalized: the next player takes a card that could have captured"),
            ),
        ),
    ),
    Option(
        name="opening_escoba",
        label=gettext_noop("Opening escoba"),
        kind="choice",
        default="dealer",
        help=gettext_noop(
            "Who takes the four table cards of a deal when they make 15 (one escoba) or 30 in "
            "two groups of 15 (two escobas)."
        ),
        choices=(
            ("dealer", gettext_noop("The dealer")),
            ("mano", gettext_noop("The first player (mano)")),
            ("none", gettext_noop("Nobody: the cards stay on the table")),
        ),
    ),
    Option(
        name="tie_points",
        label=gettext_noop("Ties for most"),
        kind="choice",
        default="each",
        help=gettext_noop("Who scores most cards, most oros or most sevens when it is a tie."),
        choices=(
            ("each", gettext_noop("Every tied player or pair scores the point")),
            ("none", gettext_noop("Nobody scores the point")),
        ),
    ),
    Option(
        name="target",
        label=gettext_noop("Target"),
        kind="int",
        default=0,
        help=gettext_noop(
            "Points that end the game; 0 means 21 for two players or two pairs, 31 otherwise."
        ),
        min_value=0,
        max_value=200,
        zero=gettext_noop(
            "By the number of players: 21 with two players or two pairs, 31 otherwise"
        ),
    ),
    Option(
        name="pairs",
        label=gettext_noop("Play in pairs"),
        kind="bool",
        default=False,
        help=gettext_noop("With four players only: seats 1 and 3 against seats 2 and 4."),
    ),
)


# --------------------------------------------------------------------------- values


@dataclass(frozen=True, slots=True)
class Rules:
    """The resolved house rules of one match (``target`` as given: 0 means by player count)."""

    capture_rule: str = "optional"
    opening_escoba: str = "dealer"
    tie_points: str = "each"
    target: int = 0
    pairs: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "capture_rule": self.capture_rule,
            "opening_escoba": self.opening_escoba,
            "tie_points": self.tie_points,
            "target": self.target,
            "pairs": self.pairs,
        }


@dataclass(frozen=True, slots=True)
class Move:
    """Play ``card``; ``take`` is the table cards it captures (empty: the card is laid down).

    Codes: ``l:7o`` lays the 7 de oros down; ``c:7o:3e+5b`` plays it and takes 3e and 5b.
    """

    card: str
    take: tuple[str, ...] = ()

    @property
    def code(self) -> str:
        if self.take:
            return f"c:{self.card}:{'+'.join(self.take)}"
        return f"l:{self.card}"


# Caches of the hot path (issue 4 wants a whole game within 5 ms). Everything in them is a pure
# value that depends only on its key, so they cannot change an answer; each is simply emptied
# when it grows past _CACHE_LIMIT entries. Plain dicts, because a lookup is cheaper than
# through functools.lru_cache.
_CACHE_LIMIT = 1 << 15

# Moves are values, the same whoever makes them: each lay is built once, captures when seen.
_LAY: dict[str, Move] = {card: Move(card) for card in DECK}
_CAPTURES: dict[tuple[str, tuple[str, ...]], Move] = {}


def _capture_move(card: str, take: tuple[str, ...]) -> Move:
    """The move ``Move(card, take)``, built once (callers try ``_CAPTURES`` first)."""
    if len(_CAPTURES) >= _CACHE_LIMIT:
        _CAPTURES.clear()
    move = _CAPTURES[(card, take)] = Move(card, take)
    return move


class Event(NamedTuple):
    """One public happening of a hand, kept for the table's recent-moves list.

    ``kind``: ``capture`` and ``lay`` (``seat`` played ``card``, taking ``cards``); ``penalty``
    (``seat`` takes ``card``, laid by ``from_seat``, with the table ``cards`` it could have
    captured); ``opening`` (``seat`` takes the four opening ``cards``); ``last_take`` (``seat``
    takes what was left on the table). ``escobas`` is how many escobas it scored.
    """

    hand: int
    seat: int
    kind: str
    card: str | None
    cards: tuple[str, ...]
    escobas: int
    from_seat: int | None


# Builds an Event from one tuple without the Python-level NamedTuple.__new__ (apply makes one
# or two a move).
_event = partial(tuple.__new__, Event)


class SideScore(NamedTuple):
    """One side's part of a hand's scoring: the pile counts, then each point scored."""

    cards: int
    oros: int
    sevens: int
    siete_de_oros: bool
    escobas: int
    points_escobas: int
    point_siete_de_oros: int
    point_sevens: int
    point_cards: int
    point_oros: int
    total: int


class HandResult(NamedTuple):
    """The scoring of a finished hand, shown to everyone until the next one ends."""

    hand: int
    dealer: int
    taker: int  # who took the cards left on the table
    taken: tuple[str, ...]
    sides: tuple[SideScore, ...]
    scores: tuple[int, ...]  # running totals after this hand


@dataclass(frozen=True)
class State:
    """A whole match: the current hand's zones, the running scores and the public history."""

    players: int
    rules: Rules
    target: int  # the effective target (the option resolved by player count)
    seed: int
    hand: int  # number of the current hand, from 1 (the last one once the game is over)
    dealer: int
    turn: int  # the seat to play; -1 once the game is over
    hands: tuple[tuple[str, ...], ...]  # per seat, in hand order
    deck: tuple[str, ...]  # undealt, in deal order
    table: tuple[str, ...]  # sorted in DECK order
    piles: tuple[tuple[str, ...], ...]  # per side, in capture order
    escobas: tuple[int, ...]  # per side, this hand
    last_capturer: int | None  # seat
    scores: tuple[int, ...]  # per side, before the current hand
    last_moves: tuple[Event, ...]
    last_hand: HandResult | None


def _clear_caches() -> None:
    """Empty the engine's caches (for benchmarks that want to time a cold start)."""
    _SETS.clear()
    _CAPTURES.clear()
    _half_sets.cache_clear()


# --------------------------------------------------------------------------- rule helpers


Positions = tuple[int, ...]


@lru_cache(maxsize=4096)
def _half_sets(values: tuple[int, ...], offset: int) -> dict[int, tuple[Positions, ...]]:
    """Every set of positions of ``values`` (numbered from ``offset``; the empty set too)
    adding up to at most 14, by sum.

    Half a table holds few cards, so there are only a few thousand such keys and this cache is
    almost always hit.
    """
    combos: list[tuple[int, Positions]] = [(0, ())]
    for i, value in enumerate(values, offset):
        combos += [(s + value, t + (i,)) for s, t in combos if s + value <= 14]
    by_sum: dict[int, list[Positions]] = {}
    for total, combo in combos:
        by_sum.setdefault(total, []).append(combo)
    return {total: tuple(sets) for total, sets in by_sum.items()}


_SETS: dict[tuple[tuple[int, ...], int], tuple[Positions, ...]] = {}


def _sets_making(values: tuple[int, ...], need: int) -> tuple[Positions, ...]:
    """Every set of positions of ``values`` whose values add up to ``need`` (at most 14).

    Which table cards make 15 with a card depends only on the values, never on the suits, and
    the same tables come back over and over, so the answer is kept in ``_SETS`` (callers on
    the hot path look there first). The search meets in the middle: the sets of the two
    halves of the table are paired up by sum. Each set lists its positions in ascending order.
    """
    found = _SETS.get((values, need))
    if found is not None:
        return found
    if len(_SETS) >= _CACHE_LIMIT:
        _SETS.clear()
    _SETS[(values, need)] = found = _pair_halves(values, need)
    return found


def _pair_halves(values: tuple[int, ...], need: int) -> tuple[Positions, ...]:
    half = len(values) // 2
    low = _half_sets(values[:half], 0)
    high = _half_sets(values[half:], half)
    found: list[Positions] = []
    for total, low_sets in low.items():
        high_sets = high.get(need - total)
        if high_sets:
            found += [a + b for a in low_sets for b in high_sets]
    return tuple(found)


def _captures(table: Sequence[str], cards: Sequence[str]) -> list[tuple[str, tuple[str, ...]]]:
    """Every ``(card, take)`` with ``card`` from ``cards`` and ``take`` table cards making 15;
    ``take`` keeps the table's order."""
    if not table:
        return []
    values = tuple(map(VALUE.__getitem__, table))
    found: list[tuple[str, tuple[str, ...]]] = []
    for card in cards:
        for at in _sets_making(values, 15 - VALUE[card]):
            found.append((card, tuple(map(table.__getitem__, at))))
    return found


def capture_options(card: str, table: Sequence[str]) -> list[tuple[str, ...]]:
    """Every set of table cards that makes 15 with ``card`` (rules "A hand", step 4: Capture).

    Cards of equal value are distinct cards, so each set is listed separately; every set keeps
    the order of ``table``. An empty list means the card cannot capture.
    """
    return [take for _, take in _captures(tuple(table), (card,))]


def opening_escobas(table: Sequence[str]) -> int:
    """Escobas in the opening table cards (rules "A hand", step 2: Dealer's escoba).

    1 if they add up to exactly 15; 2 if they add up to 30 and split into two groups of 15;
    otherwise 0 (a smaller group summing to 15 does not count).
    """
    total = sum(VALUE[card] for card in table)
    if total == 15:
        return 1
    if total == 30:
        values = [VALUE[card] for card in table]
        # A part making 15 leaves a complement making 15 too.
        for size in range(1, len(values)):
            if any(sum(part) == 15 for part in combinations(values, size)):
                return 2
    return 0


def _breakdown(
    piles: Sequence[Sequence[str]], escobas: Sequence[int], tie_points: str
) -> list[SideScore]:
    """The scoring of one hand per side (rules "Scoring each hand")."""
    cards = [len(pile) for pile in piles]
    oros = [len(_OROS.intersection(pile)) for pile in piles]
    sevens = [len(_SEVENS.intersection(pile)) for pile in piles]
    siete = [SIETE_DE_OROS in pile for pile in piles]

    def most(counts: list[int]) -> list[int]:
        best = max(counts)
        if best == 0:  # nobody has any: nobody has "the most"
            return [0] * len(counts)
        winners = [int(n == best) for n in counts]
        if sum(winners) > 1 and tie_points == "none":
            return [0] * len(counts)
        return winners

    p_sevens, p_cards, p_oros = most(sevens), most(cards), most(oros)
    out = []
    for i in range(len(piles)):
        p_siete = int(siete[i])
        total = escobas[i] + p_siete + p_sevens[i] + p_cards[i] + p_oros[i]
        out.append(
            SideScore(
                cards[i],
                oros[i],
                sevens[i],
                siete[i],
                escobas[i],
                escobas[i],
                p_siete,
                p_sevens[i],
                p_cards[i],
                p_oros[i],
                total,
            )
        )
    return out


def _check_tie_points(tie_points: str) -> None:
    if tie_points not in TIE_MODES:
        raise ValueError(f"tie_points must be one of {TIE_MODES}, not {tie_points!r}")


def hand_points(
    piles: Sequence[Sequence[str]], escobas: Sequence[int], tie_points: str = "each"
) -> list[int]:
    """Each side's points for a hand (rules "Scoring each hand").

    ``piles[i]`` are the cards side ``i`` took (a pair's two piles together), ``escobas[i]``
    its escobas: 1 per escoba, 1 for the ``7o``, 1 each for the most sevens, most cards and most
    oros. A tie for "most" gives the point to every tied side (``tie_points="each"``) or to
    nobody (``"none"``).
    """
    _check_tie_points(tie_points)
    return [side.total for side in _breakdown(piles, escobas, tie_points)]


def _side_score_dict(side: SideScore) -> dict[str, Any]:
    return {
        "cards": side.cards,
        "oros": side.oros,
        "sevens": side.sevens,
        "siete_de_oros": side.siete_de_oros,
        "escobas": side.escobas,
        "points": {
            "escobas": side.points_escobas,
            "siete_de_oros": side.point_siete_de_oros,
            "sevens": side.point_sevens,
            "cards": side.point_cards,
            "oros": side.point_oros,
        },
        "total": side.total,
    }


def _penalty_capture(options: list[tuple[str, ...]]) -> tuple[str, ...]:
    """The capture a penalty takes (rules "Capture rule", ``penalized``).

    The most cards, then the most value; every capture makes 15 with the same card, so the
    value never decides, and the scoring cards do: the 7o, then the most sevens, then the most
    oros; last, the capture whose cards come first in table order.
    """
    return min(
        options,
        key=lambda take: (
            -len(take),
            -sum(VALUE[c] for c in take),
            SIETE_DE_OROS not in take,
            -len(_SEVENS.intersection(take)),
            -len(_OROS.intersection(take)),
            [_ORDER[c] for c in take],
        ),
    )


# --------------------------------------------------------------------------- sides & options


def sides_of(players: int, pairs: bool) -> list[list[int]]:
    """The seats of each side: pairs play seats 0+2 against 1+3 (rules "Material")."""
    if pairs:
        return [[0, 2], [1, 3]]
    return [[seat] for seat in range(players)]


def _side(state: State, seat: int) -> int:
    return seat % 2 if state.rules.pairs else seat


def default_target(players: int, pairs: bool) -> int:
    """21 with two players or two pairs, 31 with three, or four individually (rules "The game")."""
    return 21 if players == 2 or pairs else 31


def _resolve(players: int, options: dict | None) -> Rules:
    check_players(INFO, players)
    resolved = resolve_options(OPTIONS, options)
    if resolved["pairs"] and players != 4:
        raise InvalidOptions(
            gettext_noop("Playing in pairs needs exactly 4 players, not %(players)s."),
            players=players,
        )
    return Rules(**resolved)


# --------------------------------------------------------------------------- dealing


def _deal_round(
    cards: Sequence[str], players: int, first: int
) -> tuple[tuple[tuple[str, ...], ...], int]:
    """Three cards to each player, one at a time from ``first`` (rules "A hand", steps 1 and 5).

    Returns the hands and how many cards were dealt. Dealing one at a time, the k-th player
    from ``first`` gets every ``players``-th card from the k-th on.
    """
    dealt = HAND_SIZE * players
    hands: list[tuple[str, ...]] = [()] * players
    for k in range(players):
        hands[(first + k) % players] = tuple(cards[k:dealt:players])
    return tuple(hands), dealt


def _sorted(cards: Sequence[str]) -> tuple[str, ...]:
    return tuple(sorted(cards, key=_ORDER.__getitem__))


def _start_hand(
    players: int,
    rules: Rules,
    target: int,
    seed: int,
    hand: int,
    dealer: int,
    scores: tuple[int, ...],
    last_moves: tuple[Event, ...],
    last_hand: HandResult | None,
) -> State:
    """Shuffle, deal and resolve the opening escoba (rules "A hand", steps 1-3)."""
    cards = shuffled(DECK, seed, "hand", hand)
    mano = (dealer + 1) % players
    hands, pos = _deal_round(cards, players, mano)
    table = _sorted(cards[pos : pos + TABLE_SIZE])
    deck = tuple(cards[pos + TABLE_SIZE :])
    n_sides = 2 if rules.pairs else players
    piles: list[tuple[str, ...]] = [()] * n_sides
    escobas = [0] * n_sides
    last_capturer = None
    if rules.opening_escoba != "none":
        won = opening_escobas(table)
        if won:
            taker = dealer if rules.opening_escoba == "dealer" else mano
            side = taker % 2 if rules.pairs else taker
            piles[side] = table
            escobas[side] = won
            # The opening take is a capture: it counts for "captured last".
            last_capturer = taker
            last_moves = (*last_moves, _event((hand, taker, "opening", None, table, won, None)))[
                -LAST_MOVES:
            ]
            table = ()
    return State(
        players=players,
        rules=rules,
        target=target,
        seed=seed,
        hand=hand,
        dealer=dealer,
        turn=mano,
        hands=hands,
        deck=deck,
        table=table,
        piles=tuple(piles),
        escobas=tuple(escobas),
        last_capturer=last_capturer,
        scores=scores,
        last_moves=last_moves,
        last_hand=last_hand,
    )


# --------------------------------------------------------------------------- the contract


def new_game(players: int, options: dict | None = None, seed: int = 0) -> State:
    """The first hand, dealt (rules "A hand" and "The game"); bad options raise InvalidOptions."""
    rules = _resolve(players, options)
    target = rules.target or default_target(players, rules.pairs)
    # Seed: "Por sorteo se decide quién es el primero que reparte".
    dealer = rng_for(seed, "first-dealer").randrange(players)
    n_sides = 2 if rules.pairs else players
    return _start_hand(players, rules, target, seed, 1, dealer, (0,) * n_sides, (), None)


def to_move(state: State) -> tuple[int, ...]:
    """The seat whose turn it is (rules "A hand", step 3: round the table from the mano)."""
    return () if state.turn < 0 else (state.turn,)


def is_over(state: State) -> bool:
    """True once a hand ended with a single highest total at or above the target."""
    return state.turn < 0


def legal_moves(state: State, seat: int) -> list[Move]:
    """Every play of ``seat``: each capture choice separately, and the allowed lays.

    Rules "A hand", step 4, and "Capture rule": ``optional`` and ``penalized`` allow every lay;
    ``obligatory`` forbids laying a card that can capture; ``obligatory_strict`` allows only
    captures when any card in hand can capture. No rule forces the largest capture.
    """
    if seat != state.turn:
        return []
    hand = state.hands[seat]
    table = state.table
    if not table:
        return [_LAY[card] for card in hand]
    # _captures, inlined: this is the hottest function of a game.
    values = tuple(map(VALUE.__getitem__, table))
    lay_capturers = state.rules.capture_rule in ("optional", "penalized")
    captures: list[Move] = []
    lays: list[Move] = []
    pick = table.__getitem__
    for card in hand:
        # _sets_making and _capture_move, their caches looked up inline.
        key = (values, 15 - VALUE[card])
        sets = _SETS.get(key)
        if sets is None:
            sets = _sets_making(*key)
        if sets:
            for at in sets:
                take = tuple(map(pick, at))
                move = _CAPTURES.get((card, take))
                captures.append(move if move is not None else _capture_move(card, take))
            if lay_capturers:
                lays.append(_LAY[card])
        else:
            lays.append(_LAY[card])
    if not captures:
        return lays
    if state.rules.capture_rule == "obligatory_strict":
        return captures
    captures += lays
    return captures


_CODE_HELP = gettext_noop(
    "That is not an Escoba move: write l:<card> to lay a card down or c:<card>:<card>+<card> "
    "to capture, with cards such as 7o or 10b."
)


def parse_move(code: str) -> Move:
    """The move for a code (``l:7o`` or ``c:7o:3e+5b``); anything else raises InvalidMove."""
    # Long enough for every card of a table: a member picks the cards to take by checking
    # them, and a pick of too many must be told its sum, not that it is no move at all.
    if not isinstance(code, str) or len(code) > 200:
        raise InvalidMove(_CODE_HELP)
    parts = code.split(":")
    if len(parts) == 2 and parts[0] == "l" and parts[1] in VALUE:
        return Move(parts[1])
    if len(parts) == 3 and parts[0] == "c" and parts[1] in VALUE:
        take = parts[2].split("+")
        if (
            all(card in VALUE for card in take)
            and len(set(take)) == len(take)
            and parts[1] not in take
        ):
            return Move(parts[1], _sorted(take))
    raise InvalidMove(_CODE_HELP)


def apply(state: State, seat: int, move: Move) -> State:
    """Play one card (rules "A hand", steps 4-6, and "Capture rule"); the next state.

    A capture takes the card and the chosen table cards, an escoba if the table is left empty;
    otherwise the card is laid down, and under ``penalized`` a card that could have captured is
    taken at once by the next player. After the last card of a round the next three are dealt;
    after the last card of the hand the last capturer takes the rest, the hand is scored and,
    unless the game is over, the next hand is dealt by the next seat.
    """
    if not isinstance(move, Move):
        raise InvalidMove(_CODE_HELP)
    if state.turn < 0:
        raise IllegalMove(gettext_noop("The game is over."))
    if seat != state.turn:
        raise IllegalMove(
            gettext_noop("It is not your turn: seat %(seat)s is to play."), seat=state.turn
        )
    hand = state.hands[seat]
    card = move.card
    if card not in hand:
        raise IllegalMove(gettext_noop("You do not hold %(card)s."), card=card)
    table = state.table
    players = state.players
    piles = state.piles
    escobas = state.escobas
    last_capturer = state.last_capturer
    number = state.hand
    take = move.take

    if take:
        for taken in take:
            if taken not in table:
                raise IllegalMove(gettext_noop("%(card)s is not on the table."), card=taken)
        if len(set(take)) != len(take):
            raise IllegalMove(gettext_noop("A card can be taken only once."))
        total = VALUE[card]
        for taken in take:
            total += VALUE[taken]
        if total != 15:
            raise IllegalMove(
                gettext_noop("%(card)s and the table cards you picked make %(total)s, not 15."),
                card=card,
                total=total,
            )
        # In table order, whatever order the move listed them in.
        take = tuple([c for c in table if c in take])
        table = tuple([c for c in table if c not in take])
        escoba = 0 if table else 1
        side = seat % 2 if state.rules.pairs else seat
        piles = piles[:side] + (piles[side] + (card, *take),) + piles[side + 1 :]
        if escoba:
            escobas = escobas[:side] + (escobas[side] + 1,) + escobas[side + 1 :]
        last_capturer = seat
        events: tuple[Event, ...] = (_event((number, seat, "capture", card, take, escoba, None)),)
    else:
        events = (_event((number, seat, "lay", card, (), 0, None)),)
        rule = state.rules.capture_rule
        options = []
        if rule != "optional":
            found = _captures(table, hand if rule == "obligatory_strict" else (card,))
            options = [t for c, t in found if c == card]
            if rule == "obligatory" and options:
                raise IllegalMove(
                    gettext_noop("%(card)s can make 15, so it must capture (obligatory capture)."),
                    card=card,
                )
            if rule == "obligatory_strict" and found:
                raise IllegalMove(
                    gettext_noop(
                        "%(card)s can make 15, so you must capture with a card "
                        "(strict obligatory capture)."
                    ),
                    card=found[0][0],
                )
        if options:  # penalized: renuncio
            # The next player (with pairs, always the other pair) takes it at once.
            take = _penalty_capture(options)
            taker = (seat + 1) % players
            table = tuple([c for c in table if c not in take])
            side = taker % 2 if state.rules.pairs else taker
            piles = piles[:side] + (piles[side] + (card, *take),) + piles[side + 1 :]
            last_capturer = taker
            events += (_event((number, taker, "penalty", card, take, 0, seat)),)
        else:
            table = tuple(sorted((*table, card), key=_ORDER.__getitem__))

    at = hand.index(card)
    hands = state.hands
    hands = hands[:seat] + (hand[:at] + hand[at + 1 :],) + hands[seat + 1 :]
    last_moves = (state.last_moves + events)[-LAST_MOVES:]
    turn = (seat + 1) % players
    deck = state.deck
    # Play goes round from the mano to the dealer, so a round is over exactly when the dealer
    # has played their last card.
    if seat == state.dealer and not hand[1:]:
        if not deck:
            return _end_hand(state, table, piles, escobas, last_capturer, last_moves)
        # A new round: the mano (the next seat) is dealt first.
        hands, dealt = _deal_round(deck, players, turn)
        deck = deck[dealt:]
    # dataclasses.replace, by hand: a game makes ~300 moves and must take under 5 ms
    # (issue 4), and running the 16-field frozen __init__ (or replace) is a large share of
    # that. Copying the field dict builds an equal instance without it.
    new = object.__new__(State)
    fields = new.__dict__
    fields.update(state.__dict__)
    fields["turn"] = turn
    fields["hands"] = hands
    fields["deck"] = deck
    fields["table"] = table
    fields["piles"] = piles
    fields["escobas"] = escobas
    fields["last_capturer"] = last_capturer
    fields["last_moves"] = last_moves
    return new


def _end_hand(
    state: State,
    table: tuple[str, ...],
    piles: tuple[tuple[str, ...], ...],
    escobas: tuple[int, ...],
    last_capturer: int | None,
    last_moves: tuple[Event, ...],
) -> State:
    """The rest to the last capturer, scoring, and the game's end or the next hand.

    Rules "A hand", step 6 (nobody captured: the dealer takes the rest; never an escoba),
    "Scoring each hand" and "The game" (the target reached with a single highest total ends the
    game; a tie at the top plays another hand; the deal passes to the next seat).
    """
    taker = state.dealer if last_capturer is None else last_capturer
    side = _side(state, taker)
    piles = piles[:side] + (piles[side] + table,) + piles[side + 1 :]
    last_moves = (*last_moves, _event((state.hand, taker, "last_take", None, table, 0, None)))[
        -LAST_MOVES:
    ]
    sides = _breakdown(piles, escobas, state.rules.tie_points)
    scores = tuple(score + side.total for score, side in zip(state.scores, sides, strict=True))
    result = HandResult(state.hand, state.dealer, taker, table, tuple(sides), scores)
    best = max(scores)
    over = best >= state.target and scores.count(best) == 1
    if over:
        return State(
            players=state.players,
            rules=state.rules,
            target=state.target,
            seed=state.seed,
            hand=state.hand,
            dealer=state.dealer,
            turn=-1,
            hands=tuple(() for _ in state.hands),  # every card has been played
            deck=(),
            table=(),
            piles=piles,
            escobas=escobas,
            last_capturer=last_capturer,
            scores=scores,
            last_moves=last_moves,
            last_hand=result,
        )
    return _start_hand(
        state.players,
        state.rules,
        state.target,
        state.seed,
        state.hand + 1,
        (state.dealer + 1) % state.players,
        scores,
        last_moves,
        result,
    )


def outcome(state: State) -> list[dict[str, int]]:
    """Each seat's final total and rank, partners sharing theirs (rules "The game")."""
    if not is_over(state):
        raise ValueError("the game is not over")
    out = []
    for seat in range(state.players):
        score = state.scores[_side(state, seat)]
        rank = 1 + sum(1 for other in state.scores if other > score)
        out.append({"seat": seat, "score": score, "rank": rank})
    return out


# --------------------------------------------------------------------------- view


def _event_dict(event: Event) -> dict[str, Any]:
    return {
        "hand": event.hand,
        "seat": event.seat,
        "kind": event.kind,
        "card": event.card,
        "cards": list(event.cards),
        "escobas": event.escobas,
        "from_seat": event.from_seat,
    }


def _pile_stats(pile: Sequence[str]) -> dict[str, Any]:
    return {
        "cards": len(pile),
        "oros": sum(1 for c in pile if c in _OROS),
        "sevens": sum(1 for c in pile if c in _SEVENS),
        "siete_de_oros": SIETE_DE_OROS in pile,
    }


apply_logged = logged_apply(apply, LAST_MOVES, _event_dict)


def view(state: State, seat: int | None) -> dict[str, Any]:
    """What ``seat`` may see (rules "What a player may see"); ``None`` is a spectator.

    Own hand, table, hand sizes, deck size, dealer/mano/turn, every side's pile (captures are
    face up) with its statistics, escobas and running score, the target, the last finished
    hand's scoring, and the recent public moves. Never another hand, the deck or the seed.
    """
    over = state.turn < 0
    seat_sides = sides_of(state.players, state.rules.pairs)
    sides = []
    for i, seats in enumerate(seat_sides):
        entry = {"side": i, "seats": seats, "pile": list(state.piles[i])}
        entry.update(_pile_stats(state.piles[i]))
        entry["escobas"] = state.escobas[i]
        entry["score"] = state.scores[i]
        sides.append(entry)
    last_hand = None
    if state.last_hand is not None:
        last_hand = _hand_result_dict(state.last_hand)
        for i, side in enumerate(last_hand["sides"]):
            side.update(side=i, seats=seat_sides[i])
    return {
        "game": INFO.key,
        "seat": seat,
        "players": state.players,
        "options": state.rules.as_dict(),
        "target": state.target,
        "pairs": state.rules.pairs,
        "side_of": [_side(state, s) for s in range(state.players)],
        "phase": "over" if over else "play",
        "hand_number": state.hand,
        "dealer": state.dealer,
        "mano": (state.dealer + 1) % state.players,
        "turn": None if over else state.turn,
        "to_move": list(to_move(state)),
        "hand": None if seat is None else list(state.hands[seat]),
        "hand_sizes": [len(cards) for cards in state.hands],
        "table": list(state.table),
        "deck_size": len(state.deck),
        "last_capturer": state.last_capturer,
        "sides": sides,
        "scores": list(state.scores),
        "last_hand": last_hand,
        "last_moves": [_event_dict(e) for e in state.last_moves],
        "outcome": outcome(state) if over else None,
    }


def _event_from(data: dict[str, Any] | list) -> Event:
    # The dump stores an event as a list, the view as a dict.
    fields = [data[name] for name in Event._fields] if isinstance(data, dict) else list(data)
    hand, seat, kind, card, cards, escobas, from_seat = fields
    return Event(hand, seat, kind, card, tuple(cards), escobas, from_seat)


def _hand_result_from(data: dict[str, Any]) -> HandResult:
    sides = tuple(
        SideScore(
            side["cards"],
            side["oros"],
            side["sevens"],
            side["siete_de_oros"],
            side["escobas"],
            side["points"]["escobas"],
            side["points"]["siete_de_oros"],
            side["points"]["sevens"],
            side["points"]["cards"],
            side["points"]["oros"],
            side["total"],
        )
        for side in data["sides"]
    )
    return HandResult(
        data["hand"],
        data["dealer"],
        data["taker"],
        tuple(data["taken"]),
        sides,
        tuple(side["score"] for side in data["sides"]),
    )


def sample_state(seen: dict[str, Any], rng: random.Random) -> State:
    """A full state consistent with ``seen`` (a :func:`view`), unseen cards dealt with ``rng``.

    Everything public is copied from the view; the cards the seat cannot see (other hands and
    the deck) are shuffled among those seats and the deck, keeping every hand size. The seed is
    unknown, so later hands get a random one.
    """
    players = seen["players"]
    rules = Rules(**seen["options"])
    seat = seen["seat"]
    own = tuple(seen["hand"] or ())
    known = set(own).union(seen["table"])
    for side in seen["sides"]:
        known.update(side["pile"])
    unseen = [card for card in DECK if card not in known]
    rng.shuffle(unseen)
    hands = []
    pos = 0
    for s, size in enumerate(seen["hand_sizes"]):
        if s == seat:
            hands.append(own)
        else:
            hands.append(tuple(unseen[pos : pos + size]))
            pos += size
    deck = tuple(unseen[pos:])
    if len(deck) != seen["deck_size"]:
        raise ValueError("the view's card counts do not add up to the deck")
    over = seen["phase"] == "over"
    return State(
        players=players,
        rules=rules,
        target=seen["target"],
        seed=rng.getrandbits(32),
        hand=seen["hand_number"],
        dealer=seen["dealer"],
        turn=-1 if over else seen["turn"],
        hands=tuple(hands),
        deck=deck,
        table=tuple(seen["table"]),
        piles=tuple(tuple(side["pile"]) for side in seen["sides"]),
        escobas=tuple(side["escobas"] for side in seen["sides"]),
        last_capturer=seen["last_capturer"],
        scores=tuple(seen["scores"]),
        last_moves=tuple(_event_from(e) for e in seen["last_moves"]),
        last_hand=None if seen["last_hand"] is None else _hand_result_from(seen["last_hand"]),
    )


# --------------------------------------------------------------------------- storage


def all_cards(state: State) -> list[str]:
    """Every card in some zone: hands, deck, table and piles (40 at all times)."""
    cards = [card for hand in state.hands for card in hand]
    cards += state.deck
    cards += state.table
    for pile in state.piles:
        cards += pile
    return cards


def _hand_result_dict(result: HandResult) -> dict[str, Any]:
    """A scored hand as plain data: who dealt, who took the last cards, each side's breakdown
    and running score (the view adds each side's seats)."""
    return {
        "hand": result.hand,
        "dealer": result.dealer,
        "taker": result.taker,
        "taken": list(result.taken),
        "sides": [
            {**_side_score_dict(side), "score": score}
            for side, score in zip(result.sides, result.scores, strict=True)
        ],
    }


def dump(state: State) -> dict[str, Any]:
    """The state as plain JSON; hidden zones under ``"hands"`` and ``"deck"``."""
    last_hand = None if state.last_hand is None else _hand_result_dict(state.last_hand)
    return {
        "players": state.players,
        "options": state.rules.as_dict(),
        "seed": state.seed,
        "hand": state.hand,
        "dealer": state.dealer,
        "turn": state.turn,
        "hands": [list(h) for h in state.hands],
        "deck": list(state.deck),
        "table": list(state.table),
        "piles": [list(p) for p in state.piles],
        "escobas": list(state.escobas),
        "last_capturer": state.last_capturer,
        "scores": list(state.scores),
        "last_moves": [
            list(e[:4]) + [list(e.cards), e.escobas, e.from_seat] for e in state.last_moves
        ],
        "last_hand": last_hand,
    }


def load(data: dict[str, Any]) -> State:
    """The state :func:`dump` wrote (``dump(load(d)) == d``)."""
    players = data["players"]
    rules = _resolve(players, data["options"])
    return State(
        players=players,
        rules=rules,
        target=rules.target or default_target(players, rules.pairs),
        seed=data["seed"],
        hand=data["hand"],
        dealer=data["dealer"],
        turn=data["turn"],
        hands=tuple(tuple(h) for h in data["hands"]),
        deck=tuple(data["deck"]),
        table=tuple(data["table"]),
        piles=tuple(tuple(p) for p in data["piles"]),
        escobas=tuple(data["escobas"]),
        last_capturer=data["last_capturer"],
        scores=tuple(data["scores"]),
        last_moves=tuple(_event_from(e) for e in data["last_moves"]),
        last_hand=None if data["last_hand"] is None else _hand_result_from(data["last_hand"]),
    )


def reveals_nothing(state: State, seat: int, move: Move) -> bool:
    """Whether ``seat`` playing ``move`` sees nothing it did not know before (rules: a takeback,
    where the club allows them): true unless the move ends the hand (a new deal shows new cards)
    or the game, or empties the hands so that three more cards are dealt. ``move`` must be legal
    for ``seat``."""
    after = apply(state, seat, move)
    return (
        not is_over(after)
        and after.hand == state.hand
        and set(after.hands[seat]) <= set(state.hands[seat])
    )
