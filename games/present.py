"""What the table templates need, built from the engine's view for one seat — never the state.

The game's own part comes from its presentation (``games.contract.Presentation``): extra
context for its ``table.html`` and ``describe_move``, one public event in words. The table's
last moves (``last_lines`` below), the game log and the replay all use ``describe_move``
(``games.log``), so a move reads the same everywhere.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property, lru_cache, wraps

from django.utils.translation import get_language
from django.utils.translation import gettext as _

from cardclub.reversing import kept_reverse
from games import registry, versions
from games.contract import Presentation
from games.log import describe_events, seat_names
from games.models import Clock, Match, RuleVariant, translate_engine_error  # noqa: F401  (re-exported)


@dataclass(frozen=True)
class PublicMember:
    """A seated member as a page names them (a template never gets the ``User``)."""

    username: str


@dataclass(frozen=True)
class PublicSeat:
    """A seat as every page of the match may show it."""

    index: int
    user_id: int | None
    #: ``None`` for a bot's or a free seat.
    user: PublicMember | None
    display_name: str
    is_bot: bool
    plays_as_bot: str
    is_free: bool
    to_move: bool
    resigned: bool
    timed_out: bool
    score: int | None
    rank: int | None
    #: The seat's clock as of the render (a value of ``Match.clock_seats``), or ``None``.
    clock: dict | None = None
    #: In a game of sides (Escoba in pairs): the side's number from 1, and the partners' names.
    pair: int | None = None
    partners: tuple[str, ...] = ()

    @classmethod
    def of(cls, seat, clock: dict | None = None) -> PublicSeat:
        return cls(
            index=seat.index,
            user_id=seat.user_id,
            user=PublicMember(seat.user.get_username()) if seat.user_id else None,
            display_name=seat.display_name,
            is_bot=seat.is_bot,
            plays_as_bot=seat.plays_as_bot,
            is_free=seat.is_free,
            to_move=seat.to_move,
            resigned=seat.resigned,
            timed_out=seat.timed_out,
            score=seat.score,
            rank=seat.rank,
            clock=clock,
        )


class PublicVariant:
    """The match's house rules as a page names them: a fragment never shows the name, so the
    variant is read only when a page does and the match did not bring it along."""

    def __init__(self, pk: int, name: str | None = None):
        self.pk = pk
        if name is not None:
            self.name = name

    @cached_property
    def name(self) -> str:
        return RuleVariant.objects.get(pk=self.pk).name

    @classmethod
    def of(cls, match: Match) -> PublicVariant:
        return cls(match.variant_id, match.variant.name if Match.variant.is_cached(match) else None)


@dataclass(frozen=True)
class PublicMatch:
    """What the match's pages may show of it: its public facts, read-only.

    Templates get this, never the :class:`~games.models.Match`, which carries the engine's state
    (every hidden card) and the seed (every card to come): a careless ``{{ match.seed }}`` has
    nothing to find. The names are the model's, so a template reads the same.
    """

    pk: int
    game: str
    status: str
    version: int
    moves_played: int
    variant_id: int
    variant: PublicVariant
    invite_token: str
    clock: str
    clock_minutes: int | None
    clock_increment: int
    clock_days: int | None
    clock_turn_started: datetime | None
    seats: tuple[PublicSeat, ...]
    # What the social panels read (cardclub/social): a league fixture offers no rematch; the
    # house rules may allow takebacks.
    for_fixture: bool = False
    takebacks: bool = False
    # Whether "Play again" is still offered (cardclub/social), and whether this request is the
    # one that ended the match (then no rematch can have been offered yet: no query).
    offers_rematch: bool = False
    ended_just_now: bool = False
    finished_at: datetime | None = None

    @classmethod
    def of(cls, match: Match, seats: tuple[PublicSeat, ...]) -> PublicMatch:
        return cls(
            pk=match.pk,
            game=match.game,
            status=match.status,
            version=match.version,
            moves_played=match.moves_played,
            variant_id=match.variant_id,
            variant=PublicVariant.of(match),
            invite_token=match.invite_token,
            clock=match.clock,
            clock_minutes=match.clock_minutes,
            clock_increment=match.clock_increment,
            clock_days=match.clock_days,
            clock_turn_started=match.clock_turn_started,
            seats=seats,
            for_fixture=match.for_fixture,
            takebacks=match.takebacks,
            offers_rematch=match.offers_rematch(),
            ended_just_now=match.ended_just_now,
            finished_at=match.finished_at,
        )

    @property
    def id(self) -> int:
        return self.pk

    def get_game_display(self) -> str:
        return registry.title(self.game)

    def get_absolute_url(self) -> str:
        return kept_reverse("games:match", self.pk)

    @property
    def has_clock(self) -> bool:
        return self.clock != Clock.NONE

    @property
    def free_seats(self) -> list[PublicSeat]:
        return [seat for seat in self.seats if seat.is_free]

    def seat_of(self, user) -> PublicSeat | None:
        """The user's seat, or ``None`` (as ``Match.seat_of``)."""
        if not getattr(user, "is_authenticated", False):
            return None
        return next((seat for seat in self.seats if seat.user_id == user.pk), None)


def public_facts(match: Match, seats=None, clocks: bool = False) -> PublicMatch:
    """The public facts of ``match`` (its ``seats`` when the caller has them loaded), with each
    seat's clock as of now when ``clocks``."""
    seats = list(match.seats.all() if seats is None else seats)
    shown = match.clock_seats(seats=seats) if clocks else {}
    return PublicMatch.of(match, tuple(PublicSeat.of(s, shown.get(s.index)) for s in seats))


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
        elif value == 0 and opt.zero:
            shown = _(opt.zero)
        else:
            shown = str(value)
        rows.append((_(opt.label), shown))
    return rows


def table_context(match: Match, user, state=None, error: str | None = None) -> dict:
    """Everything a table template may use: the seat's own view, its legal moves, the seats.

    ``state`` is the engine state when the caller already has it (after a move).
    """
    app = registry.get(match.game)
    engine = app.engine
    seat = match.seat_of(user)
    seat_index = seat.index if seat else None
    # Each seat's clock as of now, for the seats panel (None: no clock, or a bot's seat).
    facts = public_facts(match, clocks=True)
    seats = list(facts.seats)
    context = {
        "match": facts,
        "seats": seats,
        "my_seat": facts.seat_of(user),
        "seat_index": seat_index,
        "game_template": app.template("table.html"),
        "card_template": app.template("card.html"),
        "view": None,
        "moves": [],
        "error": error,
        # A finished match stays live while it offers a rematch (its answers redraw the table).
        "poll": match.status in (Match.Status.OPEN, Match.Status.PLAYING) or facts.offers_rematch,
        # A match ended by a resignation, a time-out or an abandon keeps the engine's state as
        # it was, someone still to move in it: the tables then name nobody's turn.
        "stopped": match.status in (Match.Status.FINISHED, Match.Status.ABANDONED),
        # The push stream brings each move at once; only while it is down does static/js/live.js
        # poll. While a bot is to move, its moves come every half second or so (the worker's
        # pause): the fallback then looks more often, so each shows as its own step.
        "poll_ms": 500 if any(s.plays_as_bot and s.to_move for s in seats) else 2000,
        # Reversed once here: a table has a form per legal move, and all post to it.
        "move_url": kept_reverse("games:move", match.pk),
        "poll_url": kept_reverse("games:poll", match.pk),
        "live_url": kept_reverse("games:live", match.pk),
        "just": None,
        "rules_url": match.get_rules_url(),
    }
    if match.state is None:
        return context
    if state is None:
        state = versions.state_of(match)
    view = engine.view(state, seat_index)
    moves = []
    # A member who lost on time watches an easy bot play their seat.
    if seat is not None and match.status == Match.Status.PLAYING and not seat.timed_out:
        moves = engine.legal_moves(state, seat_index)
    context.update(view=view, moves=moves)
    context["seats"] = with_partners(context["seats"], view)
    present = app.present
    context["last_lines"], context["just"] = recent_moves(match, present, view, context["seats"])
    context.update(present.table_context(view, moves, seat_index))
    return context


def spectators_table_context(
    match: Match,
    user,
    key: versions.Key,
    fresh_for: float | None = None,
    state=None,
    error: str | None = None,
) -> dict:
    """The context of a spectator's fragment whose table and seats are drawn once for the
    version under ``key`` and given to every other spectator (``games.access.
    spectators_drawing_key``; templates/games/match.html, partial "updates"), for ``fresh_for``
    seconds when given (``access.spectators_drawing_fresh_for``): what the fragment draws
    around them, and :func:`table_context` left for that drawing alone to work out
    (``drawing_context``, games/templatetags/drawn_once.py)."""
    facts = public_facts(match)
    return {
        "match": facts,
        "seats": list(facts.seats),
        "my_seat": None,
        "error": error,
        "shared_drawing_key": key,
        "shared_drawing_fresh_for": fresh_for,
        "drawing_context": lambda: table_context(match, user, state, error),
    }


class DrawnOnce(list):
    """A list that every viewer of a version is shown alike (the recent moves in words, the
    cards of the last move), kept with its drawing: the tag that draws it does so once
    (``games_tags.last_move_items`` and ``small_cards``) and gives the drawing back after."""

    drawn = None


def recent_moves(
    match: Match, present: Presentation, view: dict, seats
) -> tuple[list, dict | None]:
    """The table's last moves in words (``last_lines``) and its "Last move" strip (``just``),
    worked out and drawn once per version, language and seat names in this process
    (``games.versions.shared``), for every seat and spectator of the version.

    That is safe because they are built from the view's recent events only, which the engine
    contract makes the same in every seat's view and the spectator's (``"last_moves"``; checked
    by tests/engines/test_contract.py). ``view`` is of the match as committed at its version
    (``table_context`` is never given a replay's state).
    """
    names = seat_names(seats)

    def make() -> tuple[list, dict | None]:
        # By the same describe_move as the game log and the replay. A game may show fewer
        # recent events than the view holds (``recent_events``).
        lines = describe_events(present, present.recent_events(view), names)
        # A game whose move lines name every card in words may leave out their drawings at
        # the table (``last_moves_drawn=False``): every fragment carries these lines, and the
        # "Last move" strip still draws the newest move's cards. The game log keeps them.
        if not present.last_moves_drawn:
            lines = [{**line, "cards": []} for line in lines]
        just = just_happened(present, view, seats) if match.moves_played else None
        if just is not None:
            just["cards"] = DrawnOnce(just["cards"])
        return DrawnOnce(lines), just

    return versions.shared(match, ("recent moves", get_language(), tuple(names)), make)


def with_partners(seats: list[PublicSeat], view: dict) -> list[PublicSeat]:
    """In a game played by sides of several seats (Escoba in pairs: the view's ``sides``), each
    seat with its side's number (``pair``, from 1) and its partners' names (``partners``), for
    the seats panel. Public: who plays with whom is no secret."""
    sides = view.get("sides") or []
    if not any(len(side.get("seats", ())) > 1 for side in sides):
        return seats
    side_of = {
        i: (number, side["seats"]) for number, side in enumerate(sides, 1) for i in side["seats"]
    }
    names = {seat.index: seat.display_name for seat in seats}
    marked = []
    for seat in seats:
        if seat.index not in side_of:
            marked.append(seat)
            continue
        number, members = side_of[seat.index]
        partners = tuple(names[i] for i in members if i != seat.index and i in names)
        marked.append(dataclasses.replace(seat, pair=number, partners=partners))
    return marked


def _ended(sentence: str) -> str:
    """The sentence with one full stop, or none after its own "!" ("… — ¡Escoba!")."""
    sentence = sentence.rstrip(".")
    return sentence if sentence.endswith(("!", "?", "…")) else sentence + "."


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
        "sentence": " ".join(_ended(sentence) for sentence in sentences),
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


def per_language(describe):
    """``describe(card_id)``, a card's words (a dict of texts and numbers), worked out once
    per process for each card and language: a table names every card in sight on every move
    and poll, each through gettext. Each caller gets its own copy, which it may add to.

    ``language``: the active language, when the caller has looked it up already (a board of
    forty cards); looking it up is most of the cost of a kept description."""

    @lru_cache(maxsize=2048)
    def kept(card_id: str, language: str | None) -> dict:
        return describe(card_id)

    @wraps(describe)
    def described(card_id: str, language: str | None = None) -> dict:
        return dict(kept(card_id, language or get_language()))

    return described
