"""Escoba's table, from the engine's view for one seat: cards named for people and screen
readers, and the legal moves grouped by the hand card that makes them."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from types import MappingProxyType

from django.utils.translation import get_language, gettext_noop
from django.utils.translation import gettext as _

SUITS = {
    "o": gettext_noop("oros"),
    "c": gettext_noop("copas"),
    "e": gettext_noop("espadas"),
    "b": gettext_noop("bastos"),
}
RANKS = {
    1: gettext_noop("As"),
    8: gettext_noop("Sota"),
    9: gettext_noop("Caballo"),
    10: gettext_noop("Rey"),
}
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
    rank = _(RANKS[value]) if value in RANKS else str(value)
    return MappingProxyType(
        {
            "id": card_id,
            "value": value,
            "suit": suit,
            "corner": CORNER.get(value, str(value)),
            "face": value >= 8,
            "name": _("%(rank)s de %(suit)s") % {"rank": rank, "suit": _(SUITS[suit])},
        }
    )


def cards(card_ids, language: str | None = None) -> list[Mapping[str, object]]:
    language = language or get_language()
    return [_card(c, language) for c in card_ids]


def event_text(event: dict) -> str:
    """What a move did, after the name of who made it ("plays 7 de oros and takes ...").

    Built here rather than in the template: the table lists the last ten moves on every move
    and poll, and as template tags the sentences were a large part of drawing it. A penalty
    names a second seat, so the template words that one itself.
    """
    kind = event["kind"]
    taken = ", ".join(c["name"] for c in event["cards_info"])
    if kind == "capture":
        return _("plays %(card)s and takes") % {"card": event["card_info"]["name"]} + " " + taken
    if kind == "lay":
        return _("lays down %(card)s") % {"card": event["card_info"]["name"]}
    if kind == "opening":
        return _("takes the four opening cards")
    if kind == "last_take":
        return _("takes what was left on the table") + ": " + taken
    return ""


def _event(event: dict, language: str) -> dict:
    info = {
        **event,
        "card_info": _card(event["card"], language) if event["card"] else None,
        "cards_info": cards(event["cards"], language),
    }
    info["text"] = event_text(info)
    return info


def table_context(view: dict, moves: list, seat: int | None) -> dict:
    language = get_language()
    table_ids = view["table"]
    choices = []
    for index, card_id in enumerate(view.get("hand") or []):
        captures, lay = [], None
        for move in moves:
            if move.card != card_id:
                continue
            if move.take:
                captures.append(
                    {
                        "code": move.code,
                        "cards": cards(move.take, language),
                        "escoba": len(move.take) == len(table_ids),
                    }
                )
            else:
                lay = move.code
        choices.append(
            {"index": index, "card": _card(card_id, language), "captures": captures, "lay": lay}
        )
    sides = []
    for side in view["sides"]:
        sides.append({**side, "mine": seat is not None and seat in side["seats"]})
    return {
        "hand_choices": choices,
        "table_cards": cards(table_ids, language),
        "escoba_sides": sides,
        "my_turn": bool(moves),
        "last_events": [_event(event, language) for event in reversed(view["last_moves"])],
    }


# Events a member's own move makes; the others (the last capturer's take, a penalty, the next
# deal's opening take) follow from it within the same move.
_MOVE_KINDS = {"capture", "lay"}


def last_move(view: dict) -> tuple[list[tuple[int | None, str]], list[str]]:
    """What the last move did, from the view's public events: ``(seat, sentence)`` pairs and
    the ids of the cards it played or took (for the table's "just happened" strip)."""
    events = view.get("last_moves") or []
    starts = [i for i, e in enumerate(events) if e["kind"] in _MOVE_KINDS]
    group = events[starts[-1] :] if starts else events[-1:]
    language = get_language()
    parts, ids = [], []
    for raw in group:
        event = _event(raw, language)
        if raw["kind"] == "penalty":
            text = (
                _("takes %(card)s as a penalty, with") % {"card": event["card_info"]["name"]}
                + " "
                + ", ".join(c["name"] for c in event["cards_info"])
            )
        else:
            text = event["text"]
        if raw["escobas"]:
            text += " — " + _("¡Escoba!")
        parts.append((raw["seat"], text))
        # Cards of a hand already over are back in the next deal's deck and hands: name them
        # in the sentence (that is history) but mark none of them on the new table.
        if raw["hand"] == view["hand_number"] and raw["kind"] != "last_take":
            ids.extend(([raw["card"]] if raw["card"] else []) + list(raw["cards"]))
    return parts, ids
