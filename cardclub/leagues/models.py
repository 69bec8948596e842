"""Leagues, seasons, rounds and fixtures.

Standings are never stored: they are computed from the fixtures' results (``standings.py``), so a
corrected result or a forfeit can never leave a stale table behind.
"""

from __future__ import annotations

from datetime import datetime, time, timedelta

from django.conf import settings
from django.db import models, transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from cardclub.notifications import services as notifications
from games import registry
from games.models import Match, RuleVariant

from . import scheduling


class LeagueError(Exception):
    """A league action that cannot be done now; ``str()`` is the message for the member."""


class League(models.Model):
    name = models.CharField(_("name"), max_length=100)
    game = models.CharField(_("game"), max_length=32, choices=registry.choices)
    variant = models.ForeignKey(
        RuleVariant, on_delete=models.PROTECT, related_name="leagues", verbose_name=_("house rules")
    )
    description = models.TextField(_("description"), blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("league")
        verbose_name_plural = _("leagues")

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        from django.core.exceptions import ValidationError

        if self.variant_id and self.variant.game != self.game:
            raise ValidationError({"variant": _("These house rules are for another game.")})


class Season(models.Model):
    class Format(models.TextChoices):
        SINGLE = "single", _("Round robin")
        DOUBLE = "double", _("Double round robin")
        TABLES = "tables", _("Rounds of tables")

    class Status(models.TextChoices):
        REGISTRATION = "registration", _("Registration open")
        RUNNING = "running", _("Running")
        FINISHED = "finished", _("Finished")

    league = models.ForeignKey(
        League, on_delete=models.CASCADE, related_name="seasons", verbose_name=_("league")
    )
    name = models.CharField(_("name"), max_length=100)
    starts_on = models.DateField(_("starts on"), default=timezone.localdate)
    ends_on = models.DateField(_("ends on"), null=True, blank=True)
    format = models.CharField(
        _("format"), max_length=10, choices=Format.choices, default=Format.SINGLE
    )
    table_size = models.PositiveSmallIntegerField(
        _("seats per table"),
        default=2,
        help_text=_("For rounds of tables: how many members sit at each table."),
    )
    table_rounds = models.PositiveSmallIntegerField(
        _("rounds of tables"),
        default=6,
        help_text=_("For rounds of tables: how many rounds the season has."),
    )
    round_days = models.PositiveSmallIntegerField(_("days per round"), default=7)
    points_win = models.SmallIntegerField(_("points for a win"), default=3)
    points_draw = models.SmallIntegerField(_("points for a draw"), default=1)
    points_loss = models.SmallIntegerField(_("points for a loss"), default=0)
    points_by_rank = models.JSONField(
        _("points by place"),
        default=list,
        blank=True,
        help_text=_(
            "For tables: points for 1st, 2nd, … place, e.g. [4, 2, 1, 0]. "
            "Empty: one point less for each place, down to 0."
        ),
    )
    status = models.CharField(
        _("status"), max_length=12, choices=Status.choices, default=Status.REGISTRATION
    )
    current_round = models.PositiveSmallIntegerField(_("current round"), default=0)
    # Bumped by every result change, so cached standings are keyed by it and never stale.
    results_version = models.PositiveIntegerField(default=0, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-starts_on", "-pk"]
        verbose_name = _("season")
        verbose_name_plural = _("seasons")
        # The admin's actions that write league results (fixtures, rounds, forfeits) need this,
        # not just "change": a member may edit a season's details and still not its results.
        permissions = [("manage_league_results", "Can manage league results")]

    def __str__(self) -> str:
        return f"{self.league} — {self.name}"

    def get_absolute_url(self) -> str:
        return reverse("leagues:season", args=[self.pk])

    @property
    def is_round_robin(self) -> bool:
        return self.format != self.Format.TABLES

    @property
    def seats_per_fixture(self) -> int:
        return 2 if self.is_round_robin else self.table_size

    def points_for(self, rank: int | None, shared: bool, forfeited: bool) -> int:
        """Points a seat earns: two-player fixtures use win/draw/loss (a shared first place is a
        draw); tables use the points by place, a shared place earning that place's points.
        ``rank`` is the place (1 + the seats ranked ahead)."""
        return self.points_rule()(rank, shared, forfeited)

    def points_rule(self):
        """``points_for`` with the season's settings read once: standings call it thousands of
        times for a big season."""
        if self.is_round_robin:
            win, draw, loss = self.points_win, self.points_draw, self.points_loss

            def two_player(rank, shared, forfeited):
                if forfeited or rank != 1:
                    return loss
                return draw if shared else win

            return two_player
        table = list(self.points_by_rank) or list(range(self.table_size - 1, -1, -1))

        def by_place(rank, shared, forfeited):
            if forfeited or rank is None or rank > len(table):
                return 0
            return table[rank - 1]

        return by_place

    def add_player(self, user) -> SeasonPlayer:
        if self.status != self.Status.REGISTRATION:
            raise LeagueError(gettext("Registration for this season is closed."))
        player, _created = SeasonPlayer.objects.get_or_create(season=self, user=user)
        return player

    def deadline_for(self, number: int) -> datetime:
        """Round ``number`` (from 1) ends at midnight after its last day, in the club's zone."""
        day = self.starts_on + timedelta(days=self.round_days * number)
        return timezone.make_aware(datetime.combine(day, time.min))

    @transaction.atomic
    def generate_fixtures(self) -> int:
        """Create every round and fixture of the season and start it. Refuses to run twice:
        regenerating would throw away results already played."""
        season = Season.objects.select_for_update().get(pk=self.pk)
        if season.status != self.Status.REGISTRATION or season.rounds.exists():
            raise LeagueError(gettext("This season's fixtures have already been generated."))
        players = list(season.players.order_by("joined_at", "pk").values_list("user_id", flat=True))
        size = season.seats_per_fixture
        if size not in season.league.variant.player_counts():
            raise LeagueError(
                gettext("The league's house rules cannot be played with %(n)d players.")
                % {"n": size}
            )
        if len(players) < size:
            raise LeagueError(
                gettext("At least %(n)d members must join before fixtures can be made.")
                % {"n": size}
            )
        if season.is_round_robin:
            plan = [
                pairs
                for pairs in scheduling.round_robin(
                    players, double=season.format == self.Format.DOUBLE
                )
            ]
        else:
            plan = [r.tables for r in scheduling.table_rounds(players, size, season.table_rounds)]
        # Bulk inserts (both SQLite and PostgreSQL return the new keys): a 40-member double
        # round robin is 1,560 fixtures.
        rounds = Round.objects.bulk_create(
            Round(season=season, number=number, deadline=season.deadline_for(number))
            for number in range(1, len(plan) + 1)
        )
        fixtures = Fixture.objects.bulk_create(
            Fixture(round=round_, table=table_number, deadline=round_.deadline)
            for round_, tables in zip(rounds, plan, strict=True)
            for table_number in range(1, len(tables) + 1)
        )
        tables = [table for tables in plan for table in tables]
        FixtureSeat.objects.bulk_create(
            FixtureSeat(fixture=fixture, index=index, user_id=user_id)
            for fixture, table in zip(fixtures, tables, strict=True)
            for index, user_id in enumerate(table)
        )
        season.status = self.Status.RUNNING
        season.current_round = 1
        season.save(update_fields=["status", "current_round"])
        self.status, self.current_round = season.status, season.current_round
        notifications.notify_new_fixtures(season)
        return len(plan)

    def next_round(self) -> int:
        if self.status != self.Status.RUNNING:
            raise LeagueError(gettext("Only a running season moves to its next round."))
        last = self.rounds.count()
        if self.current_round >= last:
            raise LeagueError(gettext("This is already the season's last round."))
        self.current_round += 1
        self.save(update_fields=["current_round"])
        return self.current_round

    def close(self) -> None:
        self.status = self.Status.FINISHED
        self.ends_on = self.ends_on or timezone.localdate()
        self.save(update_fields=["status", "ends_on"])


class SeasonPlayer(models.Model):
    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="players")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="league_seasons"
    )
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["season", "joined_at"]
        verbose_name = _("season player")
        verbose_name_plural = _("season players")
        constraints = [
            models.UniqueConstraint(fields=["season", "user"], name="one_entry_per_season")
        ]

    def __str__(self) -> str:
        return f"{self.season}: {self.user}"


class Round(models.Model):
    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="rounds")
    number = models.PositiveSmallIntegerField(_("round"))
    deadline = models.DateTimeField(_("deadline"))
    # Optional: a club that meets at a set hour starts the round's matches then, whoever has
    # said "ready" (the worker's periodic task does it); without it only "ready" starts them.
    starts_at = models.DateTimeField(
        _("start time"),
        null=True,
        blank=True,
        help_text=_(
            "Optional. At this time every fixture of the round still to play starts, "
            "whoever has said they are ready."
        ),
    )

    class Meta:
        ordering = ["season", "number"]
        verbose_name = _("round")
        verbose_name_plural = _("rounds")
        constraints = [
            models.UniqueConstraint(fields=["season", "number"], name="unique_round_number")
        ]

    def __str__(self) -> str:
        return gettext("Round %(n)d") % {"n": self.number}

    def clean(self) -> None:
        from django.core.exceptions import ValidationError

        # A start at or after the deadline would start matches the overdue sweep forfeits.
        if self.starts_at and self.deadline and self.starts_at >= self.deadline:
            raise ValidationError({"starts_at": _("The round must start before its deadline.")})


class FixtureQuerySet(models.QuerySet):
    def unplayed(self):
        return self.filter(status__in=[Fixture.Status.SCHEDULED, Fixture.Status.PLAYING])

    def due_to_start(self, now=None):
        """Fixtures still to start whose round's start time has passed, in a running season
        (those already past their own deadline are left to the overdue sweep)."""
        now = now or timezone.now()
        return self.filter(
            status=Fixture.Status.SCHEDULED,
            round__starts_at__lte=now,
            round__season__status=Season.Status.RUNNING,
            deadline__gt=now,
        )

    def overdue(self, now=None):
        return self.unplayed().filter(
            deadline__lt=now or timezone.now(), round__season__status=Season.Status.RUNNING
        )


class Fixture(models.Model):
    class Status(models.TextChoices):
        SCHEDULED = "scheduled", _("To play")
        PLAYING = "playing", _("Playing")
        PLAYED = "played", _("Played")
        FORFEIT = "forfeit", _("Forfeit")

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="fixtures")
    table = models.PositiveSmallIntegerField(_("table"), default=1)
    deadline = models.DateTimeField(
        _("deadline"), help_text=_("The round's deadline unless the admin extended it.")
    )
    match = models.OneToOneField(
        Match,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="league_fixture",
        verbose_name=_("match"),
    )
    status = models.CharField(
        _("status"), max_length=10, choices=Status.choices, default=Status.SCHEDULED
    )
    result_at = models.DateTimeField(_("result recorded"), null=True, blank=True)

    objects = FixtureQuerySet.as_manager()

    class Meta:
        ordering = ["round", "table"]
        verbose_name = _("fixture")
        verbose_name_plural = _("fixtures")

    def __str__(self) -> str:
        names = " – ".join(s.user.get_username() for s in self.seats.all())
        return f"{self.round} · {names}"

    @property
    def has_result(self) -> bool:
        return self.status in (self.Status.PLAYED, self.Status.FORFEIT)

    def is_overdue(self, now=None) -> bool:
        return not self.has_result and self.deadline < (now or timezone.now())

    def holding_up(self) -> set[int]:
        """The seats that lose an overdue fixture: everyone when it never started (neither side
        arranged it); in a match still being played, those whose move it is, since they are the
        ones holding it up. Expects ``seats`` and ``match.seats`` prefetched for a list."""
        everyone = {s.index for s in self.seats.all()}
        if self.match is None or self.match.status != Match.Status.PLAYING:
            return everyone
        to_move = {s.index for s in self.match.seats.all() if s.to_move}
        return to_move or everyone

    def _set_result(self, rows: dict[int, dict], status: str, by, note: str) -> None:
        """Write the seats' results and the audit line together."""
        seats = list(self.seats.all())
        before = [(s.index, s.rank, s.score, s.forfeited) for s in seats]
        for seat in seats:
            row = rows[seat.index]
            seat.rank, seat.score, seat.forfeited = row["rank"], row["score"], row["forfeited"]
        FixtureSeat.objects.bulk_update(seats, ["rank", "score", "forfeited"])
        Season.objects.filter(rounds__fixtures=self).update(
            results_version=models.F("results_version") + 1
        )
        self.status = status
        self.result_at = timezone.now()
        self.save(update_fields=["status", "result_at"])
        ResultChange.objects.create(
            fixture=self,
            changed_by=by,
            note=note,
            before=[list(row) for row in before],
            after=[[s.index, s.rank, s.score, s.forfeited] for s in seats],
        )

    def record_match_result(self, seats) -> None:
        """The match's seats (ranks and scores, resignations included) become the result."""
        rows = {s.index: {"rank": s.rank, "score": s.score or 0, "forfeited": False} for s in seats}
        self._set_result(rows, self.Status.PLAYED, None, gettext("Match finished"))

    @transaction.atomic
    def record_forfeit(self, indexes, by=None, note: str = "") -> None:
        """Seats at ``indexes`` lose by forfeit; the others share first place. Forfeiting every
        seat is a double forfeit: nobody earns points.

        The fixture (after its match) is locked and its status read again first: a match that
        finished since this fixture was read has recorded its result, and that result stands.
        """
        indexes = set(indexes)
        self.status = lock_fixture(self.pk).status
        if self.status == self.Status.PLAYED:
            raise LeagueError(gettext("This fixture was played; its result stands."))
        if not indexes:
            raise LeagueError(gettext("Say which side forfeits."))
        count = self.seats.count()
        rows = {
            i: {"rank": 2 if i in indexes else 1, "score": 0, "forfeited": i in indexes}
            for i in range(count)
        }
        if len(indexes) == count:
            for row in rows.values():
                row["rank"] = None
        self._set_result(rows, self.Status.FORFEIT, by, note or gettext("Forfeit"))

    def extend_deadline(self, days: int, by=None) -> None:
        self.deadline = max(self.deadline, timezone.now()) + timedelta(days=days)
        self.save(update_fields=["deadline"])
        ResultChange.objects.create(
            fixture=self,
            changed_by=by,
            note=gettext("Deadline extended to %(date)s")
            % {"date": timezone.localtime(self.deadline).strftime("%Y-%m-%d %H:%M")},
        )


def lock_fixture(pk: int) -> Fixture:
    """The fixture as it is now, locked, with its seats and its match's seats read after the
    lock; its match, when it has one, is locked first.

    Match before fixture is the order every table action takes them in (a match that finishes
    writes its fixture's result while it holds the match), so a sweep and a final move queue
    instead of deadlocking. A fixture whose match was started between the two reads has its
    match locked after it; that rare inversion can only end in a deadlock that the caller's
    retry repeats.
    """
    match_id = Fixture.objects.filter(pk=pk).values_list("match_id", flat=True).get()
    if match_id is not None:
        list(Match.objects.select_for_update().filter(pk=match_id).values_list("pk"))
    fixture = (
        Fixture.objects.select_for_update(of=("self",))
        .select_related("round__season", "match")
        .get(pk=pk)
    )
    if fixture.match_id is not None and fixture.match_id != match_id:
        list(Match.objects.select_for_update().filter(pk=fixture.match_id).values_list("pk"))
        fixture = Fixture.objects.select_related("round__season", "match").get(pk=pk)
    models.prefetch_related_objects([fixture], "seats__user", "match__seats")
    return fixture


class FixtureSeat(models.Model):
    """A member's place in a fixture, in seat order, and their result once there is one."""

    fixture = models.ForeignKey(Fixture, on_delete=models.CASCADE, related_name="seats")
    index = models.PositiveSmallIntegerField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="league_fixture_seats"
    )
    rank = models.PositiveSmallIntegerField(_("place"), null=True, blank=True)
    score = models.IntegerField(_("game score"), null=True, blank=True)
    forfeited = models.BooleanField(_("forfeited"), default=False)
    # When the member said "ready" (empty: not ready, or took it back). The last seat to become
    # ready starts the match; see actions.say_ready.
    ready_at = models.DateTimeField(_("ready since"), null=True, blank=True)

    class Meta:
        ordering = ["fixture", "index"]
        constraints = [
            models.UniqueConstraint(fields=["fixture", "index"], name="unique_fixture_seat")
        ]

    def __str__(self) -> str:
        return f"{self.fixture_id}/{self.index}: {self.user_id}"


class ResultChange(models.Model):
    """Audit: every change to a fixture's result or deadline, and who made it (empty: the site,
    when a match finished or the overdue command ran)."""

    fixture = models.ForeignKey(Fixture, on_delete=models.CASCADE, related_name="changes")
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("changed by"),
    )
    changed_at = models.DateTimeField(_("when"), auto_now_add=True)
    note = models.CharField(_("what"), max_length=200)
    before = models.JSONField(default=list, blank=True)
    after = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["-changed_at", "-pk"]
        verbose_name = _("result change")
        verbose_name_plural = _("result changes")

    def __str__(self) -> str:
        return f"{self.fixture_id}: {self.note}"
