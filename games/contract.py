"""What a game provides: the whole contract between a game app and the table machinery.

A game is one Django app (its config a :class:`games.registry.GameAppConfig`, its label the
game's key) with three modules and a few templates:

``engine.py``   the rules, pure Python (no Django import): every member of :class:`Engine`
``bots.py``     pure Python too: :class:`Bots`
``present.py``  the table in words and pictures: a :class:`Presentation` named ``PRESENTATION``,
                which names the functions of the module that the machinery calls; every hook
                but ``describe_move`` is optional, and its default is written below
templates       ``<key>/table.html``, ``card.html``, ``rules_es.html``, ``rules_en.html``
                (:data:`TEMPLATES`), and the stylesheet ``static/<key>/table.css``

:func:`check` runs once when the game's app is ready: a game that lacks a required part fails
at start, with a message that names the part. Nothing else in the machinery looks a hook up by
name. ``tests/toygame/`` is the smallest complete game that meets this contract.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Protocol

from games.engine import Info, Option

#: A public event of a view's ``last_moves``, as JSON.
Event = dict[str, Any]
#: One move in words, as ``describe_move`` returns it (``games.present.move_line`` makes one):
#: ``seat``, ``kind``, ``who`` (the mover's name or ``None``), ``text``, ``cards`` (card dicts
#: for the game's ``card.html``), ``badge`` (or ``None``) and ``sentence`` (``who`` + ``text``).
MoveLine = dict[str, Any]

#: The game's own templates, under ``templates/<key>/``.
TEMPLATES = ("table.html", "card.html", "rules_es.html", "rules_en.html")


class Engine(Protocol):
    """An engine module (``games/<key>/engine.py``). Every member is required.

    States are immutable (``apply`` returns a new state and never changes its input); every
    shuffle comes from the game's seed through :func:`games.cards.shuffled`. Errors a person
    reads are :class:`games.engine.InvalidOptions`, ``InvalidMove`` and ``IllegalMove``.
    """

    #: Key, title, min and max players.
    INFO: Info
    #: The house rules an admin may set.
    OPTIONS: tuple[Option, ...]
    #: Every card id the game uses (all player counts).
    DECK: tuple[str, ...]

    def new_game(self, players: int, options: dict | None = None, seed: int = 0) -> Any:
        """The first state; bad options or player count raise ``InvalidOptions``."""

    def to_move(self, state: Any) -> tuple[int, ...]:
        """The seats whose decision is awaited (several at once in a simultaneous phase;
        empty when the game is over)."""

    def legal_moves(self, state: Any, seat: int) -> list[Any]:
        """The moves (frozen, hashable, each with a short string ``code``); empty if ``seat``
        is not to move."""

    def parse_move(self, code: str) -> Any:
        """The move for a code; garbage raises ``InvalidMove``."""

    def apply(self, state: Any, seat: int, move: Any) -> Any:
        """The next state; an illegal move raises ``IllegalMove`` saying why."""

    def apply_logged(self, state: Any, seat: int, move: Any) -> tuple[Any, list[Event]]:
        """``apply``, and the public events the move made, in order: the game log is built
        from these. Made by :func:`games.engine.logged_apply` from ``apply``, for a state that
        keeps its recent public events in a ``last_moves`` field."""

    def reveals_nothing(self, state: Any, seat: int, move: Any) -> bool:
        """Whether ``seat`` playing the legal ``move`` from ``state`` learns nothing it did not
        know before (no card drawn, no hand revealed, no new deal, the game not over): only
        such a move may be taken back, where the house rules allow takebacks."""

    def view(self, state: Any, seat: int | None) -> dict:
        """A JSON-able dict of exactly what ``seat`` may see (``None``: a spectator), with the
        recent public events under ``"last_moves"``: the same for every seat and a spectator
        (the table words and draws them once per version, ``games.present.recent_moves``)."""

    def is_over(self, state: Any) -> bool:
        """Whether the game has ended."""

    def outcome(self, state: Any) -> list[dict]:
        """When over: ``{"seat", "score", "rank"}`` per seat, rank 1 best, equal ranks for
        shared places."""

    def dump(self, state: Any) -> dict:
        """The state as JSON (stored on the match); hidden zones under ``"hands"`` (a list per
        seat) and ``"deck"``."""

    def load(self, data: dict) -> Any:
        """The state of a dump: ``dump(load(d)) == d``."""

    def all_cards(self, state: Any) -> list[str]:
        """Every card in some zone, each once (the tests check that cards are conserved)."""

    def sample_state(self, view: dict, rng: random.Random) -> Any:
        """A full state consistent with a seat's ``view``, the cards it cannot see dealt at
        random: bots search on it, and it is never given the real hidden cards."""


class Bots(Protocol):
    """A bots module (``games/<key>/bots.py``)."""

    def choose(self, view: dict, moves: list[Any], level: str, rng: random.Random) -> Any:
        """One of ``moves`` for the seat whose ``view`` this is, at ``level`` (``"easy"`` or
        ``"hard"``), its randomness from ``rng`` only (seeded from the match)."""


def _no_extra_context(view: dict, moves: list, seat: int | None) -> dict:
    return {}


def _every_recent_event(view: dict) -> list[Event]:
    return view["last_moves"]


def _no_strip(view: dict, names: Sequence[str]) -> tuple[list[MoveLine], list[str]]:
    return [], []


def _card_id(card_id: str) -> str:
    return card_id


def _no_sprite() -> str:
    return ""


@dataclass(frozen=True)
class Presentation:
    """What the machinery calls in a game's ``present.py``, named there as ``PRESENTATION``.

    ``describe_move`` is required; each other hook has the default given here.
    """

    #: ``(event, names) -> MoveLine``: one public event in words, given the seats' names by
    #: index. The table's last moves, the "just happened" strip, the game log and the replay
    #: all use it, so a move reads the same everywhere.
    describe_move: Callable[[Event, Sequence[str]], MoveLine]
    #: ``(view, moves, seat) -> dict``: extra context for the game's ``table.html``.
    table_context: Callable[[dict, list, int | None], dict] = _no_extra_context
    #: ``(view) -> events``: the recent events the table lists (by default all the view has).
    recent_events: Callable[[dict], list[Event]] = _every_recent_event
    #: ``(view, names) -> (lines, card ids)``: the last move for the table's "just happened"
    #: strip and its screen-reader announcement (by default none is shown).
    last_move: Callable[[dict, Sequence[str]], tuple[list[MoveLine], list[str]]] = _no_strip
    #: ``(card id) -> str``: a card's name in the member's language, for the engine's messages
    #: (by default the id itself).
    card_name: Callable[[str], str] = _card_id
    #: ``(card, small=False) -> html``: one card drawn in Python, for the move lines; ``None``
    #: (the default) draws each with the game's ``card.html`` (see ``bound``).
    card_html: Callable[..., str] | None = None
    #: ``() -> html``: drawings the cards refer to, once per full page (by default none).
    card_sprite: Callable[[], str] = _no_sprite
    #: Whether the table's last-moves list draws the cards of each line (the game log does).
    last_moves_drawn: bool = True
    #: What the game log groups the moves by: ``"round"`` or ``"hand"``.
    log_group: str = "round"

    def __post_init__(self) -> None:
        if self.log_group not in ("round", "hand"):
            raise TypeError(f"log_group must be 'round' or 'hand', not {self.log_group!r}")

    def bound(self, card_template: str) -> Presentation:
        """This presentation with ``card_html`` always set: by default, the ``card_template``
        rendered for each card."""
        if self.card_html is not None:
            return self
        from dataclasses import replace

        from django.template.loader import get_template

        def card_html(card, small: bool = False) -> str:
            return get_template(card_template).render({"card": card, "small": small})

        return replace(self, card_html=card_html)


def _missing(module: ModuleType, protocol: type) -> list[str]:
    """The members of ``protocol`` (its annotated constants and its methods) that ``module``
    lacks."""
    wanted = [*protocol.__annotations__]
    wanted += [name for name, value in vars(protocol).items() if callable(value) and name[0] != "_"]
    return [name for name in wanted if not hasattr(module, name)]


def check(name: str, engine: ModuleType, bots: ModuleType, present: ModuleType) -> Presentation:
    """Check a game's modules against the contract and return its presentation.

    ``name`` is the app's module path (``games.<key>``). Raises ``TypeError`` naming the
    first missing part.
    """
    for module, protocol in ((engine, Engine), (bots, Bots)):
        missing = _missing(module, protocol)
        if missing:
            raise TypeError(
                f"{module.__name__} does not meet the game contract (games.contract."
                f"{protocol.__name__}): it has no {', '.join(missing)}"
            )
    presentation = vars(present).get("PRESENTATION")
    if not isinstance(presentation, Presentation):
        raise TypeError(
            f"{name}.present has no PRESENTATION: a games.contract.Presentation naming its "
            "describe_move and the optional hooks it defines"
        )
    return presentation
