"""Scout bots: ``easy`` (a hand-shape heuristic) and ``hard`` (flat Monte-Carlo over sampled deals).

Both read only what their seat's ``view`` shows and answer with one of the ``moves`` they were
given (:func:`choose`). Cards are handled as the engine's ints, ``up << 4 | down`` (the engine's
docstring documents that encoding), so the same policy code serves the real decision and the
thousands of simulated ones the hard bot makes.

What a good Scout hand looks like. Cards in hand are a debt (-1 each at the end of the round,
unless you end it) and every show sheds one *window* of adjacent cards, so a hand is worth what
its windows are worth: long runs and groups shed many cards in one turn and beat almost anything,
while an isolated card needs a turn of its own and is easily beaten.

``easy`` (tens of microseconds a move, no search) scores its candidate moves in rough points:

- keep or rotate: the orientation with the better :func:`hand_value`, the best cut of the hand
  into sets (a short dynamic programme over the hand order: fewer, longer sets are better);
- show: taking the active set is worth its cards, and emptying the hand ends the round in our
  favour (we are exempt, the others pay for their hands); beyond that, shedding more cards is
  better, a show that cuts a run or group in two is worse, and one whose removal brings two
  linked cards together a little better. A good show (``SHOW_FIRST``) is made at once;
- scout: the end and side of the card that extends a run or group of the hand the most,
  inserted where it joins it, never between two cards that already go together; a card that
  joins nothing goes to the right end of the hand, where it breaks nothing;
- scout & show (3-5 players) when it wins a big set: its price is the chip (once a round) and
  the owner's token, so it has to take several cards or make a long set; with 2 players a paid
  scout is only made when a show that beats what is left follows it, otherwise the bot shows
  what it can, or passes when it cannot;
- with 3-5 players a plain scout by the seat just before the owner ends the round with our hand
  counted (also when it takes the set's last card: the owner keeps an emptied set), so it is
  scored as that loss.

``hard``: determinized flat Monte-Carlo with easy as the playout policy (issue 35 rebuilt it
for the big tables). The candidates are easy's choice, its next best few and the best move of
every other kind (show, scout, scout & show, pass): passing at the right moment is where easy
loses most with 2 players. Each sample is a deal of the hidden cards consistent with the view
(:func:`engine.sample_state`), with the cards we saw a seat scout put back in its hand
(:func:`_sample`). Every candidate is applied to the same deal and the round is played to its
end in :mod:`._bot_sim` (a bare model of the round, several times cheaper than the engine's
``apply``) with every other seat playing easy, which plays as the strongest published Scout
heuristic does (issue 35); our own seat plays easy with the chip's cost falling to nothing as
the round nears its end (:func:`_chip_cost`). A candidate scores its seat's round points minus
the others' mean (plus a bonus for winning the game, in the last round), with our own ender
exemption counted as the risk it is: only part of the hand it spares (``EXEMPT_RISK``), so a
big hand held while others can end the round costs what it may cost. Comparing the candidates
on the same deals (paired differences) removes most of the luck of the deal, and sequential
halving spends the budget where the noise is: every candidate gets the first deals, the worse
half is dropped after each share of the work, and the last two get most of it; easy's choice
is only left for a move that beats it by ``HARD_Z`` standard errors. The budget is simulated
moves, not playouts (``HARD_WORK`` by table size, :func:`_budget`): playouts shorten as the
round's cards run out, so the deals per move grow with it. The work ends the search, so a
given rng gives the same move on any machine, however busy; the ``HARD_TIME_LIMIT`` deadline
(checked after every playout) is only a safety net far above that work's time on an idle core.

A round can still go round in circles with 3-5 players, though a set scouted away now keeps its
owner (the engine's docstring): when every show lands on the empty table and is scouted away
before the turn comes back to its owner, no card is ever taken and the cards only move from hand
to hand. The rules do not end such a round, nor does the engine; easy, being deterministic, can
follow one for ever (seen in simulated deals: 4 players with 1 to 3 cards each, one- and
two-card shows in turn, every one scouted away). So two bounds stay, and they are what ends it:
in a real match, both levels notice the circle (:func:`_stalling`) and play one of easy's moves
at random, drawn with the rng, which changes the hands and soon lets a show take a set; in the
hard level's simulations, a round is cut off after ``PLAYOUT_CAP`` moves (:func:`_playout`).
"""

from __future__ import annotations

import dataclasses
import math
import random
import time
from collections.abc import Sequence
from typing import Any

from games.bot_search import without_gc
from games.scout import _bot_sim, engine
from games.scout.engine import KEEP, PASS, ROTATE, Decide, Pass, Scout, ScoutShow, Show

LEVELS = ("easy", "hard")

# Hard: the search stops after HARD_WORK units of work (by table size, see _budget) or at
# the deadline (seconds after the call), whichever comes first. It weighs easy's choice, its
# HARD_CANDIDATES next best and the best of every other kind by sequential halving, and leaves
# easy's choice only for one HARD_Z standard errors better.
HARD_WORK = {2: 30000, 3: 36000, 4: 42000, 5: 36000}
HARD_TIME_LIMIT = 5.0  # a safety net only: the playouts end a normal search (issue 18)
HARD_CANDIDATES = 6
HARD_Z = 1.0
PRIOR_SPREAD = 9.0  # the usual variance of a paired difference (points squared)
WIN_WEIGHT = 4.0  # last round: a win of the game is worth this many points of margin
PLAYOUT_CAP = 300  # moves: a simulated round going on longer goes round in circles
STALL_MOVES = 10  # recent moves without a card taken that make a real round look stuck

# Easy's weights, in rough "points" (a card taken or a token is one point).
W_TAKE = 1.0  # per card of the active set taken
W_SHED = 0.4  # per card shed from the hand
W_BREAK = 0.8  # per side of a show / insertion that separates two linked cards
W_JOIN = 0.5  # a show whose removal puts two linked cards next to each other
W_LINK = 0.9  # per card of the hand a scouted card joins in a set
W_HIGH = 0.03  # per pip of a lone card: a high single is beaten less often
SCOUT_COST = 0.8  # 3-5 players: the owner's token, and one more card to shed
TOKEN_COST = 1.0  # 2 players: the token paid
CHIP_COST = 1.0  # the scout & show chip is used once a round: keep it for a big set
CHIP_FADE = 4.0  # hard's playouts: the chip's cost falls over another hand's last cards
EXEMPT_RISK = 0.8  # hard's playouts: the share of an exempt hand still counted against us
END_BONUS = 3.0  # emptying the hand: exempt from the count, and the others pay theirs
SHOW_FIRST = 1.0  # a show worth this much is made without looking at the scouts


# --------------------------------------------------------------------------------------------
# Hand shape
# --------------------------------------------------------------------------------------------


def _card(text: str) -> int:
    up, down = text.split("/")
    return int(up) << 4 | int(down)


def _flip(card: int) -> int:
    return (card & 15) << 4 | card >> 4


def _piece(length: int, low: int, group: bool) -> float:
    """What one set of the cut is worth: a turn to shed it, less the more it sheds and beats."""
    if length == 1:
        return -1.0 + 0.03 * low
    return -1.0 + 0.45 * (length - 1) + (0.1 if group else 0.0) + 0.02 * low


def hand_value(vals: Sequence[int]) -> float:
    """A hand's shape: the best cut of its values, in hand order, into sets (see ``_piece``).

    ``best[j]`` is the value of the first ``j`` cards; the last piece ends at ``j - 1`` and is
    a single, or a window of the matching / rising / falling stretch that ends there. A hand of
    isolated cards scores about -1 a card, long runs and groups much better.
    """
    n = len(vals)
    best = [0.0] * (n + 1)
    same = rise = fall = 0
    for j in range(n):
        v = vals[j]
        step = v - vals[j - 1] if j else 9
        same = same + 1 if step == 0 else 1
        rise = rise + 1 if step == 1 else 1
        fall = fall + 1 if step == -1 else 1
        top = best[j] + _piece(1, v, False)
        for length in range(2, same + 1):
            top = max(top, best[j + 1 - length] + _piece(length, v, True))
        for length in range(2, rise + 1):
            top = max(top, best[j + 1 - length] + _piece(length, v - length + 1, False))
        for length in range(2, fall + 1):
            top = max(top, best[j + 1 - length] + _piece(length, v, False))
        best[j + 1] = top
    return best[n]


def _windows(vals: Sequence[int], floor: int) -> list[tuple[int, int, int, float]]:
    """Every window of ``vals`` that beats ``floor``: ``(strength, start, length, score)``.

    ``score`` is easy's value of showing it, before any card taken (see the module
    docstring): cards shed, sets cut or joined, a lone card's height.
    """
    n = len(vals)
    out = []
    append = out.append
    for s in range(n):
        v = vals[s]
        left = vals[s - 1] if s else -9
        linked_left = -1 <= left - v <= 1
        e = s
        step = 9
        while True:
            length = e - s + 1
            w = vals[e]
            if length == 1:
                strength = 1000 + v
            elif step == 0:
                strength = length * 1000 + 100 + v
            else:
                strength = length * 1000 + (v if v < w else w)
            if strength > floor:
                if length == n:
                    score = END_BONUS
                else:
                    right = vals[e + 1] if e + 1 < n else -9
                    score = W_SHED * length
                    if linked_left:
                        score -= W_BREAK
                    if -1 <= right - w <= 1:
                        score -= W_BREAK
                    if -1 <= left - right <= 1:
                        score += W_JOIN
                    if length == 1:
                        score += W_HIGH * v
                append((strength, s, length, score))
            if e + 1 >= n:
                break
            d = vals[e + 1] - w
            if length == 1:
                if d not in (-1, 0, 1):
                    break
                step = d
            elif d != step:
                break
            e += 1
    return out


# --------------------------------------------------------------------------------------------
# The easy policy, on plain data (a view or a simulated state)
# --------------------------------------------------------------------------------------------


SHAPE_CACHE = 200_000  # hands whose shape (:func:`_shape`) is remembered, at most

_SHAPES: dict[tuple[int, ...], tuple] = {}
_WHERE = 12  # card values 1 to 10, and one either side: a scouted value's neighbours
_STRENGTHS: dict[tuple[int, ...], int] = {}


def _shape(hand: tuple[int, ...]) -> tuple:
    """What easy reads of a hand, whatever the table: its values, every window
    (:func:`_windows` above no floor, so a floor only filters it), the stretches of the values
    (``engine.stretches``) and where each value sits (indexed by value, one either side of
    the values spare). Remembered across moves: a playout meets the same hands again and
    again, and the profile put a third of easy's time here.

    Only tuples of ints, never lists or dicts: the cyclic collector stops tracking such tuples
    the first time it meets them, so the cache of up to ``SHAPE_CACHE`` hands costs nothing
    to the collections after a search. As lists and dicts, every full collection walked them
    all, and the one that came at the end of a hard search (the collector resumed) added
    about 180 ms to one 5-seat move in ten: the moves above the 95th percentile (issue 35)."""
    shape = _SHAPES.get(hand)
    if shape is None:
        if len(_SHAPES) >= SHAPE_CACHE:
            _SHAPES.clear()
        vals = tuple(c >> 4 for c in hand)
        where: list[list[int]] = [[] for _ in range(_WHERE)]  # value -> its positions
        for k, v in enumerate(vals):
            where[v].append(k)
        shape = _SHAPES[hand] = (
            vals,
            tuple(_windows(vals, 0)),
            tuple(map(tuple, engine.stretches(vals))),
            tuple(map(tuple, where)),
        )
    return shape


def _strength(cards: tuple[int, ...]) -> int:
    """``engine.set_strength`` of the cards' shown values, remembered (sets are few)."""
    strength = _STRENGTHS.get(cards)
    if strength is None:
        if len(_STRENGTHS) >= SHAPE_CACHE:
            _STRENGTHS.clear()
        strength = _STRENGTHS[cards] = engine.set_strength([c >> 4 for c in cards])
    return strength


def _decide_options(hand: Sequence[int]) -> list[tuple[float, tuple]]:
    keep = hand_value([c >> 4 for c in hand])
    turned = hand_value([c & 15 for c in reversed(hand)])
    return [(keep, ("k",)), (turned, ("r",))]


def _play_options(
    hand: tuple[int, ...],
    active: tuple[int, ...],
    players: int,
    seat: int,
    owner: int | None,
    tokens: int,
    chip_free: bool,
    every: bool = False,
    chip_cost: float = CHIP_COST,
) -> list[tuple[float, tuple]]:
    """Easy's scored candidates as ``(score, spec)``, every one legal (see the module docstring).

    A spec is a plain tuple (``_move`` builds the move): building hundreds of move objects per
    decision would cost more than scoring them, and the hard bot makes thousands of decisions
    per move. Not every legal move is listed: scouts only go where they join a set or to the
    right end of the hand, and scout & shows only show a set through the scouted card or the
    best set already in hand.
    """
    vals, every_window, stretches, where = _shape(hand)
    n = len(vals)
    two = players == 2
    took = len(active)
    target = _strength(active)
    scout_show = chip_free and not two and took > 0
    # Windows that beat the active set, or (scout & show) what may be left of it.
    floor = (took - 1) * 1000 if scout_show else target
    windows = [w for w in every_window if w[0] > floor]
    options: list[tuple[float, tuple]] = []
    top = -99.0
    for strength, s, length, score in windows:
        if strength > target:
            score += W_TAKE * took
            options.append((score, ("s", s, length)))
            if score > top:
                top = score
    if not took:
        return options
    if two:
        # A pass ends the round with our hand counted; the owner is exempt.
        options.append((-float(n), ("p",)))
        if tokens < 1:
            return options
    if top >= SHOW_FIRST and not every:
        # A good show is at hand: take the set rather than scout (and it keeps easy fast).
        return options
    same, rise, fall, same_end, rise_end, fall_end = stretches
    ends_round = not two and (seat + 1) % players == owner
    lone_cost = SCOUT_COST + 0.5  # a card that joins nothing is one more to shed
    for e in (0,) if took == 1 else (0, 1):
        card = active[-1] if e else active[0]
        rest = active[:-1] if e else active[1:]
        rest_target = _strength(rest)
        rest_took = took - 1
        end = "R" if e else "L"
        # The best window already in hand that beats what the scout leaves.
        follow = None
        for strength, s, length, score in windows:
            if strength > rest_target and (follow is None or score > follow[0]):
                follow = (score, s, length)
        for turn in (False, True):
            x = (_flip(card) if turn else card) >> 4
            near = set()
            for v in (x - 1, x, x + 1):
                for k in where[v]:
                    near.add(k)
                    near.add(k + 1)
            for p in sorted(near):
                left = vals[p - 1] if p else -9
                right = vals[p] if p < n else -9
                # The longest set through x inserted at p: (strength, cards left, cards right).
                best = None
                a = same_end[p - 1] if left == x else 0
                b = same[p] if right == x else 0
                if a or b:
                    best = ((a + b + 1) * 1000 + 100 + x, a, b)
                a = rise_end[p - 1] if left == x - 1 else 0
                b = rise[p] if right == x + 1 else 0
                if (a or b) and (best is None or (a + b + 1) * 1000 + x - a > best[0]):
                    best = ((a + b + 1) * 1000 + x - a, a, b)
                a = fall_end[p - 1] if left == x + 1 else 0
                b = fall[p] if right == x - 1 else 0
                if (a or b) and (best is None or (a + b + 1) * 1000 + x - b > best[0]):
                    best = ((a + b + 1) * 1000 + x - b, a, b)
                if best is None:
                    continue
                strength, a, b = best
                joined = a + b
                broken = 0 < p < n and -1 <= left - right <= 1 and not left == right == x
                penalty = W_BREAK if broken else 0.0
                beats_rest = strength > rest_target
                if beats_rest:
                    show = W_TAKE * rest_took + W_SHED * joined - penalty
                    if joined == n:
                        show += END_BONUS
                if two:
                    # A paid scout keeps the turn: worth it for the show it allows.
                    if beats_rest:
                        options.append((show - TOKEN_COST, ("c", end, turn, p)))
                    continue
                if ends_round:
                    options.append((-float(n + 1), ("c", end, turn, p)))
                else:
                    shape = W_LINK * joined - penalty - SCOUT_COST
                    options.append((shape, ("c", end, turn, p)))
                if scout_show and beats_rest:
                    # Half the shape of the set built, as that set is cashed at once.
                    score = show + 0.5 * W_LINK * joined - SCOUT_COST - chip_cost
                    options.append((score, ("x", end, turn, p, p - a, joined + 1)))
            lone = W_HIGH * x
            if not two:
                score = -float(n + 1) if ends_round else lone - lone_cost
                options.append((score, ("c", end, turn, n)))
            if follow is not None and (two or scout_show):
                # Scout x to an end the window does not touch, then show the window.
                score, s, length = follow
                score += W_TAKE * rest_took + lone - 0.5
                if two:
                    options.append(
                        (score - TOKEN_COST, ("c", end, turn, n if s + length < n else 0))
                    )
                elif s + length < n:
                    options.append((score - SCOUT_COST - chip_cost, ("x", end, turn, n, s, length)))
                else:
                    options.append(
                        (score - SCOUT_COST - chip_cost, ("x", end, turn, 0, s + 1, length))
                    )
            if scout_show and 1000 + x > rest_target:
                # The scouted card shown alone.
                options.append(
                    (W_TAKE * rest_took - SCOUT_COST - chip_cost, ("x", end, turn, 0, 0, 1))
                )
    return options


_MOVES: dict[tuple, Any] = {("p",): PASS, ("k",): KEEP, ("r",): ROTATE}


def _move(spec: tuple) -> Any:
    """The engine's move for a spec (cached: moves are values)."""
    move = _MOVES.get(spec)
    if move is None:
        kind = spec[0]
        if kind == "s":
            move = Show(spec[1], spec[2])
        elif kind == "c":
            move = Scout(spec[1], spec[2], spec[3])
        else:
            move = ScoutShow(*spec[1:])
        _MOVES[spec] = move
    return move


def _view_options(view: dict[str, Any], every: bool = False) -> list[tuple[float, tuple]]:
    hand = tuple(_card(c) for c in view["hand"])
    if view["phase"] == engine.DECIDE:
        return _decide_options(hand)
    seat = view["seat"]
    me = view["seats"][seat]
    return _play_options(
        hand,
        tuple(_card(c) for c in view["active"]),
        view["player_count"],
        seat,
        view["active_owner"],
        me["tokens"],
        view["player_count"] > 2 and not me["chip_spent"],
        every,
    )


def _best(options: list[tuple[float, tuple]]) -> tuple:
    """The spec with the highest score; the first listed on a tie (so it is deterministic)."""
    top = options[0]
    for option in options:
        if option[0] > top[0]:
            top = option
    return top[1]


# --------------------------------------------------------------------------------------------
# Playouts and the two levels
# --------------------------------------------------------------------------------------------


def _policy(r: _bot_sim.Round, seat: int, cache: dict, chip_cost: float = CHIP_COST) -> tuple:
    """Easy's spec in a simulated round, remembered for the rest of the search.

    The key holds everything easy's choice depends on; the same position comes back in many
    playouts (our own hand, mostly), so this saves a good share of the search's time.
    """
    hand = r.hands[seat]
    if r.deciding:
        key: tuple = (hand,)
    else:
        owner = r.owner
        players = r.players
        key = (
            hand,
            r.active,
            players,
            owner is not None and (seat + 1) % players == owner,
            players == 2 and r.tokens[seat] > 0,
            r.chips[seat],
            chip_cost,
        )
    spec = cache.get(key)
    if spec is None:
        if r.deciding:
            options = _decide_options(hand)
        else:
            options = _play_options(
                hand,
                r.active,
                r.players,
                seat,
                r.owner,
                r.tokens[seat],
                not r.chips[seat],
                chip_cost=chip_cost,
            )
        spec = cache[key] = _best(options)
    return spec


def _chip_cost(r: _bot_sim.Round, seat: int) -> float:
    """What spending the chip costs ``seat`` now: ``CHIP_COST`` while the round has far to go,
    falling to nothing as another hand runs out, since an unused chip is worth nothing once
    the round ends (issue 35: hard held it in 88% of its rounds at 4-5 players)."""
    shortest = min(len(h) for i, h in enumerate(r.hands) if i != seat)
    return CHIP_COST * min(1.0, max(0.0, (shortest - 1) / CHIP_FADE))


def _playout(r: _bot_sim.Round, seat: int, cache: dict, game: tuple | None) -> float:
    """Play the round out with the easy policy and score it for ``seat``.

    The score is the round's points minus the mean of the others' (what a round is worth),
    where our own exemption as the ender counts only ``1 - EXEMPT_RISK`` of the hand it spares:
    a round won by being exempt with a big hand is a bet that the others let the turn come
    back, and real players (unlike the easy opponents of the playouts) need not. In the last
    round it is the game that counts (``game``: the totals so far), so a win (ties shared)
    weighs ``WIN_WEIGHT`` on top: ahead, the search then prefers the safe lines. Our own seat
    plays easy with the chip's cost falling towards the round's end (:func:`_chip_cost`).

    With 3-5 players a round can go round in circles (see the module docstring): after
    ``PLAYOUT_CAP`` moves the round is scored as it stands, nobody exempt.
    """
    left = PLAYOUT_CAP
    play = r.play
    players = r.players
    while not r.over and left:
        left -= 1
        if r.deciding:
            for who in range(players):
                if r.deciding and r.deciding[who]:
                    play(who, _policy(r, who, cache))
            continue
        who = r.turn
        if who == seat and players > 2 and not r.chips[seat]:
            play(who, _policy(r, who, cache, _chip_cost(r, seat)))
        else:
            play(who, _policy(r, who, cache))
    points = r.points(r.over)
    if r.ender == seat and players > 2:
        points[seat] -= EXEMPT_RISK * len(r.hands[seat])
    mine = points[seat]
    value = mine - (sum(points) - mine) / (players - 1)
    if game is not None and r.over:
        totals = [t + p for t, p in zip(game, r.points(), strict=True)]
        top = max(totals)
        if totals[seat] == top:
            value += WIN_WEIGHT / totals.count(top)
    return value


def _stalling(view: dict[str, Any]) -> bool:
    """Whether the round seems to go round in circles (see the module docstring).

    Every one of the last ``STALL_MOVES`` moves is of this round and none of them took a
    card, with at least two shows among them: a show onto a set takes it, so these shows all
    landed on the empty table, each set scouted away before the turn came back to its owner,
    again and again. In a real round, sets get beaten long before that.
    """
    last = view["last_moves"]
    if len(last) < STALL_MOVES:
        return False
    recent = last[-STALL_MOVES:]
    return (
        all(e["round"] == view["round"] and e["kind"] != "decide" and not e["took"] for e in recent)
        and sum(e["kind"] == "show" for e in recent) >= 2
    )


def _known(view: dict[str, Any]) -> list[tuple[int, str]]:
    """``(seat, card id)`` of the cards another seat scouted this round and has not shown since.

    The recent moves name every scouted card; one that is not on view now (own hand, active
    set, taken cards) is still in that seat's hand. Only the recent moves are listed, so older
    scouts are simply not known.
    """
    seen = {_cid(c) for c in (*view["hand"], *view["active"], *view["taken_cards"])}
    where: dict[str, int] = {}
    for entry in view["last_moves"]:
        if entry["round"] != view["round"] or entry["scouted"] is None:
            continue
        cid = _cid(entry["scouted"])
        if entry["seat"] != view["seat"] and cid not in seen:
            where[cid] = entry["seat"]
    return [(seat, cid) for cid, seat in where.items()]


def _cid(text: str) -> str:
    a, b = sorted(int(v) for v in text.split("/"))
    return f"{a}-{b}"


_CARD_IDS = [f"{min(c >> 4, c & 15)}-{max(c >> 4, c & 15)}" for c in range(256)]


def _card_id(card: int) -> str:
    return _CARD_IDS[card]


def _sample(
    view: dict[str, Any], rng: random.Random, known: list[tuple[int, str]] | None = None
) -> engine.State:
    """A deal consistent with the view (``engine.sample_state``), known scouts in place.

    ``sample_state`` deals every unseen card at random; but a card we saw another seat scout is
    still in that seat's hand (unless shown since, and then we see it): it is swapped in, its
    way up left random as it may have been turned. (Turning the other hands their better way
    up, as their owners did at the start of the round, made the 2-player search worse: the
    cards left in a hand are what its best sets left behind.)
    """
    deal = engine.sample_state(view, rng)
    if known is None:
        known = _known(view)
    if not known:
        return deal
    hands = [list(h) for h in deal.hands]
    deck = list(deal.deck)
    aside = list(deal.set_aside)
    owner_of = dict((cid, seat) for seat, cid in known)
    # A swap may push out a card pinned to another seat; a few passes put everything right.
    for _ in range(3):
        done = True
        for seat, cid in known:
            hand = hands[seat]
            if any(_card_id(c) == cid for c in hand):
                continue
            done = False
            free = [j for j, c in enumerate(hand) if _card_id(c) not in owner_of]
            if not free:
                free = [j for j, c in enumerate(hand) if owner_of.get(_card_id(c)) != seat]
            if not free:
                continue
            j = free[rng.randrange(len(free))]
            for zone in (*hands, deck, aside):
                k = next((k for k, c in enumerate(zone) if _card_id(c) == cid), None)
                if k is not None:
                    zone[k], hand[j] = hand[j], zone[k]
                    break
        if done:
            break
    return dataclasses.replace(
        deal, hands=tuple(tuple(h) for h in hands), deck=tuple(deck), set_aside=tuple(aside)
    )


def _legal_options(
    view: dict[str, Any], moves: list[Any], every: bool = False
) -> list[tuple[float, Any]]:
    """Easy's scored candidates as moves, checked against the legal ones."""
    legal = set(moves)
    options = []
    for score, spec in _view_options(view, every):
        move = _move(spec)
        if move in legal:
            options.append((score, move))
    return options


def _easy(view: dict[str, Any], moves: list[Any]) -> Any:
    options = _legal_options(view, moves)
    if not options:  # cannot happen with the engine's moves; never answer an illegal move
        return moves[0]
    return _best(options)


def _candidates(first: Any, options: list[tuple[float, Any]]) -> list[Any]:
    """Easy's choice ``first``, its next best few, and the best of every kind, each once."""
    # Stable sort: on a tie the first listed stays first, as in ``_best``.
    ranked = [move for _, move in sorted(options, key=lambda o: -o[0])]
    chosen: list[Any] = [first]
    for move in ranked[:HARD_CANDIDATES]:
        if move not in chosen:
            chosen.append(move)
    for kind in (Show, Scout, ScoutShow, Pass, Decide):
        for move in ranked:
            if isinstance(move, kind):
                if move not in chosen:
                    chosen.append(move)
                break
    return chosen


def _spec(move: Any) -> tuple:
    """The spec of an engine move (the inverse of :func:`_move`)."""
    if isinstance(move, Show):
        return ("s", move.start, move.length)
    if isinstance(move, Scout):
        return ("c", move.end, move.turn, move.pos)
    if isinstance(move, ScoutShow):
        return ("x", move.end, move.turn, move.pos, move.start, move.length)
    if isinstance(move, Decide):
        return ("r",) if move.rotate else ("k",)
    return ("p",)


def _budget(view: dict[str, Any]) -> int:
    """The work this decision may spend: ``HARD_WORK`` for the table size, in the unit of
    :mod:`._bot_sim` (per simulated move, one plus the mover's hand size).

    A fixed amount of work rather than a fixed number of playouts: a playout costs about the
    cards still to be played, so the number of deals grows as the round's cards run out, and the
    larger tables, whose rounds are longer and noisier, get a larger budget, up to 4 seats. At 5
    seats the same work took longer (a 95th percentile of 347 ms CPU at 48,000 on the loaded
    machine of issue 35, where one hard against four easy still won 62%), so it is capped back
    within the think-time target of 300 ms.
    """
    return HARD_WORK[view["player_count"]]


def _hard(
    view: dict[str, Any],
    moves: list[Any],
    rng: random.Random,
    work: int,
    deadline: float | None,
) -> Any:
    """Sequential halving over easy's candidates, on paired deals (see the module docstring).

    The work is cut into one share per halving step; in each step every candidate still in
    play is tried on the same fresh deals until the step's share is spent, then the worse half
    (by mean over every deal so far, which all the survivors share) is dropped. Easy's choice
    is kept unless the best survivor beats it by ``HARD_Z`` standard errors of their paired
    difference: with a few hundred noisy playouts the plain best mean is often a lucky one.
    """
    candidates = _candidates(_easy(view, moves), _legal_options(view, moves, every=True))
    if len(candidates) == 1:
        return candidates[0]
    seat = view["seat"]
    game = tuple(view["scores"]) if view["round"] == view["rounds"] else None
    specs = [_spec(m) for m in candidates]
    known = _known(view)
    k = len(candidates)
    values: list[list[float]] = [[] for _ in range(k)]
    alive = list(range(k))
    steps = max(1, math.ceil(math.log2(k)))
    cache: dict = {}
    clock = time.perf_counter
    spent = 0
    for step in range(steps):
        share = work * (step + 1) // steps
        while spent < share:
            if deadline is not None and clock() > deadline:
                break
            deal = _bot_sim.Round.from_state(_sample(view, rng, known))
            for i in alive:
                r = deal.copy()
                r.play(seat, specs[i])
                values[i].append(_playout(r, seat, cache, game))
                spent += r.work
        else:
            if len(alive) > 2 and step < steps - 1:
                alive.sort(key=lambda i: (-sum(values[i]), i))
                keep = {0} if 0 in alive[: (len(alive) + 1) // 2 + 1] else set()
                alive = sorted(set(alive[: (len(alive) + 1) // 2]) | keep)
            continue
        break  # out of time
    count = len(values[0])
    if 0 not in alive or count < 2:
        best = max(alive, key=lambda i: (sum(values[i]), -i))
        return candidates[best]
    best, best_t = 0, HARD_Z
    for i in alive:
        if i == 0 or len(values[i]) != count:
            continue
        diffs = [a - b for a, b in zip(values[i], values[0], strict=True)]
        t = _mean_and_error(sum(diffs), sum(d * d for d in diffs), count)
        if t > best_t:
            best, best_t = i, t
    return candidates[best]


def _mean_and_error(total: float, squares: float, count: int) -> float:
    """The mean of ``count`` paired differences in standard errors (a t statistic).

    The spread is shrunk towards ``PRIOR_SPREAD`` (the typical spread of a difference between
    two moves' playouts, as if seen in two more deals): a spread measured on a few deals can be
    tiny by chance, and a move would look clearly better on luck alone.
    """
    mean = total / count
    spread = (max(squares - count * mean * mean, 0.0) + 2 * PRIOR_SPREAD) / (count + 2)
    return mean / (spread / count) ** 0.5


def choose(
    view: dict[str, Any],
    moves: list[Any],
    level: str = "easy",
    rng: random.Random | None = None,
    *,
    work: int | None = None,
    time_limit: float | None | str = "default",
) -> Any:
    """One of ``moves`` for the seat whose ``view`` this is, at ``level`` (see ``LEVELS``).

    ``rng`` (a ``random.Random``; ``None``: ``random.Random(0)``) is the only source of
    randomness. ``work`` (simulated moves) and ``time_limit`` (seconds) tune the hard level;
    they default to :func:`_budget` and ``HARD_TIME_LIMIT``, and ``time_limit=None`` drops the deadline, so
    that the move depends on the view and the rng alone even on a loaded machine (tests).
    """
    start = time.perf_counter()
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}")
    if not moves:
        raise ValueError("no legal move to choose from")
    if len(moves) == 1:
        return moves[0]
    if rng is None:
        rng = random.Random(0)
    if view["phase"] == engine.PLAY and _stalling(view):
        # Break the circle: any of easy's moves, drawn with the rng (so still reproducible).
        options = _legal_options(view, moves, every=True)
        return options[rng.randrange(len(options))][1] if options else moves[0]
    if level == "easy":
        return _easy(view, moves)
    if time_limit == "default":
        time_limit = HARD_TIME_LIMIT
    deadline = None if time_limit is None else start + float(time_limit)
    with without_gc():
        return _hard(view, moves, rng, work or _budget(view), deadline)
