"""The match as committed at one version, read once per process (issue 34).

Every page of a table fetches its fragment when the push says "version N is committed", so a
version is read by each page that shows it: the mover's answer, the other seats, spectators.
Reading the match, its variant, its seats and their members again for each costs two joins a
request; here the first reader (or the move that committed the version) keeps them, and the
others take them from this process's memory.

Why it is never stale: every action that changes a match or its seats counts its version up
and writes ``updated_at`` (``games/turns.py`` and the other writes; the push carries the version), and the key is
the match id, the version and ``updated_at``, read from the match row itself by the caller
(one primary-key read of two columns, which the poll does anyway). A rolled-back test
database, or a restored one, reuses ids and versions but not the instant of the change.

What is kept is what the database holds, not what anybody was shown: the match row (its state
included, which never leaves the server), its variant, the seats and their members, and the
engine's state loaded from the row (:func:`state_of`). Each request gets its own copies of the
match and the seats (the table marks each seat's clock on it) and computes its own seat's view
from the state, for that seat only (``games.present.table_context``); nothing drawn for one
seat is kept here, only what every seat and spectator of the version is shown alike
(:func:`shared`: the recent moves) and what every spectator is shown (:func:`drawn`: their
table, ``games.access.spectators_drawing_key``). The loaded state is shared, not copied:
engine states are immutable (``games.contract.Engine``), so no request can change what another
reads.

Per process and bounded (:data:`SIZE` versions, the least recently used dropped): no shared
cache to pickle into and out of, and a process restarted starts empty.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from datetime import datetime
from time import monotonic
from typing import Any

from django.db.models.base import ModelState

from cardclub import rows
from games.models import Match, Seat

SIZE = 512

Key = tuple[int, int, datetime]


class _Version:
    """What is kept of one version: the match, its seats, and what is worked out from them
    once for every later request (:func:`_once`: the loaded state, what every viewer is shown
    alike)."""

    __slots__ = ("match", "seats", "once")

    def __init__(self, match: Match, seats: list[Seat], once: dict):
        self.match, self.seats, self.once = match, seats, once


_kept: OrderedDict[Key, _Version] = OrderedDict()
_lock = threading.Lock()


def key_of(match: Match) -> Key:
    return (match.pk, match.version, match.updated_at)


def row(match_id: int, fields: tuple[str, ...]) -> list | None:
    """``fields`` of the match's row as committed now (``None``: no such match), by one plain
    statement: read on every poll and fragment, where the ORM's building of the query cost
    more than the rest of a poll that answers 204 (``cardclub/rows.py``)."""
    return rows.values(Match, fields, "id = %s", [match_id])


def current_key(match_id: int) -> Key | None:
    """The key of the match as committed now (``None``: no such match), from its row."""
    found = row(match_id, ("version", "updated_at"))
    return None if found is None else (match_id, *found)


def keep(match: Match, state: Any = None) -> None:
    """Keep ``match`` (its seats prefetched) as committed: after the commit, or as read.
    ``state``: its engine state, loaded, when the caller has it (the move that made it)."""
    twin = _copy(match, list(match.seats.all()))  # the caller goes on marking its own
    with _lock:
        once = {} if state is None else {_STATE: state}
        _kept[key_of(match)] = _Version(twin, list(twin.seats.all()), once)
        _kept.move_to_end(key_of(match))
        while len(_kept) > SIZE:
            _kept.popitem(last=False)


def kept(key: Key) -> Match | None:
    """A copy of the match kept under ``key``, its seats prefetched (copies too), or ``None``."""
    with _lock:
        found = _kept.get(key)
        if found is not None:
            _kept.move_to_end(key)
    if found is None:
        return None
    return _copy(found.match, found.seats)


def state_of(match: Match) -> Any:
    """The engine state of ``match`` (``None`` before it starts), loaded once per kept version:
    the move that committed it passes it on, and the first reader's load serves the rest."""
    if match.state is None:
        return None
    return _once(key_of(match), _STATE, lambda: match.engine.load(match.state))


def shared(match: Match, name: tuple, make: Callable[[], Any]) -> Any:
    """``make()``, worked out once for the kept version of ``match`` under ``name`` and given
    to every later caller for that version: for what every seat and spectator of a version is
    shown alike (the recent moves in words, ``games.present.recent_moves``), ``name`` holding
    whatever else it depends on (the language, the seats' names). Never for what one seat may
    see: the caller answers for that. A version not kept is worked out every time."""
    return _once(key_of(match), ("shown", *name), make)


def drawn(key: Key, name: tuple, draw: Callable[[], Any], fresh_for: float | None = None) -> Any:
    """``draw()``, a part of a page drawn once for the version kept under ``key`` and given to
    every later caller for it (``games/templatetags/drawn_once.py``), ``name`` holding whatever
    else the drawing depends on. The caller answers for who may be given it. A version not
    kept is drawn every time.

    ``fresh_for``: seconds for which the drawing may be given, for a drawing that holds the
    time as of its drawing (a clock); an older one is drawn again and kept in its place."""
    name = ("drawn", *name)
    if fresh_for is None:
        return _once(key, name, draw)
    now = monotonic()
    made_at, drawing = _once(key, name, lambda: (now, draw()))
    if now - made_at < fresh_for:
        return drawing
    drawing = draw()
    with _lock:
        found = _kept.get(key)
        if found is not None:
            found.once[name] = (now, drawing)
    return drawing


_STATE = ("engine state",)
_MISSING = object()


def _once(key: Key, name: tuple, make: Callable[[], Any]) -> Any:
    """``make()`` kept under ``name`` with the version kept under ``key``, or made afresh for
    a version not kept."""
    with _lock:
        found = _kept.get(key)
        value = found.once.get(name, _MISSING) if found is not None else _MISSING
    if value is _MISSING:
        value = make()
        if found is not None:
            found.once[name] = value  # two first callers may both make it: the same value
    return value


def forget_all() -> None:
    with _lock:
        _kept.clear()


def _copy(match: Match, seats: list[Seat]) -> Match:
    """The match and its seats as new objects sharing only what nobody changes (the variant,
    the members): a request may mark its copies, never another request's."""
    twin = _twin(match)
    twin._prefetched_objects_cache = {}
    twin.hold_seats([_twin(seat) for seat in seats])
    return twin


def _twin(instance):
    """A shallow copy of a model instance, as ``copy.copy`` makes it (its own attributes, its
    own ``_state`` and cache of related objects, which it shares), without going through
    pickling's ``__reduce__``: ``copy.copy`` of the match and two seats was 80 µs of every
    fragment in a busy process. (The match and seats have no binary field, which pickling
    would turn into bytes and back.)"""
    twin = instance.__class__.__new__(instance.__class__)
    twin.__dict__.update(instance.__dict__)
    state = twin._state = ModelState()
    state.db, state.adding = instance._state.db, instance._state.adding
    state.fields_cache = dict(instance._state.fields_cache)
    return twin
