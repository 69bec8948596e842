"""Matches, seats, the move log and the club's house rules.

The move log is the truth: ``engine.new_game(players, options, seed)`` followed by every
``MoveRecord`` in order reproduces ``Match.state``. ``state`` is a cache of that replay, kept so a
page never has to replay a whole match.
"""

from __future__ import annotations

import contextlib
import secrets
from dataclasses import dataclass
from datetime import timedelta
from functools import cache

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import DatabaseError, connection, connections, models
from django.db.models import signals
from django.utils import timezone
from django.utils.translation import get_language, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from cardclub import rows
from cardclub.reversing import kept_reverse
from games import registry
from games.engine import EngineError, InvalidOptions, replay, resolve_options

BOT_LEVELS = [("easy", _("Easy bot")), ("hard", _("Hard bot"))]
BOT_LEVEL_NAMES = dict(BOT_LEVELS)

# Sane bounds for a club's clocks: a live match of at most a day, a week per correspondence move.
CLOCK_MAX_MINUTES = 24 * 60
CLOCK_MAX_INCREMENT = 600
CLOCK_MAX_DAYS = 30


class Clock(models.TextChoices):
    NONE = "none", _("No clock")
    LIVE = "live", _("Live: minutes per member plus seconds per move")
    CORRESPONDENCE = "correspondence", _("Correspondence: days per move")


def new_seed() -> int:
    # 62 bits: fits a signed 64-bit column on every database.
    return secrets.randbits(62)


def new_invite_token() -> str:
    return secrets.token_urlsafe(12)


class RuleVariantQuerySet(models.QuerySet):
    def active(self):
        return self.filter(active=True)

    def for_game(self, game: str):
        return self.filter(game=game)


class RuleVariant(models.Model):
    """A named set of house rules for one game, managed by the club's admins.

    A match copies ``options`` when it is created, so editing a variant never changes a match
    already made; a variant that matches use cannot be deleted (``PROTECT``), only deactivated.
    """

    game = models.CharField(_("game"), max_length=32, choices=registry.choices)
    slug = models.SlugField(_("short name"), max_length=60)
    name_es = models.CharField(_("name (Spanish)"), max_length=100)
    name_en = models.CharField(_("name (English)"), max_length=100)
    description_es = models.TextField(_("description (Spanish)"), blank=True)
    description_en = models.TextField(_("description (English)"), blank=True)
    options = models.JSONField(_("options"), default=dict, blank=True)
    active = models.BooleanField(
        _("active"),
        default=True,
        help_text=_("Only active house rules are offered for new tables."),
    )
    rated = models.BooleanField(
        _("rated"), default=True, help_text=_("Matches under these rules change ratings.")
    )
    ordering = models.PositiveSmallIntegerField(_("order"), default=100)
    takebacks = models.BooleanField(
        _("takebacks"),
        default=False,
        help_text=_(
            "A member may ask to take back their last move when it showed them nothing new; the"
            " others accept or decline. Never in rated or league matches, nor with a clock."
        ),
    )
    private = models.BooleanField(
        _("private tables"),
        default=False,
        help_text=_("Tables under these rules are seen only by their seated and invited members."),
    )
    # The clock is a house rule of the table, not of the game: the engines never see it.
    clock = models.CharField(_("clock"), max_length=16, choices=Clock.choices, default=Clock.NONE)
    clock_minutes = models.PositiveIntegerField(
        _("minutes per member"),
        null=True,
        blank=True,
        help_text=_("Live clock: each member's time for the whole match."),
    )
    clock_increment = models.PositiveIntegerField(
        _("seconds added per move"),
        default=0,
        help_text=_("Live clock: added to a member's time after each of their moves."),
    )
    clock_days = models.PositiveSmallIntegerField(
        _("days per move"),
        null=True,
        blank=True,
        help_text=_("Correspondence clock: the time a member has for each move."),
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = RuleVariantQuerySet.as_manager()

    class Meta:
        ordering = ["game", "ordering", "name_es"]
        verbose_name = _("house rules")
        verbose_name_plural = _("house rules")
        constraints = [
            models.UniqueConstraint(fields=["game", "slug"], name="unique_variant_slug_per_game")
        ]

    def __str__(self) -> str:
        return f"{self.get_game_display()} — {self.name}"

    @property
    def name(self) -> str:
        return self.name_en if (get_language() or "es").startswith("en") else self.name_es

    @property
    def description(self) -> str:
        if (get_language() or "es").startswith("en"):
            return self.description_en or self.description_es
        return self.description_es or self.description_en

    @property
    def engine(self):
        return registry.engine(self.game)

    def player_counts(self) -> list[int]:
        """The numbers of players these options allow (e.g. pairs only with four)."""
        info = self.engine.INFO
        counts = []
        for players in range(info.min_players, info.max_players + 1):
            try:
                self.engine.new_game(players, options=self.options, seed=0)
            except InvalidOptions:
                continue
            counts.append(players)
        return counts

    def clock_errors(self) -> dict:
        """What is wrong with the clock settings, by field (empty when they are good)."""
        errors = {}
        if self.clock == Clock.LIVE:
            if not self.clock_minutes or not 1 <= self.clock_minutes <= CLOCK_MAX_MINUTES:
                errors["clock_minutes"] = _(
                    "A live clock needs between 1 and %(max)s minutes per member."
                ) % {"max": CLOCK_MAX_MINUTES}
            if self.clock_increment is None or not (
                0 <= self.clock_increment <= CLOCK_MAX_INCREMENT
            ):
                errors["clock_increment"] = _(
                    "The seconds added per move must be between 0 and %(max)s."
                ) % {"max": CLOCK_MAX_INCREMENT}
        elif self.clock == Clock.CORRESPONDENCE and not (
            self.clock_days and 1 <= self.clock_days <= CLOCK_MAX_DAYS
        ):
            errors["clock_days"] = _(
                "A correspondence clock needs between 1 and %(max)s days per move."
            ) % {"max": CLOCK_MAX_DAYS}
        return errors

    def clock_settings(self) -> dict:
        """What a match copies when it is made (see ``Match.copy_clock``)."""
        return {
            "clock": self.clock,
            "clock_minutes": self.clock_minutes if self.clock == Clock.LIVE else None,
            "clock_increment": self.clock_increment if self.clock == Clock.LIVE else 0,
            "clock_days": self.clock_days if self.clock == Clock.CORRESPONDENCE else None,
        }

    @staticmethod
    def options_error(game: str, options) -> str | None:
        """What is wrong with ``options`` as house rules of ``game``, in words for the admin;
        ``None`` when a table of some size can be played under them. Only the options the
        engine declares (its ``OPTIONS``) are house rules: an engine may take internal ones too
        (Scout's ``_legacy_round_end_moves`` replays matches stored before a rules revision),
        which no house rules may carry."""
        if not isinstance(options, dict):
            return _("The options must be a JSON object.")
        engine = registry.engine(game)
        declared = {opt.name for opt in engine.OPTIONS}
        internal = sorted(name for name in options if name not in declared and name[:1] == "_")
        if internal:
            return _(
                "%(names)s: internal to the game, not a house rule; house rules may not set it."
            ) % {"names": ", ".join(internal)}
        try:
            resolve_options(engine.OPTIONS, options)
        except InvalidOptions as error:
            return translate_engine_error(error)
        last_error = None
        for players in range(engine.INFO.min_players, engine.INFO.max_players + 1):
            try:
                engine.new_game(players, options=options, seed=0)
                return None
            except InvalidOptions as error:
                last_error = error
        return translate_engine_error(last_error)

    def clean(self) -> None:
        errors = self.clock_errors()
        if self.takebacks and self.clock != Clock.NONE:
            errors["takebacks"] = _("Takebacks are for house rules without a clock.")
        if errors:
            raise ValidationError(errors)
        if not registry.is_game(self.game):
            return  # the choices validation on the field reports it
        error = self.options_error(self.game, self.options)
        if error:
            # Not keyed by field: the admin's form edits the options through a field per option.
            raise ValidationError(error)


def translate_engine_error(error: Exception, game: str | None = None) -> str:
    """An engine's English message template, translated, with its parameters filled in.

    With ``game``, a ``card`` parameter (a card id such as "3e") is given by the card's name
    ("3 de espadas") through the game's ``card_name``: members never see card ids.
    """
    from django.utils.translation import gettext

    if not isinstance(error, EngineError):
        return str(error)
    params = dict(error.params)
    if game and registry.is_game(game) and "card" in params:
        # Not a card id after all (garbage from a form): keep it as it was typed.
        with contextlib.suppress(KeyError, ValueError, IndexError):
            params["card"] = registry.present(game).card_name(str(params["card"]))
    text = gettext(error.template)
    return text % params if params else text


class MatchQuerySet(models.QuerySet):
    def open(self):
        return self.filter(status=Match.Status.OPEN)

    def public(self):
        """The matches every member may see (private tables left out): for every list."""
        return self.filter(private=False)

    def listed(self):
        """Only the columns a list of matches shows, with the house rules' names (never the
        state: see ``Match.summary``)."""
        return self.select_related("variant").only(
            *Match.LIST_FIELDS, "variant__name_es", "variant__name_en"
        )

    def open_tables_stamp(self) -> tuple[int, str]:
        """How many public tables wait for players and the latest change of any, as a key for
        what is drawn from them (an opaque string: the database's own spelling of the time,
        with no space, which memcached refuses in a key).
        Every lobby view asks, so by one plain statement on the ``(status, -updated_at)``
        index: the ORM takes longer to build this aggregate than the database to answer it."""
        table = connection.ops.quote_name(Match._meta.db_table)
        count, newest = rows.row(
            f"SELECT COUNT(*), MAX(updated_at) FROM {table} WHERE status = %s AND NOT private",
            [Match.Status.OPEN],
        )
        return count, "" if newest is None else str(newest).replace(" ", "T")

    def newest_finished_pk(self) -> int:
        """The match that finished last (0 before the first): one entry of the ``(status,
        -finished_at)`` index. Lists of finished matches, and the ratings written when a match
        ends, change only when it does, so what is drawn from them can be kept under it and
        never needs clearing, also with a cache per process."""
        # By a plain statement, as ``open_tables_stamp``: every lobby asks.
        table = connection.ops.quote_name(Match._meta.db_table)
        newest = rows.scalar(
            f"SELECT id FROM {table} WHERE status = %s ORDER BY finished_at DESC LIMIT 1",
            [Match.Status.FINISHED],
        )
        return newest or 0


class Match(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", _("Waiting for players")
        PLAYING = "playing", _("Playing")
        FINISHED = "finished", _("Finished")
        ABANDONED = "abandoned", _("Abandoned")

    game = models.CharField(_("game"), max_length=32, choices=registry.choices)
    variant = models.ForeignKey(
        RuleVariant, on_delete=models.PROTECT, related_name="matches", verbose_name=_("house rules")
    )
    options = models.JSONField(_("rules in force"), default=dict)
    players = models.PositiveSmallIntegerField(_("players"))
    seed = models.BigIntegerField(
        pgettext_lazy("the deal", "seed"), default=new_seed, editable=False
    )
    state = models.JSONField(_("state"), null=True, blank=True, editable=False)
    version = models.PositiveIntegerField(_("version"), default=0)
    moves_played = models.PositiveIntegerField(_("moves played"), default=0, editable=False)
    status = models.CharField(
        _("status"), max_length=12, choices=Status.choices, default=Status.OPEN, db_index=True
    )
    rated = models.BooleanField(_("rated"), default=True)
    # Set when a league starts the match for one of its fixtures, so that the end of every
    # other match does not have to look for a fixture (a query on the final move).
    for_fixture = models.BooleanField(_("league fixture"), default=False, editable=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="matches_opened",
        verbose_name=_("opened by"),
    )
    invite_token = models.CharField(max_length=32, unique=True, default=new_invite_token)
    # A private table is in no list and opens only for its seated members and for the members
    # who opened its invitation link (``invited``: their ids); see ``visible_to``.
    private = models.BooleanField(_("private table"), default=False)
    # Copied from the house rules when the table opens, and only for a match that is neither
    # rated nor a league fixture's, without a clock (cardclub/social/takebacks.py).
    takebacks = models.BooleanField(_("takebacks allowed"), default=False, editable=False)
    invited = models.JSONField(_("invited members"), default=list, blank=True, editable=False)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    started_at = models.DateTimeField(_("started"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)
    # The clock the match started with (copied from its house rules, like the options) and its
    # state, on the match row that every move saves anyway: a move pays no query for its clock.
    # ``clock_left``: per seat index, the milliseconds left as of ``clock_turn_started`` (``None``
    # for a seat a bot plays: a bot never loses on time). A seat awaited now is running since
    # ``clock_turn_started``; ``clock_deadline`` is when the first of them runs out, indexed so
    # the worker's sweep finds the expired matches in one query (games/clocks.py).
    clock = models.CharField(_("clock"), max_length=16, choices=Clock.choices, default=Clock.NONE)
    clock_minutes = models.PositiveIntegerField(_("minutes per member"), null=True, blank=True)
    clock_increment = models.PositiveIntegerField(_("seconds added per move"), default=0)
    clock_days = models.PositiveSmallIntegerField(_("days per move"), null=True, blank=True)
    clock_left = models.JSONField(_("time left (ms)"), null=True, blank=True, editable=False)
    clock_turn_started = models.DateTimeField(
        _("turn started"), null=True, blank=True, editable=False
    )
    clock_deadline = models.DateTimeField(
        _("clock runs out"), null=True, blank=True, db_index=True, editable=False
    )
    # What the lists of matches show (the lobby, "your matches"), written by every action in the
    # save it makes anyway (see ``summarize``): a list reads this short column instead of
    # decoding each match's state and fetching its seats and members. Per seat in order:
    # ``user`` (id), ``name`` (the member's username), ``bot`` (level), ``to_move``, ``score``
    # and ``rank``. Nothing secret: only what every seat's neighbour may see.
    summary = models.JSONField(default=list, blank=True, editable=False)

    objects = MatchQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("match")
        verbose_name_plural = _("matches")
        indexes = [
            models.Index(fields=["status", "-updated_at"]),
            # The lobby's "recently finished": the latest finished matches, newest first, each
            # checked for the member's seat, without reading every finished match.
            models.Index(fields=["status", "-finished_at"], name="match_finished_recent"),
        ]

    #: A match that is not over yet.
    LIVE_STATUSES = (Status.OPEN, Status.PLAYING)

    #: The columns a list of matches reads (never ``state``: see ``summary``).
    LIST_FIELDS = (
        "id",
        "game",
        "variant",
        "players",
        "status",
        "created_at",
        "updated_at",
        "finished_at",
        "clock",
        "clock_minutes",
        "clock_days",
        "clock_left",
        "clock_turn_started",
        "clock_deadline",
        "summary",
    )

    def __str__(self) -> str:
        return f"#{self.pk} {self.get_game_display()}"

    def save(self, *args, update_fields=None, **kwargs):
        # Every write of a match writes updated_at, even one naming its fields.
        if update_fields:
            update_fields = _with_updated_at(update_fields)
        super().save(*args, update_fields=update_fields, **kwargs)

    def get_absolute_url(self) -> str:
        return kept_reverse("games:match", self.pk)

    def get_rules_url(self) -> str:
        """The game's rules page, opened at the house rules this match is played with."""
        return f"{kept_reverse('games:rules', self.game)}?variant={self.variant_id}"

    def write(self, fields: tuple[str, ...]) -> None:
        """What ``save(update_fields=fields)`` does (``updated_at`` written too, ``pre_save``
        and ``post_save`` sent, an error if the row is gone), by one plain ``UPDATE``: every
        move, bot move and time-out writes the match, and building that statement through the
        ORM cost a move more than its engine (``cardclub/rows.py``)."""
        fields = _with_updated_at(fields)
        using = "default"
        written = frozenset(fields)
        signals.pre_save.send(
            sender=Match, instance=self, raw=False, using=using, update_fields=written
        )
        if not rows.update(self, fields, using):
            raise DatabaseError("Save with update_fields did not affect any rows.")
        self._state.db, self._state.adding = using, False
        signals.post_save.send(
            sender=Match,
            instance=self,
            created=False,
            update_fields=written,
            raw=False,
            using=using,
        )

    @property
    def engine(self):
        return registry.engine(self.game)

    @property
    def is_over(self) -> bool:
        return self.status in (self.Status.FINISHED, self.Status.ABANDONED)

    def new_game(self):
        """The engine's first state for this match's players, house rules and seed."""
        return self.engine.new_game(self.players, options=self.options, seed=self.seed)

    def replay(self, upto: int | None = None, moves=None):
        """Rebuild the state from the seed and the move log (the first ``upto`` moves).

        ``moves``: the log as ``(seat, code)`` pairs when the caller has it already.
        """
        if moves is None:
            moves = self.moves.order_by("seq").values_list("seat", "code")
        if upto is not None:
            moves = moves[:upto]
        return replay(self.engine, self.new_game(), moves)

    #: The ``format`` of :meth:`export`; bump ``EXPORT_VERSION`` when a field changes meaning.
    EXPORT_FORMAT = "cardclub-match"
    EXPORT_VERSION = 1

    def export(self) -> dict:
        """The match as plain JSON, enough to replay it (docs/match-export.md).

        Holds the seed, so only for a match that is over (see ``access.finished_match_for_replay``).
        """
        seats = sorted(self.seats.all(), key=lambda seat: seat.index)
        return {
            "format": self.EXPORT_FORMAT,
            "version": self.EXPORT_VERSION,
            "id": self.pk,
            "game": self.game,
            "house_rules": {"name": self.variant.name, "options": self.options},
            "players": self.players,
            "seed": self.seed,
            "rated": self.rated,
            "started_at": self.started_at.isoformat() if self.started_at else None,
            "finished_at": self.finished_at.isoformat() if self.finished_at else None,
            "seats": [
                {
                    "seat": seat.index,
                    "name": seat.display_name,
                    "bot": seat.bot_level or None,
                }
                for seat in seats
            ],
            "clock": self._export_clock(),
            "moves": [
                {"seat": seat, "code": code}
                for seat, code in self.moves.order_by("seq").values_list("seat", "code")
            ],
            "outcome": [
                {
                    "seat": seat.index,
                    "score": seat.score,
                    "rank": seat.rank,
                    "resigned": seat.resigned,
                    "timed_out": seat.timed_out,
                    "timed_out_after": seat.timed_out_after,
                }
                for seat in seats
            ],
        }

    def _export_clock(self) -> dict | None:
        """The clock's settings and its final state (ms left per seat; ``null`` for a bot)."""
        if not self.has_clock:
            return None
        return {
            "kind": self.clock,
            "minutes": self.clock_minutes,
            "increment_seconds": self.clock_increment,
            "days_per_move": self.clock_days,
            "left_ms": self.clock_left,
        }

    @property
    def has_clock(self) -> bool:
        return self.clock != Clock.NONE

    def clock_seats(self, now=None, seats=None) -> dict[int, dict]:
        """Per seat index: ``ms`` left as of ``now`` and whether it is ``running`` (the seat is
        awaited), for the table, the lobby and the export. Empty without a clock."""
        from games import clocks  # clocks imports this module

        return clocks.seats_now(self, now, seats)

    def summarize(self, seats) -> None:
        """Write ``summary`` from the seats (in memory: the action's own save stores it)."""
        self.summary = summary_of(seats)

    def summary_seats(self) -> list[SeatSummary]:
        """The seats as the summary has them, in order: enough to name them, mark whose turn it
        is and show a clock or a rank, without a query."""
        # Kept per object: a row names the seats and shows a clock from the same list.
        seats = self.__dict__.get("_summary_seats")
        if seats is None or seats[0] is not self.summary:
            rows = enumerate(self.summary or [])
            seats = (self.summary, [SeatSummary.from_row(index, row) for index, row in rows])
            self.__dict__["_summary_seats"] = seats
        return seats[1]

    def visible_to(self, user) -> bool:
        """Whether ``user`` may see this match: anyone for a table that is not private; for a
        private one, only its seated members and those who opened its invitation link."""
        if not self.private:
            return True
        if not getattr(user, "is_authenticated", False):
            return False
        return self.seat_of(user) is not None or user.pk in (self.invited or [])

    def seat_of(self, user):
        """The user's seat at this match, or ``None``. Uses prefetched seats when present."""
        if not getattr(user, "is_authenticated", False):
            return None
        for seat in self.seats.all():
            if seat.user_id == user.pk:
                return seat
        return None

    def free_seats(self):
        return [seat for seat in self.seats.all() if seat.is_free]

    def hold_seats(self, seats) -> None:
        """``seats`` (this match's, in order) as Django's prefetch leaves them, which
        ``match.seats.all()`` returns, but with nothing pointing back at this match: not each
        seat (``seat.match``), nor the cached queryset (its filter and hints name the match
        itself). With those, every match a request read was a reference cycle, freed with its
        state (a few hundred objects) only by the cyclic collector, whose full passes then
        stopped a busy server process for a tenth of a second every second or two (issue 34).
        Nothing of a table reads ``seat.match``; it would be read again if something did."""
        link = Seat.match.field
        for seat in seats:
            if link.is_cached(seat):
                link.delete_cached_value(seat)
        # The filter is only kept, and built if anybody queries these seats afresh (as
        # Django's related managers defer theirs): a table only ever reads the list, and
        # building the filter cost a table's fragment a tenth of a millisecond. No order_by
        # either (a clone of the query, about 45 µs of every move and fragment in a busy process):
        # the model's ordering (match, index) orders one match's seats by index.
        rows = Seat._default_manager.get_queryset()
        rows._deferred_filter = (False, (), {"match_id": self.pk})  # as _defer_next_filter
        rows._result_cache = list(seats)
        rows._prefetch_done = True
        self._prefetched_objects_cache = {
            **getattr(self, "_prefetched_objects_cache", {}),
            "seats": rows,  # Seat.match's related_name
        }

    def read_seats(self) -> None:
        """Read this match's seats in order, with their members, and hold them as
        :meth:`hold_seats` does: one statement, the one Django's ``select_related`` would send,
        but plain (``cardclub/rows.py``). Every move, bot move and table page reads them, and
        building the query through the ORM cost a move more than its engine and its writes."""
        member_model = Seat.user.field.related_model
        seat_fields, member_fields = rows.concrete(Seat), rows.concrete(member_model)
        width = len(seat_fields)
        held_by = Seat.user.field
        seats = []
        for found in rows.every(_seats_statement(), [self.pk]):
            seat = rows.built(Seat, seat_fields, found[:width])
            member = found[width:]
            held_by.set_cached_value(
                seat, None if member[0] is None else rows.built(member_model, member_fields, member)
            )
            seats.append(seat)
        self.hold_seats(seats)

    @classmethod
    def read_with_rules(cls, pk: int) -> Match | None:
        """The match ``pk`` with every column and its house rules (``variant``), or ``None``:
        one plain statement, the one ``select_related("variant")`` would send. Every table page
        and every fragment that is not yet kept in this process (``games/versions.py``) reads
        it."""
        found = rows.row(_with_rules_statement(), [pk])
        if found is None:
            return None
        columns = rows.concrete(cls)
        match = rows.built(cls, columns, found[: len(columns)])
        rules = rows.built(RuleVariant, rows.concrete(RuleVariant), found[len(columns) :])
        cls.variant.field.set_cached_value(match, rules)
        return match

    @classmethod
    def read_locked(cls, pk: int) -> Match | None:
        """The match ``pk`` with every column, its row locked until the transaction ends
        (``FOR UPDATE``; SQLite has no row locks, and its write transaction holds the whole
        database), or ``None``. One plain statement, as ``read_seats``."""
        found = rows.row(_locked_statement(), [pk])
        return None if found is None else rows.built(cls, rows.concrete(cls), found)

    # Set by mark_finished, in memory only (see there).
    ended_just_now = False

    def offers_rematch(self, now=None) -> bool:
        """Whether this finished match still offers "Play again" (cardclub/social): never a
        league fixture's, and only for ``REMATCH_WITHIN`` seconds after its end. Its page keeps
        its stream open meanwhile, to hear the answers."""
        if self.status != self.Status.FINISHED or self.for_fixture or self.finished_at is None:
            return False
        limit = timedelta(seconds=settings.REMATCH_WITHIN)
        return (now or timezone.now()) - self.finished_at <= limit

    def mark_finished(self, now=None):
        self.status = self.Status.FINISHED
        self.finished_at = now or timezone.now()
        # In memory only: the page drawn in the request that ended the match knows nothing
        # can have been said about it since (no rematch to look up).
        self.ended_just_now = True

    @staticmethod
    def close_seats(seats) -> None:
        """The match is over: its seats leave their members' live lists (in memory: the
        caller's own write of the seats saves ``live``)."""
        for seat in seats:
            seat.live = False


class Seat(models.Model):
    match = models.ForeignKey(
        Match, on_delete=models.CASCADE, related_name="seats", verbose_name=_("match")
    )
    index = models.PositiveSmallIntegerField(_("seat"))
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="seats",
        verbose_name=_("member"),
    )
    bot_level = models.CharField(_("bot level"), max_length=8, choices=BOT_LEVELS, blank=True)
    to_move = models.BooleanField(_("to move"), default=False)
    resigned = models.BooleanField(_("resigned"), default=False)
    score = models.IntegerField(_("score"), null=True, blank=True)
    rank = models.PositiveSmallIntegerField(_("place"), null=True, blank=True)
    joined_at = models.DateTimeField(_("joined"), null=True, blank=True)
    # Lost on time in a match that goes on (Scout with 3 to 5): an easy bot plays the seat to
    # the end, the member keeps it for the record and ranks last. ``timed_out_after``: how many
    # moves had been played, so the game log and the replay place the time-out.
    timed_out = models.BooleanField(_("lost on time"), default=False)
    timed_out_after = models.PositiveIntegerField(null=True, blank=True, editable=False)
    # Whether the match is still open or being played: cleared in the seats' own write when it
    # ends (see ``Match.close_seats``). A member's live matches are then one range of the
    # ``seat_member_live`` index, however many finished matches the member has played.
    live = models.BooleanField(default=True, editable=False)

    class Meta:
        ordering = ["match", "index"]
        verbose_name = _("seat")
        verbose_name_plural = _("seats")
        constraints = [
            models.UniqueConstraint(fields=["match", "index"], name="unique_seat_index"),
            models.UniqueConstraint(
                fields=["match", "user"],
                condition=models.Q(user__isnull=False),
                name="one_seat_per_member",
            ),
            models.CheckConstraint(
                condition=~(models.Q(user__isnull=False) & ~models.Q(bot_level="")),
                name="seat_is_member_or_bot",
            ),
        ]
        indexes = [
            # Only the seats of live matches: small, and a member's live matches are one range
            # of it however long their history.
            models.Index(
                fields=["user", "to_move"], condition=models.Q(live=True), name="seat_member_live"
            )
        ]

    def __str__(self) -> str:
        return f"{self.match_id}/{self.index}: {self.display_name}"

    @classmethod
    def live_stamp(cls, user_id: int) -> dict:
        """The one reading of a member's live matches that the lobby's "My matches" and its
        stream share (``total`` seats, ``my_turns``, the latest change ``changed`` of their
        matches and how many have a ``live_clocks``): one aggregate over the
        ``seat_member_live`` index. Every lobby view and every stream asks, so by one plain
        statement (``cardclub/rows.py``): the ORM takes several times longer to build this
        aggregate than the database to answer it. ``COUNT(CASE ...)``: what the ORM's filtered
        counts send, on both databases."""
        quote = connection.ops.quote_name
        seat, match = quote(cls._meta.db_table), quote(Match._meta.db_table)
        total, my_turns, changed, live_clocks = rows.row(
            f"SELECT COUNT(*), COUNT(CASE WHEN s.to_move THEN 1 END), MAX(m.updated_at),"
            f" COUNT(CASE WHEN m.clock = %s THEN 1 END)"
            f" FROM {seat} s INNER JOIN {match} m ON m.id = s.match_id"
            f" WHERE s.user_id = %s AND s.live",
            [Clock.LIVE, user_id],
        )
        return {
            "total": total,
            "my_turns": my_turns,
            "changed": rows.converted(Match, "updated_at", changed),
            "live_clocks": live_clocks,
        }

    @property
    def is_bot(self) -> bool:
        return bool(self.bot_level)

    @property
    def plays_as_bot(self) -> str:
        """The bot level that plays this seat: its own, "easy" after a time-out, else ""."""
        return self.bot_level or ("easy" if self.timed_out else "")

    @property
    def is_free(self) -> bool:
        return self.user_id is None and not self.bot_level

    @property
    def display_name(self) -> str:
        # A table names every seat dozens of times per render (Scout's lists, the log): the
        # name is worked out once per seat object and language, not once per mention.
        # Keyed on who sits there too, so a seat that is joined or left is named anew.
        key = (get_language(), self.user_id, self.bot_level)
        names = self.__dict__.setdefault("_display_names", {})
        name = names.get(key)
        if name is None:
            name = names[key] = self._display_name()
        return name

    def _display_name(self) -> str:
        return seat_name(
            self.index, self.user.get_username() if self.user_id else "", self.bot_level
        )


@cache
def _seats_statement(using: str = "default") -> str:
    """A match's seats in order, each with its member's columns (``NULL`` for a bot's seat)."""
    member_model = Seat.user.field.related_model
    quote = connections[using].ops.quote_name
    member_table, seat_table = member_model._meta.db_table, Seat._meta.db_table
    return (
        f"SELECT {rows.columns(Seat, rows.concrete(Seat), using, 's.')},"
        f" {rows.columns(member_model, rows.concrete(member_model), using, 'm.')}"
        f" FROM {quote(seat_table)} s LEFT JOIN {quote(member_table)} m"
        f" ON m.{quote(member_model._meta.pk.column)} = s.{quote('user_id')}"
        f" WHERE s.{quote('match_id')} = %s ORDER BY s.{quote('index')}"
    )


def _with_updated_at(fields) -> tuple[str, ...]:
    """Every write of a match writes updated_at: a committed version is kept in memory under
    its id, version and updated_at (games/versions.py)."""
    fields = tuple(fields)
    return fields if "updated_at" in fields else (*fields, "updated_at")


@cache
def _with_rules_statement(using: str = "default") -> str:
    quote = connections[using].ops.quote_name
    return (
        f"SELECT {rows.columns(Match, rows.concrete(Match), using, 'm.')},"
        f" {rows.columns(RuleVariant, rows.concrete(RuleVariant), using, 'v.')}"
        f" FROM {quote(Match._meta.db_table)} m JOIN {quote(RuleVariant._meta.db_table)} v"
        f" ON v.{quote(RuleVariant._meta.pk.column)} = m.{quote('variant_id')}"
        f" WHERE m.{quote(Match._meta.pk.column)} = %s"
    )


@cache
def _locked_statement(using: str = "default") -> str:
    connection = connections[using]
    quote = connection.ops.quote_name
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    return (
        f"SELECT {rows.columns(Match, rows.concrete(Match), using)}"
        f" FROM {quote(Match._meta.db_table)} WHERE {quote(Match._meta.pk.column)} = %s{lock}"
    )


def seat_name(index: int, username: str, bot_level: str) -> str:
    """A seat's name: the member's, the bot's, or "free seat"."""
    if username:
        return username
    if bot_level:
        # Two bots of one level at a table must still be told apart.
        return _("%(bot)s %(number)s") % {
            "bot": BOT_LEVEL_NAMES.get(bot_level, bot_level),
            "number": index + 1,
        }
    return str(_("free seat"))


def summary_of(seats) -> list[dict]:
    """``Match.summary`` for these seats (their members loaded, as every action has them)."""
    return [
        {
            "user": seat.user_id,
            # The username, not the display name: a bot's name is translated when shown.
            "name": seat.user.get_username() if seat.user_id else "",
            "bot": seat.bot_level,
            "to_move": seat.to_move,
            "score": seat.score,
            "rank": seat.rank,
        }
        for seat in sorted(seats, key=lambda seat: seat.index)
    ]


@dataclass(frozen=True)
class SeatSummary:
    """A seat as ``Match.summary`` keeps it; named and asked like a :class:`Seat` in lists."""

    index: int
    user_id: int | None
    username: str
    bot_level: str
    to_move: bool
    score: int | None
    rank: int | None

    @classmethod
    def from_row(cls, index: int, row: dict) -> SeatSummary:
        return cls(
            index=index,
            user_id=row.get("user"),
            username=row.get("name") or "",
            bot_level=row.get("bot") or "",
            to_move=bool(row.get("to_move")),
            score=row.get("score"),
            rank=row.get("rank"),
        )

    @property
    def is_free(self) -> bool:
        return self.user_id is None and not self.bot_level

    @property
    def display_name(self) -> str:
        return seat_name(self.index, self.username, self.bot_level)


class MoveRecord(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="moves")
    seq = models.PositiveIntegerField()
    seat = models.PositiveSmallIntegerField()
    code = models.CharField(max_length=64)
    # The match version this move produced (a move and the bots' replies share one). Lets a
    # move from a page drawn at an older version know which moves it has not seen. Empty for
    # moves logged before it was recorded.
    version = models.PositiveIntegerField(null=True, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["match", "seq"]
        constraints = [models.UniqueConstraint(fields=["match", "seq"], name="unique_move_seq")]
        verbose_name = _("move record")
        verbose_name_plural = _("move records")

    def __str__(self) -> str:
        # No code: a live match's codes are secret, and this string appears in the admin.
        return f"{self.match_id}#{self.seq} seat {self.seat}"
