"""Escoba's table, from the engine's view for one seat: cards named for people and screen
readers, and the legal moves grouped by the hand card that makes them."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from types import MappingProxyType

from django.utils.text import get_text_list
from django.utils.translation import get_language, gettext_noop
from django.utils.translation import gettext as _

from games.contract import Presentation
from games.present import move_line

# A Spanish card's name is a whole phrase per rank, so each language words it as it must:
# Spanish gives each rank its own article ("la sota", "el caballo", "el as", "el 4"), English
# names the cards and suits in English ("the knight of cups", "the 4 of coins"). "name" labels
# a card on its own (a heading, a screen reader's name); "the" is the same card inside a
# sentence, article included, so that no sentence puts an article of its own before a card.
SUITS = {
    "o": gettext_noop("coins"),
    "c": gettext_noop("cups"),
    "e": gettext_noop("swords"),
    "b": gettext_noop("clubs"),
}
NAMES = {
    1: gettext_noop("Ace of %(suit)s"),
    8: gettext_noop("Jack of %(suit)s"),
    9: gettext_noop("Knight of %(suit)s"),
    10: gettext_noop("King of %(suit)s"),
}
NUMBER_NAME = gettext_noop("%(value)s of %(suit)s")
IN_SENTENCE = {
    1: gettext_noop("the ace of %(suit)s"),
    8: gettext_noop("the jack of %(suit)s"),
    9: gettext_noop("the knight of %(suit)s"),
    10: gettext_noop("the king of %(suit)s"),
}
NUMBER_IN_SENTENCE = gettext_noop("the %(value)s of %(suit)s")
# The figure printed in the corner of a Spanish card: 1–7, then S, C, R.
CORNER = {8: "S", 9: "C", 10: "R"}


def card(card_id: str, language: str | None = None) -> Mapping[str, object]:
    """A card described for the templates, in ``language`` (by default the active one).

    Read-only and shared: the same forty descriptions are asked for dozens of times on every
    table. Callers describing many cards pass the language they looked up once, since looking
    it up is itself a good part of the cost.
    """
    return _card(card_id, language or get_language())


@functools.lru_cache(maxsize=256)
def _card(card_id: str, language: str | None) -> Mapping[str, object]:
    value, suit = int(card_id[:-1]), card_id[-1]
    words = {"value": value, "suit": _(SUITS[suit])}
    return MappingProxyType(
        {
            "id": card_id,
            "value": value,
            "suit": suit,
            "corner": CORNER.get(value, str(value)),
            "face": value >= 8,
            "name": _(NAMES.get(value, NUMBER_NAME)) % words,
            "the": _(IN_SENTENCE.get(value, NUMBER_IN_SENTENCE)) % words,
        }
    )


def card_name(card_id: str) -> str:
    """A card's name in the active language ("3 de espadas", "3 of swords"), for messages that
    name a card."""
    return card(card_id)["name"]


def cards(card_ids, language: str | None = None) -> list[Mapping[str, object]]:
    language = language or get_language()
    return [_card(c, language) for c in card_ids]


def _names(cards_info) -> str:
    """Cards inside a sentence, each with its article ("la sota de oros, el as y el 4 de
    copas": Django's own list of words, "y"/"and" before the last)."""
    return get_text_list([c["the"] for c in cards_info], _("and"))


def describe_move(event: dict, names: Sequence[str]) -> dict:
    """One public event (an entry of the view's ``last_moves``) in words, for the table's last
    moves, the game log and the replay alike: the one place where a move is put into words.

    ``names`` are the seats' names by seat index. The result has ``seat`` and ``who`` (who made
    the move, or ``None``), ``text`` (what they did, a phrase in the active language that names
    the cards), ``cards`` (the cards to draw beside it), ``badge`` (e.g. "¡Escoba!", or
    ``None``) and ``sentence`` (``who`` and ``text`` together). Everything in the event is
    public (captures happen face up), so this may be shown to anybody.
    """
    language = get_language()
    kind = event["kind"]
    played = _card(event["card"], language) if event.get("card") else None
    taken = cards(event.get("cards") or (), language)
    escobas = event.get("escobas") or 0
    text = ""
    shown = list(taken)
    if kind == "capture":
        text = _("plays %(card)s and takes %(cards)s") % {
            "card": played["the"],
            "cards": _names(taken),
        }
        shown = [played, *taken]
    elif kind == "lay":
        text = _("lays down %(card)s") % {"card": played["the"]}
        shown = [played]
    elif kind == "penalty":
        text = _(
            "takes %(card)s from %(name)s as a penalty (renuncio: it could have captured), "
            "with %(cards)s"
        ) % {"card": played["the"], "name": names[event["from_seat"]], "cards": _names(taken)}
        shown = [played, *taken]
    elif kind == "opening":
        text = _("takes the four opening cards: %(cards)s") % {"cards": _names(taken)}
    elif kind == "last_take":
        text = _("takes what was left on the table: %(cards)s") % {"cards": _names(taken)}
    badge = None
    if escobas == 1:
        badge = _("¡Escoba!")
    elif escobas > 1:
        badge = _("%(n)s escobas!") % {"n": escobas}
    return move_line(event, names, kind, text, shown, badge)


# Past this many cards on the table its cards are drawn small: a full card is about twice the
# bytes (and the room) of a small one, and a table can hold twenty cards and more when nobody
# captures, in every poll.
CROWDED = 8

# The captures of one hand card are offered one button each (the cards it takes, in words)
# while their words fit in this many characters; past it they are counted. Any set of table
# cards can also be taken by checking them (the table's checkboxes) and one button per hand
# card, the way for a crowded table, which can make 15 in dozens of ways: every poll of the
# member to move carries these buttons.
CAPTURES_IN_WORDS = 100


def _ways(takes: list[tuple[tuple[str, ...], str]], language: str) -> list[dict] | None:
    """The captures of one hand card as buttons to play at once: each its move's code and the
    cards it takes in words ("3 de espadas + 5 de bastos"), or ``None`` when their words would
    not fit in ``CAPTURES_IN_WORDS`` characters."""
    # Stops at the budget: a crowded table can make 15 in hundreds of ways.
    ways, length = [], -2
    for take, code in takes:
        words = " + ".join(c["name"] for c in cards(take, language))
        length += len(words) + 2
        if length > CAPTURES_IN_WORDS:
            return None
        ways.append({"code": code, "words": words})
    return ways


def table_context(view: dict, moves: list, seat: int | None) -> dict:
    language = get_language()
    table_ids = view["table"]
    choices = []
    for card_id in view.get("hand") or []:
        takes, lay = [], None
        for move in moves:
            if move.card != card_id:
                continue
            if move.take:
                takes.append((move.take, move.code))
            else:
                lay = move.code
        # Taking every card on the table is an escoba: it goes first, and the member is told.
        escoba = any(len(take) == len(table_ids) for take, _code in takes)
        takes.sort(key=lambda way: len(way[0]) != len(table_ids))
        choices.append(
            {
                "card": _card(card_id, language),
                # The cards to take are the table's checked boxes ("pick"), put in place of
                # the "*" by the move view.
                "take": f"c:{card_id}:*" if takes else None,
                "count": len(takes),
                "ways": _ways(takes, language) if takes else None,
                "escoba": escoba,
                "lay": lay,
            }
        )
    # The scoring of the hand just over, while its moves are still among the last moves shown
    # (the first round of the next hand).
    last_hand = view.get("last_hand")
    if last_hand and not any(e["hand"] == last_hand["hand"] for e in recent_events(view)):
        last_hand = None
    sides = []
    for side in view["sides"]:
        sides.append({**side, "mine": seat is not None and seat in side["seats"]})
    return {
        "hand_choices": choices,
        "table_cards": cards(table_ids, language),
        "escoba_sides": sides,
        "my_turn": bool(moves),
        # The table's cards are checkboxes only while some hand card can take them.
        "can_pick": any(choice["take"] for choice in choices),
        "crowded": len(table_ids) > CROWDED,
        # Under "penalized", a card that can capture may still be laid: warned once.
        "renuncio": any(choice["take"] and choice["lay"] for choice in choices)
        and view["options"]["capture_rule"] == "penalized",
        "last_hand": last_hand,
    }


# Events a member's own move makes; the others (the last capturer's take, a penalty, the next
# deal's opening take) follow from it within the same move.
_MOVE_KINDS = {"capture", "lay"}


def recent_events(view: dict) -> list[dict]:
    """The table's last moves: one round, each seat's last move with what followed from it.

    That is what a member needs to see since their own turn (and, between two hands, how
    long the scoring of the hand just over stays: see ``table_context``); the game log has the
    whole match. A round rather than all the view keeps makes every poll lighter.
    """
    events = view.get("last_moves") or []
    starts = [i for i, e in enumerate(events) if e["kind"] in _MOVE_KINDS]
    players = len(view["hand_sizes"])
    return events[starts[-players] :] if len(starts) >= players else events


def last_move(view: dict, names: Sequence[str]) -> tuple[list[dict], list[str]]:
    """What the last move did, from the view's public events: its events in words (by
    ``describe_move``, as in the game log) and the ids of the cards it played or took (for the
    table's "just happened" strip)."""
    events = view.get("last_moves") or []
    starts = [i for i, e in enumerate(events) if e["kind"] in _MOVE_KINDS]
    group = events[starts[-1] :] if starts else events[-1:]
    lines, ids = [], []
    for raw in group:
        lines.append(describe_move(raw, names))
        # Cards of a hand already over are back in the next deal's deck and hands: name them
        # in the sentence (that is history) but mark none of them on the new table.
        if raw["hand"] == view["hand_number"] and raw["kind"] != "last_take":
            ids.extend(([raw["card"]] if raw["card"] else []) + list(raw["cards"]))
    return lines, ids


def card_html(card, small: bool = False) -> str:
    """One card as HTML, as the table draws it (for the move lines drawn by a tag).

    Small, it is the bare mini card: the move lines show their cards beside the words that
    name them, inside a part hidden from screen readers (``games_tags.move_line``), so a name
    on every card would only weigh on each of the eight lines of every poll.
    """
    from games.escoba.templatetags.escoba_tags import (  # the tags import this module
        escoba_card_html,
        escoba_mini,
    )

    return escoba_mini(card) if small else escoba_card_html(card)


def card_sprite() -> str:
    """The drawings the cards refer to, once per page (see ``escoba_tags.sprite``)."""
    from games.escoba.templatetags.escoba_tags import sprite  # the tags import this module

    return sprite()


#: What the table machinery uses of this module (the contract: games/contract.py).
PRESENTATION = Presentation(
    describe_move=describe_move,
    table_context=table_context,
    recent_events=recent_events,
    last_move=last_move,
    card_name=card_name,
    card_html=card_html,
    card_sprite=card_sprite,
    # The game log groups Escoba's moves by hand (games.log).
    log_group="hand",
)
