"""A toy game, small enough to read at a glance, that meets the whole engine contract
(``games.contract.Engine``).

Two players are dealt ``cards_each`` cards from nine (1–9); the rest stay hidden in the deck.
In turn each lays one card face up; when every card is laid the higher total wins.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

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

INFO = Info(key="toygame", title="Toy", min_players=2, max_players=2)
OPTIONS = (Option("cards_each", gettext_noop("Cards each"), "int", 3, min_value=1, max_value=4),)
DECK = tuple(f"c{n}" for n in range(1, 10))
LAST_MOVES = 4  # how many recent public events the state (and so the view) remembers


@dataclass(frozen=True)
class Move:
    card: str

    @property
    def code(self) -> str:
        return f"p:{self.card}"


@dataclass(frozen=True)
class State:
    hands: tuple[tuple[str, ...], ...]
    laid: tuple[tuple[str, ...], ...]
    deck: tuple[str, ...]
    turn: int
    last_moves: tuple[tuple[int, str], ...]  # (seat, card) of each recent card laid


def value(card: str) -> int:
    return int(card[1:])


def new_game(players, options=None, seed=0) -> State:
    check_players(INFO, players)
    n = resolve_options(OPTIONS, options)["cards_each"]
    cards = shuffled(DECK, seed, "deal")
    hands = tuple(tuple(cards[i * n : (i + 1) * n]) for i in range(players))
    return State(
        hands=hands, laid=((), ()), deck=tuple(cards[players * n :]), turn=0, last_moves=()
    )


def is_over(state: State) -> bool:
    return not any(state.hands)


def to_move(state: State) -> tuple[int, ...]:
    return () if is_over(state) else (state.turn,)


def legal_moves(state: State, seat: int) -> list[Move]:
    if seat not in to_move(state):
        return []
    return [Move(card) for card in state.hands[seat]]


def parse_move(code: str) -> Move:
    if not isinstance(code, str) or not code.startswith("p:") or code[2:] not in DECK:
        raise InvalidMove(gettext_noop("That is not a move of this game."))
    return Move(code[2:])


def apply(state: State, seat: int, move: Move) -> State:
    if seat not in to_move(state):
        raise IllegalMove(gettext_noop("It is not your turn."))
    if move.card not in state.hands[seat]:
        raise IllegalMove(gettext_noop("That card is not in your hand."))
    hands = list(state.hands)
    hands[seat] = tuple(c for c in hands[seat] if c != move.card)
    laid = list(state.laid)
    laid[seat] = (*laid[seat], move.card)
    last_moves = (*state.last_moves, (seat, move.card))[-LAST_MOVES:]
    return replace(
        state, hands=tuple(hands), laid=tuple(laid), turn=1 - seat, last_moves=last_moves
    )


def reveals_nothing(state: State, seat: int, move: Move) -> bool:
    """Laying a card draws none and shows nothing new, unless it ends the game."""
    return not is_over(apply(state, seat, move))


def _event_json(event: tuple[int, str]) -> dict:
    seat, card = event
    return {"seat": seat, "kind": "lay", "card": card}


apply_logged = logged_apply(apply, LAST_MOVES, _event_json)


def totals(state: State) -> list[int]:
    return [sum(value(c) for c in pile) for pile in state.laid]


def outcome(state: State) -> list[dict]:
    scores = totals(state)
    best = max(scores)
    return [
        {"seat": seat, "score": score, "rank": 1 if score == best else 2}
        for seat, score in enumerate(scores)
    ]


def view(state: State, seat: int | None) -> dict:
    return {
        "hand": list(state.hands[seat]) if seat is not None else [],
        "hand_sizes": [len(hand) for hand in state.hands],
        "laid": [list(pile) for pile in state.laid],
        "totals": totals(state),
        "deck_size": len(state.deck),
        "turn": state.turn,
        "seat": seat,
        "over": is_over(state),
        "last_moves": [_event_json(event) for event in state.last_moves],
    }


def dump(state: State) -> dict:
    return {
        "hands": [list(hand) for hand in state.hands],
        "laid": [list(pile) for pile in state.laid],
        "deck": list(state.deck),
        "turn": state.turn,
        "last_moves": [list(event) for event in state.last_moves],
    }


def load(data: dict) -> State:
    return State(
        hands=tuple(tuple(hand) for hand in data["hands"]),
        laid=tuple(tuple(pile) for pile in data["laid"]),
        deck=tuple(data["deck"]),
        turn=data["turn"],
        last_moves=tuple((seat, card) for seat, card in data["last_moves"]),
    )


def all_cards(state: State) -> list[str]:
    return [c for zone in (*state.hands, *state.laid, state.deck) for c in zone]


def sample_state(view_data: dict, rng) -> State:
    seat = view_data["seat"]
    seen = set(view_data["hand"]) | {c for pile in view_data["laid"] for c in pile}
    unseen = [c for c in DECK if c not in seen]
    rng.shuffle(unseen)
    hands = []
    for other, size in enumerate(view_data["hand_sizes"]):
        if other == seat:
            hands.append(tuple(view_data["hand"]))
        else:
            hands.append(tuple(unseen[:size]))
            unseen = unseen[size:]
    return State(
        hands=tuple(hands),
        laid=tuple(tuple(pile) for pile in view_data["laid"]),
        deck=tuple(unseen),
        turn=view_data["turn"],
        last_moves=tuple((e["seat"], e["card"]) for e in view_data["last_moves"]),
    )
