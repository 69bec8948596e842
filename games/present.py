"""What the table templates need, built from the engine's view for one seat — never the state.

The game's own part comes from its presentation (``games.contract.Presentation``): extra
context for its ``table.html`` and ``describe_move``, one public event in words. The table's
last moves (``last_lines`` below), the game log and the replay all use ``describe_move``
(``games.log``), so a move reads the same everywhere.
"""

from __future__ import annotations

from django.urls import reverse
from django.utils.translation import gettext as _

from games import registry
from games.contract import Presentation
from games.log import describe_events, seat_names
from games.models import Match, translate_engine_error  # noqa: F401  (re-exported)


def describe_options(game: str, options: dict) -> list[tuple[str, str]]:
    """The house rules in force as (label, value) pairs in the member's language."""
    engine = registry.engine(game)
    rows = []
    for opt in engine.OPTIONS:
        value = options.get(opt.name, opt.default)
        if opt.kind == "choice":
            shown = next((_(label) for v, label in opt.choices if v == value), str(value))
        elif opt.kind == "bool":
            shown = _("yes") if value else _("no")
        else:
            shown = str(value)
        rows.append((_(opt.label), shown))
    return rows


def table_context(
    match: Match, user, state=None, error: str | None = None, step: bool = False
) -> dict:
    """Everything a table template may use: the seat's own view, its legal moves, the seats.

    ``state`` is the engine state when the caller already has it (after a move). ``step``: the
    table as one earlier move left it, shown on the way to the current one (no move offered).
    """
    app = registry.get(match.game)
    engine = app.engine
    seat = match.seat_of(user)
    seat_index = seat.index if seat else None
    seats = list(match.seats.all())
    # Each seat's clock as of now, for the seats panel (None: no clock, or a bot's seat).
    shown = match.clock_seats()
    for s in seats:
        s.clock = shown.get(s.index)
    context = {
        "match": match,
        "seats": seats,
        "my_seat": seat,
        "seat_index": seat_index,
        "game_template": app.template("table.html"),
        "card_template": app.template("card.html"),
        "view": None,
        "moves": [],
        "error": error,
        # A finished match stays live while it offers a rematch (its answers redraw the table).
        "poll": match.status in (Match.Status.OPEN, Match.Status.PLAYING) or match.offers_rematch(),
        # The push stream brings each move at once; only while it is down does static/js/live.js
        # poll. While a bot is to move, its moves come every half second or so (the worker's
        # pause): the fallback then looks more often, so each shows as its own step.
        "poll_ms": 500 if any(s.plays_as_bot and s.to_move for s in seats) else 2000,
        # Reversed once here: a table has a form per legal move, and all post to it.
        "move_url": reverse("games:move", args=[match.pk]),
        "poll_url": reverse("games:poll", args=[match.pk]),
        "live_url": reverse("games:live", args=[match.pk]),
        "just": None,
        "step": step,
        "rules_url": match.get_rules_url(),
    }
    if match.state is None:
        return context
    if state is None:
        state = engine.load(match.state)
    view = engine.view(state, seat_index)
    moves = []
    # A member who lost on time watches an easy bot play their seat.
    if (
        seat is not None
        and match.status == Match.Status.PLAYING
        and not step
        and not seat.timed_out
    ):
        moves = engine.legal_moves(state, seat_index)
    context.update(view=view, moves=moves)
    mark_partners(context["seats"], view)
    present = app.present
    # The recent moves in words, by the same describe_move as the game log and the replay.
    # A game may show fewer recent events than the view holds (``recent_events``).
    lines = describe_events(present, present.recent_events(view), seat_names(context["seats"]))
    # A game whose move lines name every card in words may leave out their drawings at the
    # table (``last_moves_drawn=False``): every fragment carries these lines, and the
    # "Last move" strip still draws the newest move's cards. The game log keeps them.
    if not present.last_moves_drawn:
        lines = [{**line, "cards": []} for line in lines]
    context["last_lines"] = lines
    context.update(present.table_context(view, moves, seat_index))
    if match.moves_played:
        context["just"] = just_happened(present, view, context["seats"])
    return context


def mark_partners(seats, view: dict) -> None:
    """In a game played by sides of several seats (Escoba in pairs: the view's ``sides``), give
    each seat its side's number (``pair``, from 1) and its partners' names (``partners``), for
    the seats panel. Public: who plays with whom is no secret."""
    sides = view.get("sides") or []
    if not any(len(side.get("seats", ())) > 1 for side in sides):
        return
    by_index = {seat.index: seat for seat in seats}
    for number, side in enumerate(sides, start=1):
        members = [by_index[i] for i in side["seats"] if i in by_index]
        for seat in members:
            seat.pair = number
            seat.partners = [other.display_name for other in members if other is not seat]


def just_happened(present: Presentation, view: dict, seats) -> dict | None:
    """The last move for the table's "just happened" strip and the screen-reader announcement:
    one sentence per event it made, and the cards it placed, captured, claimed or scouted.

    Built from the seat's ``view`` only (its public recent moves), so it shows nobody anything
    the table does not already show them.
    """
    lines, ids = present.last_move(view, seat_names(seats))
    if not lines:
        return None
    # Each event in the words of the game's describe_move, the one way a move is described
    # (the last-moves list, the game log and the replay say the same).
    sentences = [
        f"{line['sentence']} — {line['badge']}" if line.get("badge") else line["sentence"]
        for line in lines
    ]
    return {
        "sentence": ". ".join(s.rstrip(".") for s in sentences) + ".",
        "cards": ids,
        "ids": " ".join(ids),
        "seat": lines[0]["seat"],
    }


def move_line(event: dict, names, kind: str, text: str, cards, badge=None) -> dict:
    """One move in words, as every game's ``describe_move`` returns it: who did what, the
    cards it showed, a badge, and the whole sentence (read out by the table's live region)."""
    seat = event.get("seat")
    who = names[seat] if seat is not None else None
    return {
        "seat": seat,
        "kind": kind,
        "who": who,
        "text": text,
        "cards": cards,
        "badge": badge,
        "sentence": f"{who} {text}" if who else text,
    }
