"""Schotten Totten's table, from the engine's view for one seat: the nine stones seen from the
member's side, cards named for people and screen readers, the legal moves placed on the stones
that take them (a card is picked in the hand, then played by its stone's button), why a full stone cannot be claimed yet, and the rounds' results.

Only the ``view`` (and the seat's legal moves) is read. The reasons for stones that the member
cannot claim come from the view's ``counter_examples`` when it is the member's turn, otherwise
from the engine's pure helpers applied to the cards on the table, which are public.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.translation import get_language, gettext_noop
from django.utils.translation import gettext as _

from games.contract import Presentation
from games.present import move_line, per_language
from games.schotten_totten import engine

# Colour letter -> (colour name, card name, symbol). The symbol is drawn on every card so that
# colours can be told apart without seeing them (colour-blind members, greyscale screens).
COLOURS = {
    "R": (gettext_noop("red"), gettext_noop("Red %(value)s"), "circle"),
    "O": (gettext_noop("orange"), gettext_noop("Orange %(value)s"), "square"),
    "Y": (gettext_noop("yellow"), gettext_noop("Yellow %(value)s"), "triangle"),
    "G": (gettext_noop("green"), gettext_noop("Green %(value)s"), "cross"),
    "B": (gettext_noop("blue"), gettext_noop("Blue %(value)s"), "star"),
    "P": (gettext_noop("purple"), gettext_noop("Purple %(value)s"), "moon"),
}
FORMATIONS = {
    "straight_flush": gettext_noop("Colour run"),
    "three": gettext_noop("Three of a kind"),
    "flush": gettext_noop("Colour"),
    "straight": gettext_noop("Run"),
    "sum": gettext_noop("Sum"),
}


@per_language
def card(card_id: str) -> dict:
    """A card id ("R7") described for the card template and screen readers."""
    colour, value = card_id[0], int(card_id[1:])
    name, card_name, symbol = COLOURS[colour]
    # The words around the value ("Red " and "" in English, "" and " rojo" in Spanish): the
    # card shows its value and says the rest to screen readers only.
    words = _(card_name)
    before, _value, after = words.partition("%(value)s")
    return {
        "id": card_id,
        "colour": colour,
        "value": value,
        "symbol": symbol,
        "colour_name": _(name),
        "name": words % {"value": value},
        "before": before.replace("%%", "%"),
        "after": after.replace("%%", "%"),
    }


def card_name(card_id: str) -> str:
    """A card's name in the active language ("Rojo 7"), for messages that name a card."""
    return card(card_id)["name"]


def cards(card_ids, language: str | None = None) -> list[dict]:
    """``card`` for each id; ``language`` as ``card`` takes it."""
    return [card(c, language) for c in card_ids]


def legend() -> list[dict]:
    """Each colour's letter, symbol and name, for the key under the table (no card ids; drawn
    once per language by ``schotten_totten_tags.st_legend``)."""
    return [
        {"colour": colour, "symbol": symbol, "colour_name": _(name)}
        for colour, (name, _card_name, symbol) in COLOURS.items()
    ]


def formation(data: dict | None) -> dict | None:
    if not data:
        return None
    return {"kind": data["kind"], "name": _(FORMATIONS[data["kind"]]), "total": data["total"]}


def win_stones(owners: list, won: int) -> tuple[list[int], str]:
    """The stones that won a round for ``won`` and why (rules, "End of the game"):
    ``"adjacent"`` (every run of three or more adjacent stones), ``"five"`` or, for the rare
    automatic end where both sides met a condition, ``"more"`` (all of the winner's stones)."""
    adjacent: set[int] = set()
    for i in range(len(owners) - 2):
        if owners[i] == owners[i + 1] == owners[i + 2] == won:
            adjacent.update((i, i + 1, i + 2))
    mine = [i for i, owner in enumerate(owners) if owner == won]
    if adjacent and not any(
        owners[i] == owners[i + 1] == owners[i + 2] == 1 - won for i in range(len(owners) - 2)
    ):
        return sorted(adjacent), "adjacent"
    if len(mine) >= 5 and len([o for o in owners if o == 1 - won]) < 5:
        return mine, "five"
    return mine, "more"


def _reason(stone: dict, me: int, table: list[dict]) -> dict:
    """Why the member's full side of an unclaimed stone is not theirs yet, for a seat that is
    not to move (the view gives the counter-examples only to the seat to move)."""
    mine, theirs = stone["cards"][me], stone["cards"][1 - me]
    others = [
        c for s in table for c in (*s["cards"][0], *s["cards"][1]) if s["index"] != stone["index"]
    ]
    first = stone["completed_first"] == me
    if engine.claim_valid(mine, theirs, others, first):
        return {"state": "later"}
    if len(theirs) == engine.SIDE_SIZE:
        return {"state": "blocked", "cards": []}
    return {"state": "blocked", "cards": engine.counter_example(mine, theirs, others) or []}


def _tie_first(stone: dict, me: int) -> str | None:
    """On a stone where both formations have the same kind and total, the side that completed
    first (it wins the tie, rules "Formations"): ``"me"`` or ``"opp"``; otherwise ``None``."""
    a, b = stone["formations"]
    if a is None or b is None or a != b or stone["completed_first"] is None:
        return None
    return "me" if stone["completed_first"] == me else "opp"


# The table's last-moves list: about the last two turns of each player. Every move and poll
# carries it (issue 22: a fragment within 10 KB); the game log has the whole match.
RECENT_EVENTS = 5


def recent_events(view: dict) -> list[dict]:
    """The recent moves of the round on the table, and the end of the round before it.

    Cards played in an earlier round are back in the new round's deck and hands, so the list
    stops there (the summary between rounds tells how that round ended; the game log has
    the whole match). The table's last-moves list shows these (``games.present``)."""
    events, over = view["last_moves"][-RECENT_EVENTS:], view["phase"] == engine.OVER
    ends = [i for i, e in enumerate(events) if e["kind"] == "round_end"]
    if over and ends and ends[-1] == len(events) - 1:
        ends = ends[:-1]
    return events[ends[-1] :] if ends else events


def describe_move(event: dict, names: Sequence[str]) -> dict:
    """One public event (an entry of the view's ``last_moves``) in words, for the table's last
    moves, the game log and the replay alike: the one place where a move is put into words.

    ``names`` are the seats' names by seat index. The result has ``seat`` and ``who`` (who made
    the move, or ``None``), ``text`` (what happened, in the active language; stones numbered 1
    to 9 as on the table), ``cards`` (cards to draw beside it), ``badge`` (or ``None``) and
    ``sentence`` (``who`` and ``text`` together). Plays and claims are public; the card drawn
    after a play is not, and the engine does not record it as an event.
    """
    kind = event["kind"]
    shown: list[dict] = []
    text = ""
    if kind == "play":
        shown = [card(event["card"])]
        text = _("plays the %(card)s on stone %(number)s") % {
            "card": shown[0]["name"],
            "number": event["stone"] + 1,
        }
    elif kind == "claim":
        text = _("claims stone %(number)s") % {"number": event["stone"] + 1}
    elif kind == "pass":
        text = _("passes: no card could be played")
    elif kind == "auto_award":
        text = _("Nobody can play any more: stones %(stones)s go to the stronger side.") % {
            "stones": ", ".join(str(s + 1) for s in event.get("stones") or ())
        }
    elif kind == "round_end":
        text = _("wins round %(number)s") % {"number": event["round"]}
    return move_line(event, names, kind, text, shown, None)


def table_context(view: dict, moves: list, seat: int | None) -> dict:
    """The table's extra context, under one name (``st``) that the template can also compute
    itself where a page does not call this (the replay)."""
    return {"st": board(view, moves, seat)}


def board(view: dict, moves: list, seat: int | None) -> dict:
    """Everything the table draws, seen from ``seat`` (a spectator sits where seat 0 does)."""
    me = 0 if seat is None else seat
    opp = 1 - me
    language = get_language()  # once for the forty cards a board may name
    phase = view["phase"]
    over = phase == engine.OVER
    # A play is chosen in two steps: a card of the hand (the radio "pick"), then a stone (its
    # button's code names the card "*", which the move view fills in): one button per stone,
    # not one per card and stone.
    play_stones: set[int] = set()
    pickable: set[str] = set()
    claims: dict[int, str] = {}
    end_code = pass_code = None
    hand_ids = view.get("hand") or []
    for move in moves:
        if isinstance(move, engine.Play):
            play_stones.add(move.stone)
            pickable.add(move.card)
        elif isinstance(move, engine.Claim):
            claims[move.stone] = move.code
        elif isinstance(move, engine.EndTurn):
            end_code = move.code
        elif isinstance(move, engine.Pass):
            pass_code = move.code

    counters = {c["stone"]: c["cards"] for c in view.get("counter_examples", [])}
    mover = seat is not None and seat in view["to_move"]
    winning: set[int] = set()
    win = None
    if over and view["round_results"]:
        last = view["round_results"][-1]
        stones_won, why = win_stones([st["owner"] for st in view["stones"]], last["winner"])
        winning = set(stones_won)
        win = {
            "seat": last["winner"],
            "match_winner": view["winner"],
            "stones": [s + 1 for s in stones_won],
            "numbers": ", ".join(str(s + 1) for s in stones_won),
            "reason": why,
            "mine": seat is not None and last["winner"] == seat,
        }

    stones = []
    blocked = []
    for st in view["stones"]:
        s = st["index"]
        owner = st["owner"]
        mine_full = len(st["cards"][me]) == engine.SIDE_SIZE
        reason = None
        if seat is not None and owner is None and mine_full and not over:
            if s in claims:
                reason = {"state": "claimable"}
            elif mover and s in counters:
                reason = {"state": "blocked", "cards": counters[s]}
            elif mover:
                reason = {"state": "later"}
            else:
                reason = _reason(st, me, view["stones"])
            if reason["state"] == "blocked":
                reason["card_info"] = cards(reason["cards"], language)
                reason["text"] = ", ".join(c["name"] for c in reason["card_info"])
                blocked.append({"number": s + 1, **reason})
        side = None if owner is None else ("me" if owner == me else "opp")
        css = [
            *(["claimable"] if s in claims else []),
            *(["winning"] if s in winning else []),
            *([f"owned-{side}"] if side else []),
        ]
        stones.append(
            {
                "index": s,
                "css": " ".join(css),
                "number": s + 1,
                "owner": owner,
                "side": side,
                "opp_cards": cards(st["cards"][opp], language),
                "my_cards": cards(st["cards"][me], language),
                "opp_formation": formation(st["formations"][opp]),
                "my_formation": formation(st["formations"][me]),
                "tie_first": _tie_first(st, me),
                "play": engine.Play("*", s).code if s in play_stones else None,
                "claim": claims.get(s),
                "reason": reason,
                "winning": s in winning,
            }
        )

    results = [_round_result(r, me) for r in view["round_results"]]
    my_cards_down = sum(len(st["cards"][me]) for st in view["stones"])
    all_down = sum(len(st["cards"][0]) + len(st["cards"][1]) for st in view["stones"])
    fresh = my_cards_down == 0 if seat is not None else all_down <= 1
    return {
        "me": me,
        "opp": opp,
        "stones": stones,
        "hand": [
            {"index": i, "card": card(c, language), "playable": c in pickable}
            for i, c in enumerate(hand_ids)
        ],
        "can_play": bool(play_stones),
        "claims": bool(claims),
        "end": end_code,
        "pass": pass_code,
        "blocked": blocked,
        "counter_cards": any(b["cards"] for b in blocked),
        "my_turn": bool(moves),
        "before_play": view["options"]["claim_timing"] == engine.BEFORE_PLAY,
        "win": win,
        "rounds": results,
        "summary": results[-1] if results and not over and fresh else None,
    }


def _round_result(result: dict, me: int) -> dict:
    stones, why = win_stones(result["owners"], result["winner"])
    return {
        **result,
        "win_stones": [s + 1 for s in stones],
        "numbers": ", ".join(str(s + 1) for s in stones),
        "reason": why,
        "owner_row": [
            {
                "number": i + 1,
                "owner": o,
                "side": None if o is None else ("me" if o == me else "opp"),
                "winning": i in stones,
            }
            for i, o in enumerate(result["owners"])
        ],
    }


_MOVE_KINDS = {"play", "pass", "claim"}


def last_move(view: dict, names: Sequence[str]) -> tuple[list[dict], list[str]]:
    """What the last move did, from the view's public events: its events in words (by
    ``describe_move``, as in the game log) and the ids of the cards it placed (for the table's
    "just happened" strip). Draws are hidden and never listed."""
    events = view.get("last_moves") or []
    starts = [i for i, e in enumerate(events) if e["kind"] in _MOVE_KINDS]
    group = events[starts[-1] :] if starts else events[-1:]
    lines, ids = [], []
    for raw in group:
        line = describe_move(raw, names)
        if not line["text"]:
            continue
        lines.append(line)
        if raw["kind"] == "play":
            ids.append(raw["card"])
    if any(raw["kind"] == "round_end" for raw in group):
        # The round's cards went back to the deck: nothing of it is on the new board.
        ids = []
    return lines, ids


def card_html(card, small: bool = False) -> str:
    """One card as HTML, as the table draws it, for the move lines drawn by a tag. Those cards
    sit beside the words that name them, hidden from screen readers: they carry no name."""
    from games.schotten_totten.templatetags.schotten_totten_tags import (  # they import this
        st_card_html,
    )

    return st_card_html(card, small=small, named=False)


#: What the table machinery uses of this module (the contract: games/contract.py).
PRESENTATION = Presentation(
    describe_move=describe_move,
    table_context=table_context,
    recent_events=recent_events,
    last_move=last_move,
    card_name=card_name,
    card_html=card_html,
)
