"""What every engine builds on (pure Python, no Django import).

What an engine module must provide is :class:`games.contract.Engine`. This module holds the
pieces they share: the errors a person reads (:class:`InvalidOptions`, :class:`InvalidMove`,
:class:`IllegalMove`), :class:`Info` and :class:`Option` with :func:`resolve_options` and
:func:`check_players`, :func:`logged_apply` (an engine's ``apply_logged``), and
:func:`replay` / :func:`replay_logged` (a move log played from a first state).

States are immutable: ``apply`` returns a new state and never changes its input. Every shuffle
comes from the game's seed through :func:`games.cards.shuffled`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any


def gettext_noop(message: str) -> str:
    """Mark an English source string for translation without importing Django.

    ``makemessages`` extracts every ``gettext_noop("...")`` call by name, so engine messages,
    option labels and titles land in the catalogue; the web layer translates them when it shows
    them (``gettext(error.template) % error.params``).
    """
    return message


class EngineError(ValueError):
    """An error a person will read.

    ``template`` is an English source string marked with :func:`gettext_noop`, with
    ``%(name)s`` placeholders filled from ``params``; ``str(error)`` is the English message.
    """

    def __init__(self, template: str, **params: Any) -> None:
        self.template = template
        self.params = params
        super().__init__(template % params if params else template)


class InvalidOptions(EngineError):
    """The house rules or the number of players cannot make a game."""


class InvalidMove(EngineError):
    """A move code that does not name any move of this game (garbage input)."""


class IllegalMove(EngineError):
    """A well-formed move that the rules do not allow now; the message says why."""


@dataclass(frozen=True)
class Info:
    key: str
    title: str
    min_players: int
    max_players: int


@dataclass(frozen=True)
class Option:
    """One house rule. ``kind`` is ``"choice"``, ``"int"`` or ``"bool"``.

    ``label`` and ``help`` are English source strings; the web layer translates them.
    ``choices`` is a tuple of ``(value, label)`` pairs for a choice; ``min_value``/``max_value``
    bound an int, and ``zero`` is what an int of 0 means when it means more than the number (an
    English source string, shown in its place).
    """

    name: str
    label: str
    kind: str
    default: Any
    help: str = ""
    choices: tuple[tuple[Any, str], ...] = field(default=())
    min_value: int | None = None
    max_value: int | None = None
    zero: str = ""


def resolve_options(options_spec: tuple[Option, ...], given: dict | None) -> dict:
    """Fill defaults and check every given option against its spec.

    Raises :class:`InvalidOptions` naming the option and what was wrong, so an admin form can
    show it next to the field. Engine-specific cross-checks (e.g. pairs only with 4 players)
    stay in each engine's ``new_game``.
    """
    given = dict(given or {})
    known = {opt.name: opt for opt in options_spec}
    unknown = sorted(set(given) - set(known))
    if unknown:
        raise InvalidOptions(
            gettext_noop("Unknown house rule: %(names)s."), names=", ".join(unknown)
        )
    resolved: dict[str, Any] = {}
    for opt in options_spec:
        value = given.get(opt.name, opt.default)
        if opt.kind == "choice":
            allowed = [c[0] for c in opt.choices]
            if value not in allowed:
                raise InvalidOptions(
                    gettext_noop("%(label)s: %(value)s is not one of %(allowed)s."),
                    label=opt.label,
                    value=repr(value),
                    allowed=", ".join(map(str, allowed)),
                )
        elif opt.kind == "int":
            if isinstance(value, bool) or not isinstance(value, int):
                raise InvalidOptions(
                    gettext_noop("%(label)s: must be a whole number."), label=opt.label
                )
            if opt.min_value is not None and value < opt.min_value:
                raise InvalidOptions(
                    gettext_noop("%(label)s: must be at least %(min)s."),
                    label=opt.label,
                    min=opt.min_value,
                )
            if opt.max_value is not None and value > opt.max_value:
                raise InvalidOptions(
                    gettext_noop("%(label)s: must be at most %(max)s."),
                    label=opt.label,
                    max=opt.max_value,
                )
        elif opt.kind == "bool":
            if not isinstance(value, bool):
                raise InvalidOptions(gettext_noop("%(label)s: must be yes or no."), label=opt.label)
        else:  # pragma: no cover - a programming error in an engine's OPTIONS
            raise TypeError(f"unknown option kind {opt.kind!r}")
        resolved[opt.name] = value
    return resolved


def check_players(info: Info, players: int) -> None:
    """Raise :class:`InvalidOptions` unless ``players`` is within the game's limits."""
    if isinstance(players, bool) or not isinstance(players, int):
        raise InvalidOptions(gettext_noop("The number of players must be a whole number."))
    if not info.min_players <= players <= info.max_players:
        if info.min_players == info.max_players:
            raise InvalidOptions(
                gettext_noop("%(game)s is played by exactly %(min)s players."),
                game=info.title,
                min=info.min_players,
            )
        raise InvalidOptions(
            gettext_noop("%(game)s is played by %(min)s to %(max)s players, not %(players)s."),
            game=info.title,
            min=info.min_players,
            max=info.max_players,
            players=players,
        )


# --- Pieces every engine shares: the logged apply and replaying a log -----------------------


def logged_apply(
    apply: Callable[[Any, int, Any], Any], keep: int, event_json: Callable[[Any], dict]
) -> Callable[[Any, int, Any], tuple[Any, list[dict[str, Any]]]]:
    """An engine's ``apply_logged``, made from its ``apply``.

    Every engine's state remembers its last ``keep`` public events in ``last_moves`` (what the
    view shows as ``last_moves``, each event made JSON by ``event_json``). The log of a whole
    match is built by replaying its moves through ``apply_logged``, which returns ``apply``'s
    state and the public events that this move made, in order. The move is applied to the state
    with its recent events cleared, so that exactly the new ones are left (no move makes
    ``keep`` events), then the recent events are put back in front of them. The events are the
    ones every seat sees, so the log reveals nothing hidden.
    """

    def apply_logged(state: Any, seat: int, move: Any) -> tuple[Any, list[dict[str, Any]]]:
        after = apply(replace(state, last_moves=()), seat, move)
        events = [event_json(event) for event in after.last_moves]
        return replace(after, last_moves=(*state.last_moves, *after.last_moves)[-keep:]), events

    apply_logged.__doc__ = "``apply``, and the public events this move made (see ``logged_apply``)."
    return apply_logged


def replay(engine: Any, state: Any, moves: Iterable[tuple[int, str]]) -> Any:
    """The state that the logged ``moves`` (``(seat, code)`` pairs, in order) reach from
    ``state`` (usually the engine's ``new_game`` for the match's players, options and seed)."""
    for seat, code in moves:
        state = engine.apply(state, seat, engine.parse_move(code))
    return state


def replay_logged(
    engine: Any, state: Any, moves: Iterable[tuple[int, str]]
) -> Iterator[tuple[Any, list[dict[str, Any]]]]:
    """:func:`replay` one move at a time: after each move, its state and the public events it
    made (``apply_logged``), for the game log."""
    for seat, code in moves:
        state, events = engine.apply_logged(state, seat, engine.parse_move(code))
        yield state, events
