"""The game log: every move of a match in words, grouped by hand or round.

The state keeps only the last few public events (the view's ``last_moves``), so the whole log
is rebuilt by replaying the match's moves through the engine's ``apply_logged``, which returns
the public events each move made. Each event is put into words by the game's
``present.describe_move`` — the same function the table's last-moves list uses — so a move reads
the same on the table, in the log and in the replay. Only public events are described: the log
may be shown to every seat and spectator while the match is being played.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.utils.translation import gettext as _

from games import registry
from games.contract import Presentation
from games.engine import replay_logged
from games.models import Match


@dataclass
class Group:
    """One hand (or round) of the log: its number and its lines."""

    number: int
    title: str
    lines: list[dict] = field(default_factory=list)


def seat_names(seats) -> list[str]:
    """The seats' display names by seat index (what ``describe_move`` takes)."""
    by_index = {seat.index: seat.display_name for seat in seats}
    return [by_index.get(i, "?") for i in range(max(by_index, default=-1) + 1)]


def describe_events(present: Presentation, events, names: list[str]) -> list[dict]:
    """Public events (a view's ``last_moves``) in words, newest first, for a last-moves list."""
    return [present.describe_move(event, names) for event in reversed(events)]


def match_log(match: Match, seats=None, records=None) -> list[Group]:
    """The whole match so far, in words, oldest first, grouped by hand or round.

    Each line is a ``describe_move`` result with ``number``: the move that made it (1 for the
    first move; ``None`` for what the deal itself made, e.g. the cards taken at the deal), so the replay
    can link every line to its step.
    """
    app = registry.get(match.game)
    engine = app.engine
    seats = list(seats if seats is not None else match.seats.all())
    names = seat_names(seats)
    # Time-outs are not moves (the engine knows nothing of clocks): each is put in its place,
    # after the moves that had been played when the seat's time ran out.
    late: dict[int, list] = {}
    for seat in seats:
        if seat.timed_out and seat.timed_out_after is not None:
            late.setdefault(seat.timed_out_after, []).append(seat)
    if records is None:
        records = list(match.moves.order_by("seq").values_list("seat", "code"))
    first = match.new_game()
    groups: list[Group] = []
    ended = 0  # rounds ended so far, for games whose events do not carry their number

    def add(event: dict, number: int | None) -> None:
        nonlocal ended
        # The hand (Escoba) or round (Scout, Schotten Totten's round end) the event names,
        # else the round after the last one that ended.
        group = event.get("hand") or event.get("round") or ended + 1
        if event["kind"] == "round_end":
            ended = group
        if not groups or groups[-1].number != group:
            groups.append(Group(group, group_title(app.present, group)))
        line = app.present.describe_move(event, names)
        groups[-1].lines.append({**line, "number": number})

    def add_time_outs(after: int) -> None:
        for seat in late.get(after, ()):
            if not groups:
                groups.append(Group(ended + 1, group_title(app.present, ended + 1)))
            groups[-1].lines.append(time_out_line(seat))

    for event in engine.view(first, None)["last_moves"]:
        add(event, None)
    add_time_outs(0)
    for number, (_state, events) in enumerate(replay_logged(engine, first, records), start=1):
        for event in events:
            add(event, number)
        add_time_outs(number)
    return groups


def time_out_line(seat) -> dict:
    """A log line in the shape of ``describe_move``'s: "ana lost on time"."""
    text = _("lost on time")
    return {
        "seat": seat.index,
        "kind": "time_out",
        "who": seat.display_name,
        "text": text,
        "cards": [],
        "badge": None,
        "sentence": f"{seat.display_name} {text}",
        "number": None,
    }


def group_title(present: Presentation, number: int) -> str:
    """ "Hand 3" where the game's ``log_group`` is ``"hand"`` (Escoba), else "Round 3"."""
    if present.log_group == "hand":
        return _("Hand %(number)s") % {"number": number}
    return _("Round %(number)s") % {"number": number}
