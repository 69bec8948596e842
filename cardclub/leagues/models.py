"""Leagues, seasons, rounds and fixtures.

Standings are never stored: they are computed from the fixtures' results (``standings.py``), so a
corrected result or a forfeit can never leave a stale table behind.
"""

from __future__ import annotations

import secrets
from datetime import datetime, time, timedelta

from django.conf import settings
from django.db import models, transaction
from django.urls import reverse
from django.utils import formats, timezone
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from cardclub.notifications import services as notifications
from games import registry
from games.models import Match, RuleVariant

from . import cups, scheduling, swiss, tiebreaks


class LeagueError(Exception):
    """A league action that cannot be done now; ``str()`` is the message for the member."""


class League(models.Model):
    name = models.CharField(_("name"), max_length=100)
    game = models.CharField(_("game"), max_length=32, choices=registry.choices)
    variant = models.ForeignKey(
        RuleVariant, on_delete=models.PROTECT, related_name="leagues", verbose_name=_("house rules")
    )
    description = models.TextField(_("description"), blank=True)
    promotion_places = models.PositiveSmallIntegerField(
        _("promoted and relegated"),
        default=2,
        help_text=_("With divisions: how many go up from each division, and down."),
    )
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
        SWISS = "swiss", _("Swiss")
        CUP = "cup", _("Cup (knockout)")
        SWISS_TABLES = "swiss_tables", _("Swiss of tables")

    class Status(models.TextChoices):
        REGISTRATION = "registration", _("Registration open")
        RUNNING = "running", _("Running")
        FINISHED = "finished", _("Finished")

    league = models.ForeignKey(
        League, on_delete=models.CASCADE, related_name="seasons", verbose_name=_("league")
    )
    name = models.CharField(_("name"), max_length=100)
    division = models.PositiveSmallIntegerField(
        _("division"),
        null=True,
        blank=True,
        help_text=_("Empty: the league has no divisions. 1 is the top division, then 2, …"),
    )
    starts_on = models.DateField(_("starts on"), default=timezone.localdate)
    ends_on = models.DateField(_("ends on"), null=True, blank=True)
    format = models.CharField(
        _("format"), max_length=16, choices=Format.choices, default=Format.SINGLE
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
    swiss_rounds = models.PositiveSmallIntegerField(
        _("Swiss rounds"),
        default=5,
        help_text=_(
            "For a Swiss: how many rounds the season has (fewer than the members who play)."
        ),
    )
    tie_breaks = models.JSONField(
        _("tie-breaks"),
        default=tiebreaks.default_order,
        blank=True,
        help_text=_(
            "For a Swiss: the tie-breaks in order, from: buchholz, buchholz_cut1, "
            "sonneborn_berger, head_to_head, wins."
        ),
    )
    pairs = models.BooleanField(
        _("entrants are pairs"),
        default=False,
        help_text=_(
            "For a round robin of a game played in pairs (Escoba in pairs): members register "
            "as fixed partnerships, both agreeing, and the standings are by pair."
        ),
    )
    best_of = models.PositiveSmallIntegerField(
        _("games per cup tie"),
        default=1,
        help_text=_("For a cup: best of this many games (1, 3, 5…); a draw is played again."),
    )
    round_days = models.PositiveSmallIntegerField(_("days per round"), default=7)
    points_win = models.SmallIntegerField(_("points for a win"), default=3)
    points_draw = models.SmallIntegerField(_("points for a draw"), default=1)
    points_loss = models.SmallIntegerField(_("points for a loss"), default=0)
    points_bye = models.SmallIntegerField(
        _("points for a bye"),
        default=3,
        help_text=_("For a Swiss: what the member left over in a round with an odd number gets."),
    )
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

    class WithdrawalRule(models.TextChoices):
        FORFEIT = "forfeit", _("Their remaining fixtures are forfeited")
        VOID = "void", _("All their results are void")

    registration_opens = models.DateTimeField(
        _("registration opens"),
        null=True,
        blank=True,
        help_text=_("Empty: members may register as soon as the season is open for it."),
    )
    registration_closes = models.DateTimeField(
        _("registration closes"),
        null=True,
        blank=True,
        help_text=_("Empty: until the season starts. The admin may still add members."),
    )
    withdrawal_rule = models.CharField(
        _("when a member withdraws"),
        max_length=8,
        choices=WithdrawalRule.choices,
        default=WithdrawalRule.FORFEIT,
    )

    class Meta:
        ordering = ["-starts_on", "-pk"]
        verbose_name = _("season")
        verbose_name_plural = _("seasons")
        # The admin's actions that write league results (fixtures, rounds, forfeits) need this,
        # not just "change": a member may edit a season's details and still not its results.
        permissions = [("manage_league_results", "Can manage league results")]

    def __str__(self) -> str:
        if self.division:
            return f"{self.league} — {self.name} ({self.division_label})"
        return f"{self.league} — {self.name}"

    def get_absolute_url(self) -> str:
        return reverse("leagues:season", args=[self.pk])

    @property
    def division_label(self) -> str:
        return gettext("Division %(n)s") % {"n": roman(self.division)} if self.division else ""

    @property
    def is_round_robin(self) -> bool:
        return self.format in (self.Format.SINGLE, self.Format.DOUBLE)

    @property
    def is_swiss(self) -> bool:
        return self.format == self.Format.SWISS

    @property
    def is_swiss_tables(self) -> bool:
        return self.format == self.Format.SWISS_TABLES

    @property
    def is_two_player(self) -> bool:
        """Fixtures of two, scored win/draw/loss (round robins, Swiss and cups)."""
        return self.format not in (self.Format.TABLES, self.Format.SWISS_TABLES)

    @property
    def is_cup(self) -> bool:
        return self.format == self.Format.CUP

    @property
    def seats_per_fixture(self) -> int:
        if self.pairs:
            return 4  # partners in seats 0 and 2 against 1 and 3
        return 2 if self.is_two_player else self.table_size

    def clean(self) -> None:
        from django.core.exceptions import ValidationError

        if self.best_of % 2 == 0:
            raise ValidationError(
                {"best_of": gettext("A tie is the best of an odd number of games.")}
            )
        bad = tiebreaks.unknown(self.tie_breaks)
        if bad:
            raise ValidationError(
                {
                    "tie_breaks": gettext("Not a tie-break, or given twice: %(codes)s.")
                    % {"codes": ", ".join(bad)}
                }
            )

    def points_for(self, rank: int | None, shared: bool, forfeited: bool) -> int:
        """Points a seat earns: two-player fixtures use win/draw/loss (a shared first place is a
        draw); tables use the points by place, a shared place earning that place's points.
        ``rank`` is the place (1 + the seats ranked ahead)."""
        return self.points_rule()(rank, shared, forfeited)

    def points_rule(self):
        """``points_for`` with the season's settings read once: standings call it thousands of
        times for a big season."""
        if self.is_two_player:
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

    def registration_problem(self, now=None) -> str | None:
        """Why a member cannot register now, or None when they can."""
        now = now or timezone.now()
        if self.status != self.Status.REGISTRATION:
            return gettext("Registration for this season is closed.")
        if self.registration_opens and now < self.registration_opens:
            return gettext("Registration opens on %(when)s.") % {
                "when": formats.date_format(
                    timezone.localtime(self.registration_opens), "SHORT_DATETIME_FORMAT"
                )
            }
        if self.registration_closes and now >= self.registration_closes:
            return gettext("Registration closed on %(when)s.") % {
                "when": formats.date_format(
                    timezone.localtime(self.registration_closes), "SHORT_DATETIME_FORMAT"
                )
            }
        return None

    def add_player(self, user) -> SeasonPlayer:
        """A member registers themselves: only in the registration window."""
        problem = self.registration_problem()
        if problem:
            raise LeagueError(problem)
        player, _created = SeasonPlayer.objects.get_or_create(season=self, user=user)
        return player

    @transaction.atomic
    def withdraw(self, user, by=None) -> SeasonPlayer | None:
        """The member leaves the season. Before it starts they simply leave (``None``); once it
        runs, the season's rule decides what becomes of their fixtures, and the standings say
        so. Under the season's lock, so a withdrawal and a Swiss pairing never cross."""
        season = self.locked()
        player = SeasonPlayer.objects.filter(season=season, user=user).first()
        if player is None:
            raise LeagueError(gettext("You are not in this season."))
        if season.status == self.Status.REGISTRATION:
            player.delete()
            return None
        if season.status != self.Status.RUNNING:
            raise LeagueError(gettext("This season is over: nobody withdraws from it now."))
        if player.withdrawn_at:
            raise LeagueError(gettext("You have already withdrawn from this season."))
        player.withdrawn_at = timezone.now()
        player.withdrawal = season.withdrawal_rule
        player.save(update_fields=["withdrawn_at", "withdrawal"])
        if season.is_cup:
            # The tie they are in goes to the other side at once, whatever the rule: a cup
            # cannot wait for games nobody will play.
            open_ties = Tie.objects.filter(season=season, winner=None).filter(
                models.Q(first=user) | models.Q(second=user)
            )
            for tie in open_ties:
                tie.winner_id = tie.second_id if tie.first_id == user.pk else tie.first_id
                tie.save(update_fields=["winner"])
                tie.advance()
        fixtures = Fixture.objects.filter(round__season=season, seats__user=user)
        if player.withdrawal == self.WithdrawalRule.VOID:
            for fixture in fixtures.exclude(status=Fixture.Status.VOID):
                fixture.void(by, gettext("Void: %(name)s withdrew") % {"name": user.get_username()})
        else:
            note = gettext("Forfeit: %(name)s withdrew") % {"name": user.get_username()}
            for fixture in fixtures.unplayed():
                seat = fixture.seats.get(user=user)
                fixture.record_forfeit({seat.index}, by=by, note=note)
        return player

    def deadline_for(self, number: int) -> datetime:
        """Round ``number`` (from 1) ends at midnight after its last day, in the club's zone."""
        day = self.starts_on + timedelta(days=self.round_days * number)
        return timezone.make_aware(datetime.combine(day, time.min))

    def locked(self) -> Season:
        """This season read again under its row lock: the one way every "start" and "next
        round" begins, so two admins pressing the same button queue and the second sees what
        the first did."""
        return Season.objects.select_for_update().select_related("league__variant").get(pk=self.pk)

    def _refresh_from(self, season: Season) -> None:
        self.status, self.current_round = season.status, season.current_round

    @transaction.atomic
    def generate_fixtures(self) -> int:
        """Create every round and fixture of the season and start it (a Swiss: its first round
        only; the others are paired from the standings). Refuses to run twice: regenerating
        would throw away results already played."""
        season = self.locked()
        if season.status != self.Status.REGISTRATION or season.rounds.exists():
            raise LeagueError(gettext("This season's fixtures have already been generated."))
        if season.is_swiss:
            return season._start_swiss(self)
        if season.is_cup:
            return season._start_cup(self)
        if season.is_swiss_tables:
            return season._start_swiss_tables(self)
        players = [player.user_id for player in season._field()]
        size = season.seats_per_fixture
        if season.pairs:
            return season._start_pairs(self)
        if season.is_round_robin:
            plan = [
                pairs
                for pairs in scheduling.round_robin(
                    players, double=season.format == self.Format.DOUBLE
                )
            ]
        else:
            plan = [r.tables for r in scheduling.table_rounds(players, size, season.table_rounds)]
        return season._write_schedule(self, plan)

    def _write_schedule(self, caller: Season, plan: list[list[tuple]]) -> int:
        """Every round of a planned season (each a list of seat tuples) into rounds, fixtures
        and seats, and the season running."""
        # Bulk inserts (both SQLite and PostgreSQL return the new keys): a 40-member double
        # round robin is 1,560 fixtures.
        rounds = Round.objects.bulk_create(
            Round(season=self, number=number, deadline=self.deadline_for(number))
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
        self.status = self.Status.RUNNING
        self.current_round = 1
        self.save(update_fields=["status", "current_round"])
        caller._refresh_from(self)
        notifications.notify_new_fixtures(self)
        return len(plan)

    def _field(self) -> list[SeasonPlayer]:
        """The members in the order they joined, checked: the house rules must be playable by
        a fixture's number of seats, and there must be members enough for one fixture."""
        players = list(self.players.order_by("joined_at", "pk"))
        size = self.seats_per_fixture
        if size not in self.league.variant.player_counts():
            raise LeagueError(
                gettext("The league's house rules cannot be played with %(n)d players.")
                % {"n": size}
            )
        if len(players) < size:
            raise LeagueError(
                gettext("At least %(n)d members must join before fixtures can be made.")
                % {"n": size}
            )
        return players

    def _seed(self, players: list[SeasonPlayer]) -> None:
        """Seeds 1, 2, … by rating, best first (the unrated after, in the order they joined);
        seeds the admin gave by hand come first, in their order."""
        from cardclub.ratings.models import Rating

        rating = dict(
            Rating.objects.filter(
                game=self.league.game, user__in=[p.user_id for p in players]
            ).values_list("user_id", "ordinal")
        )
        players.sort(
            key=lambda p: (
                p.seed is None,
                p.seed or 0,
                p.user_id not in rating,
                -rating.get(p.user_id, 0),
            )
        )
        for seed, player in enumerate(players, start=1):
            player.seed = seed
        SeasonPlayer.objects.bulk_update(players, ["seed"])

    def _start_swiss(self, caller: Season) -> int:
        """Seed the members by rating and pair the first round (under the season's lock)."""
        players = self._field()
        if not 1 <= self.swiss_rounds < len(players):
            raise LeagueError(
                gettext(
                    "A Swiss of %(members)d members has at most %(most)d rounds; "
                    "this one is set to %(rounds)d."
                )
                % {"members": len(players), "most": len(players) - 1, "rounds": self.swiss_rounds}
            )
        self._seed(players)
        return self._open_first_round(caller, self._pair_swiss_round)

    def _start_pairs(self, caller: Season) -> int:
        """A round robin of the confirmed pairs: each fixture seats one pair in seats 0 and 2,
        the other in 1 and 3, as a game in pairs is played."""
        if not self.is_round_robin or not self.league.variant.options.get("pairs"):
            raise LeagueError(
                gettext("A season of pairs is a round robin of house rules played in pairs.")
            )
        pairs = list(self.pairs_entered.exclude(confirmed_at=None).order_by("created_at", "pk"))
        if len(pairs) < 2:
            raise LeagueError(gettext("At least two pairs must have registered."))
        by_id = {pair.pk: pair for pair in pairs}
        games = scheduling.round_robin(list(by_id), double=self.format == self.Format.DOUBLE)
        plan = [
            [
                (by_id[a].first_id, by_id[b].first_id, by_id[a].second_id, by_id[b].second_id)
                for a, b in pairings
            ]
            for pairings in games
        ]
        return self._write_schedule(caller, plan)

    @transaction.atomic
    def propose_pair(self, user, partner) -> SeasonPair:
        """``user`` asks ``partner`` to be their pair; it counts once the partner confirms. Under
        the season's lock, so nobody ends up in two pairs."""
        season = self.locked()
        if not season.pairs:
            raise LeagueError(gettext("This season is not played in pairs."))
        problem = season.registration_problem()
        if problem:
            raise LeagueError(problem)
        if partner is None:
            raise LeagueError(gettext("There is no member of that name."))
        if partner.pk == user.pk:
            raise LeagueError(gettext("Your partner must be another member."))
        for member in (user, partner):
            if season.pair_of(member):
                raise LeagueError(
                    gettext("%(name)s is already in a pair this season.")
                    % {"name": member.get_username()}
                )
        return SeasonPair.objects.create(season=season, first=user, second=partner)

    def pair_of(self, user) -> SeasonPair | None:
        return (
            self.pairs_entered.filter(models.Q(first=user) | models.Q(second=user))
            .select_related("first", "second")
            .first()
        )

    @transaction.atomic
    def answer_pair(self, pair_id: int, user, accept: bool) -> SeasonPair | None:
        """The invited partner confirms (both become the season's players) or either member
        calls it off, while registration is open."""
        season = self.locked()
        pair = season.pairs_entered.filter(pk=pair_id).first()
        if pair is None or user.pk not in (pair.first_id, pair.second_id):
            raise LeagueError(gettext("There is no such pair for you."))
        if season.status != self.Status.REGISTRATION:
            raise LeagueError(gettext("Registration for this season is closed."))
        if not accept:
            SeasonPlayer.objects.filter(season=season, user_id__in=pair.members()).delete()
            pair.delete()
            return None
        if user.pk != pair.second_id:
            raise LeagueError(gettext("Only the invited partner can confirm the pair."))
        pair.confirmed_at = timezone.now()
        pair.save(update_fields=["confirmed_at"])
        for user_id in pair.members():
            SeasonPlayer.objects.get_or_create(season=season, user_id=user_id)
        return pair

    def _start_swiss_tables(self, caller: Season) -> int:
        """Seed the members by rating and seat round 1 in seed order (under the season's lock)."""
        self._seed(self._field())
        return self._open_first_round(caller, self._seat_swiss_tables)

    def _open_first_round(self, caller: Season, make_round) -> int:
        """Make round 1 (the rest follow from the standings) and set the season running."""
        make_round(1)
        self.status = self.Status.RUNNING
        self.current_round = 1
        self.save(update_fields=["status", "current_round"])
        caller._refresh_from(self)
        notifications.notify_new_fixtures(self)
        return 1

    def _seat_swiss_tables(self, number: int) -> Round:
        """Round ``number`` of a Swiss of tables, from the standings so far: who met whom, who
        sat out and who had the first seat come from the season's seats."""
        from collections import Counter
        from itertools import combinations

        from . import standings  # standings imports this module's models

        rows = self.players.values_list("user_id", "user__username", "seed", "withdrawn_at")
        names = {uid: name for uid, name, _s, withdrawn in rows if not withdrawn}
        seed = {uid: s or 0 for uid, _n, s, _w in rows}
        table = standings.compute(self, names, standings.load_results(self))
        order = [row.user_id for row in sorted(table, key=lambda r: (r.position, seed[r.user_id]))]
        met, sat_out, firsts = Counter(), Counter(), Counter()
        seated_by_round: dict[int, set] = {}
        by_fixture: dict[int, list] = {}
        for fixture_id, user_id, index, round_number in FixtureSeat.objects.filter(
            fixture__round__season=self
        ).values_list("fixture_id", "user_id", "index", "fixture__round__number"):
            by_fixture.setdefault(fixture_id, []).append(user_id)
            seated_by_round.setdefault(round_number, set()).add(user_id)
            firsts[user_id] += index == 0
        for seats in by_fixture.values():
            for pair in combinations(seats, 2):
                met[frozenset(pair)] += 1
        for round_number in range(1, number):
            for user_id in order:
                sat_out[user_id] += user_id not in seated_by_round.get(round_number, set())
        last_out = {u for u in order if u not in seated_by_round.get(number - 1, set(order))}
        plan = scheduling.swiss_tables(order, self.table_size, met, sat_out, firsts, last_out)
        deadline = max(self.deadline_for(number), timezone.now() + timedelta(days=self.round_days))
        round_ = Round.objects.create(season=self, number=number, deadline=deadline)
        fixtures = Fixture.objects.bulk_create(
            Fixture(round=round_, table=n, deadline=deadline)
            for n in range(1, len(plan.tables) + 1)
        )
        FixtureSeat.objects.bulk_create(
            FixtureSeat(fixture=fixture, index=index, user_id=user_id)
            for fixture, seats in zip(fixtures, plan.tables, strict=True)
            for index, user_id in enumerate(seats)
        )
        return round_

    def _start_cup(self, caller: Season) -> int:
        """Seed the field, draw the bracket, give the top seeds their byes and start round 1."""
        players = self._field()
        self._seed(players)
        by_seed = {p.seed: p.user_id for p in players}
        round_ = self._cup_round(1)
        ties = Tie.objects.bulk_create(
            Tie(
                season=self,
                round=round_,
                slot=slot,
                first_id=by_seed[top],
                second_id=by_seed[bottom] if bottom else None,
                winner_id=None if bottom else by_seed[top],
            )
            for slot, (top, bottom) in enumerate(cups.first_round(len(players)))
        )
        self.status = self.Status.RUNNING
        self.current_round = 1
        self.save(update_fields=["status", "current_round"])
        for tie in ties:
            if tie.winner_id:
                tie.advance()
            else:
                tie.next_game()
        caller._refresh_from(Season.objects.get(pk=self.pk))
        notifications.notify_new_fixtures(self)
        return cups.rounds_for(len(players))

    def _cup_round(self, number: int) -> Round:
        deadline = max(self.deadline_for(number), timezone.now() + timedelta(days=self.round_days))
        round_, _created = Round.objects.get_or_create(
            season=self, number=number, defaults={"deadline": deadline}
        )
        return round_

    def _pair_swiss_round(self, number: int) -> Round:
        """Pair round ``number`` from the results so far and write its fixtures and bye.
        Members the admin added since the start get the next seeds (they missed the rounds
        before); those who withdrew are not paired."""
        late = list(self.players.filter(seed=None).order_by("joined_at", "pk"))
        if late:
            last = self.players.aggregate(models.Max("seed"))["seed__max"] or 0
            for offset, player in enumerate(late, start=1):
                player.seed = last + offset
            SeasonPlayer.objects.bulk_update(late, ["seed"])
        rows = self.players.values_list("seed", "user_id", "withdrawn_at")
        seeds = {seed: user_id for seed, user_id, _w in rows}
        absent = {user_id for _s, user_id, withdrawn in rows if withdrawn}
        try:
            pairs = swiss.pair(
                swiss_history(self, seeds, absent), self.swiss_rounds, self.swiss_points()
            )
        except swiss.PairingImpossible:
            raise LeagueError(
                gettext("Round %(n)d cannot be paired without two members meeting again.")
                % {"n": number}
            ) from None
        # A round paired late still gets its full length.
        deadline = max(self.deadline_for(number), timezone.now() + timedelta(days=self.round_days))
        round_ = Round.objects.create(season=self, number=number, deadline=deadline)
        games = [(a, b) for a, b in pairs if b is not None]
        fixtures = Fixture.objects.bulk_create(
            Fixture(round=round_, table=table, deadline=deadline)
            for table in range(1, len(games) + 1)
        )
        FixtureSeat.objects.bulk_create(
            FixtureSeat(fixture=fixture, index=index, user_id=seeds[seed])
            for fixture, pair in zip(fixtures, games, strict=True)
            for index, seed in enumerate(pair)
        )
        Bye.objects.bulk_create(
            Bye(season=self, round=round_, user_id=seeds[a], points=self.points_bye)
            for a, b in pairs
            if b is None
        )
        return round_

    def swiss_points(self) -> swiss.Points:
        return swiss.Points(
            win=self.points_win, draw=self.points_draw, loss=self.points_loss, bye=self.points_bye
        )

    @transaction.atomic
    def next_round(self) -> int:
        """Open the next round; a Swiss pairs it now, from the standings. Under the season's
        lock, so two admins pressing the button at the same instant open one round: the second
        finds the round the first paired still to play and is told so."""
        season = self.locked()
        if season.status != self.Status.RUNNING:
            raise LeagueError(gettext("Only a running season moves to its next round."))
        if season.is_swiss or season.is_swiss_tables:
            number = season._next_swiss_round()
            self._refresh_from(season)
            return number
        if season.is_cup:
            raise LeagueError(
                gettext("A cup moves on by itself: winners advance as the results come in.")
            )
        last = season.rounds.count()
        if season.current_round >= last:
            raise LeagueError(gettext("This is already the season's last round."))
        season.current_round += 1
        season.save(update_fields=["current_round"])
        self._refresh_from(season)
        return self.current_round

    def _next_swiss_round(self) -> int:
        if self.current_round >= self.swiss_rounds:
            raise LeagueError(gettext("This is already the season's last round."))
        left = Fixture.objects.filter(round__season=self, round__number=self.current_round)
        left = left.unplayed().count()
        if left:
            raise LeagueError(
                ngettext(
                    "Round %(n)d is not finished: %(left)d fixture is still to play.",
                    "Round %(n)d is not finished: %(left)d fixtures are still to play.",
                    left,
                )
                % {"n": self.current_round, "left": left}
            )
        if self.is_swiss_tables:
            self._seat_swiss_tables(self.current_round + 1)
        else:
            self._pair_swiss_round(self.current_round + 1)
        self.current_round += 1
        self.save(update_fields=["current_round"])
        notifications.notify_new_fixtures(self)
        return self.current_round

    def close(self) -> None:
        self.status = self.Status.FINISHED
        self.ends_on = self.ends_on or timezone.localdate()
        self.save(update_fields=["status", "ends_on"])


class SeasonPair(models.Model):
    """Two members entering a season of pairs together; it counts once the second confirms."""

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="pairs_entered")
    first = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    second = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    confirmed_at = models.DateTimeField(_("confirmed"), null=True, blank=True)

    class Meta:
        ordering = ["season", "created_at"]
        verbose_name = _("pair")
        verbose_name_plural = _("pairs")

    def __str__(self) -> str:
        return f"{self.first} & {self.second}"

    def members(self) -> tuple[int, int]:
        return (self.first_id, self.second_id)


class SeasonPlayer(models.Model):
    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="players")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="league_seasons"
    )
    joined_at = models.DateTimeField(auto_now_add=True)
    # How the member came to this division: promoted, relegated (empty: stayed, or joined).
    moved = models.CharField(_("came by"), max_length=10, blank=True)
    withdrawn_at = models.DateTimeField(_("withdrew"), null=True, blank=True)
    withdrawal = models.CharField(
        _("withdrawal rule applied"),
        max_length=8,
        choices=Season.WithdrawalRule.choices,
        blank=True,
    )
    # The starting number in a Swiss (1 = best rated), given when the season starts.
    seed = models.PositiveSmallIntegerField(_("seed"), null=True, blank=True)

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
        VOID = "void", _("Void")

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
    # A cup's game: which tie it belongs to (a best-of-three tie has up to three).
    tie = models.ForeignKey(
        "Tie", on_delete=models.CASCADE, null=True, blank=True, related_name="games"
    )

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
        unplayed = self.status in (self.Status.SCHEDULED, self.Status.PLAYING)
        return unplayed and self.deadline < (now or timezone.now())

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
        if self.tie_id:
            Tie.objects.get(pk=self.tie_id).game_decided(seats)

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

    def void(self, by=None, note: str = "") -> None:
        """The fixture no longer counts, for anybody (a withdrawal under the "void" rule); its
        seats keep what they were for the audit line."""
        self.status = lock_fixture(self.pk).status
        before = [[s.index, s.rank, s.score, s.forfeited] for s in self.seats.all()]
        Season.objects.filter(rounds__fixtures=self).update(
            results_version=models.F("results_version") + 1
        )
        self.status = self.Status.VOID
        self.result_at = timezone.now()
        self.save(update_fields=["status", "result_at"])
        ResultChange.objects.create(
            fixture=self, changed_by=by, note=note or gettext("Void"), before=before, after=[]
        )

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


class Tie(models.Model):
    """A cup pairing: two members (``second`` empty: a bye) play games until one has won the
    season's best-of; the winner goes on to the tie the bracket puts them in."""

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="ties")
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="ties")
    slot = models.PositiveSmallIntegerField(_("place in the round"))
    first = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    second = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    first_wins = models.PositiveSmallIntegerField(default=0)
    second_wins = models.PositiveSmallIntegerField(default=0)
    winner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["round", "slot"]
        verbose_name = _("cup tie")
        verbose_name_plural = _("cup ties")
        constraints = [models.UniqueConstraint(fields=["round", "slot"], name="one_tie_per_slot")]

    def __str__(self) -> str:
        return f"{self.round} #{self.slot + 1}"

    def next_game(self) -> Fixture:
        """The tie's next game, the first seat alternating from the better seed."""
        number = self.games.count()
        seats = (self.first_id, self.second_id)
        if number % 2:
            seats = seats[::-1]
        fixture = Fixture.objects.create(
            round=self.round, table=self.slot + 1, deadline=self.round.deadline, tie=self
        )
        FixtureSeat.objects.bulk_create(
            FixtureSeat(fixture=fixture, index=index, user_id=user_id)
            for index, user_id in enumerate(seats)
        )
        return fixture

    def game_decided(self, seats) -> None:
        """A game's result: count it, then either the tie is won (the winner advances) or
        another game is made. A draw, or a double forfeit, is played again."""
        # The season's lock first: two ties of the same next match may end at the same moment,
        # and each must see the other's winner to start that match.
        season = self.season.locked()
        tie = Tie.objects.select_for_update().get(pk=self.pk)
        if tie.winner_id:
            return  # a correction after the tie was won changes the game, not the bracket
        won = [s for s in seats if s.rank == 1 and not s.forfeited]
        if len(won) == 1:
            if won[0].user_id == tie.first_id:
                tie.first_wins += 1
            else:
                tie.second_wins += 1
        side = cups.decided(tie.first_wins, tie.second_wins, season.best_of)
        if side is not None:
            tie.winner_id = tie.first_id if side == 0 else tie.second_id
        tie.save(update_fields=["first_wins", "second_wins", "winner"])
        if tie.winner_id:
            tie.advance()
        else:
            tie.next_game()
            notifications.notify_new_fixtures(season)

    def advance(self) -> Tie | None:
        """When this tie and its neighbour in the bracket both have a winner, the two meet in
        the next round (the better seed first); the final's winner ends the season."""
        season = Season.objects.get(pk=self.season_id)
        number = self.round.number
        if number >= cups.rounds_for(season.players.count()):
            season.close()
            return None
        slots = [self.slot, self.slot ^ 1]
        pair = list(Tie.objects.filter(round=self.round, slot__in=slots))
        if len(pair) < 2 or not all(t.winner_id for t in pair):
            return None
        seeds = dict(season.players.values_list("user_id", "seed"))
        a, b = sorted([t.winner_id for t in pair], key=lambda u: seeds.get(u) or 0)
        round_ = season._cup_round(number + 1)
        tie, created = Tie.objects.get_or_create(
            round=round_,
            slot=self.slot // 2,
            defaults={"season": season, "first_id": a, "second_id": b},
        )
        if created:
            Season.objects.filter(pk=season.pk, current_round__lt=number + 1).update(
                current_round=number + 1
            )
            tie.next_game()
            notifications.notify_new_fixtures(season)
        return tie


class Bye(models.Model):
    """A Swiss round's member left over (an odd number play): no fixture, the season's bye
    points. At most one per member and season, as the pairing rules say."""

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="byes")
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="byes")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="league_byes"
    )
    points = models.SmallIntegerField(_("points"))

    class Meta:
        ordering = ["round"]
        verbose_name = _("bye")
        verbose_name_plural = _("byes")
        constraints = [
            models.UniqueConstraint(fields=["season", "user"], name="one_bye_per_season")
        ]

    def __str__(self) -> str:
        return f"{self.round}: {self.user}"


def outcome(mine: FixtureSeat, other: FixtureSeat) -> str:
    """A two-player fixture's result for ``mine``: win, draw, loss or a forfeit."""
    if mine.forfeited:
        return "forfeit_loss"
    if other.forfeited:
        return "forfeit_win"
    if mine.rank == 1:
        return "draw" if other.rank == 1 else "win"
    return "loss"


def swiss_history(season: Season, seeds: dict[int, int], absent=frozenset()) -> list[swiss.Entrant]:
    """The season so far as the pairing engine reads it: every seeded member's games, round
    by round, from two queries (a void fixture is no game). ``absent``: members not to pair."""
    by_user = {
        user_id: swiss.Entrant(seed=seed, playing=user_id not in absent)
        for seed, user_id in seeds.items()
    }
    rounds = season.current_round
    games: dict[int, dict[int, swiss.Game]] = {user_id: {} for user_id in by_user}
    seats = (
        FixtureSeat.objects.filter(fixture__round__season=season)
        .exclude(fixture__status=Fixture.Status.VOID)
        .select_related("fixture__round")
        .only("fixture__round__number", "index", "user_id", "rank", "forfeited")
        .order_by("fixture_id", "index")
    )
    pairs: dict[int, list[FixtureSeat]] = {}
    for seat in seats:
        pairs.setdefault(seat.fixture_id, []).append(seat)
    for first, second in (pair for pair in pairs.values() if len(pair) == 2):
        number = first.fixture.round.number
        for mine, other in ((first, second), (second, first)):
            if mine.user_id in games and other.user_id in by_user:
                games[mine.user_id][number] = swiss.Game(
                    by_user[other.user_id].seed, mine.index == 0, outcome(mine, other)
                )
    for user_id, number in Bye.objects.filter(season=season).values_list(
        "user_id", "round__number"
    ):
        if user_id in games:
            games[user_id][number] = swiss.Game(None)
    for user_id, entrant in by_user.items():
        entrant.games = [games[user_id].get(n) for n in range(1, rounds + 1)]
    return list(by_user.values())


def roman(number: int) -> str:
    """I, II, III… for division numbers."""
    numerals = [(10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")]
    out = ""
    for value, letters in numerals:
        while number >= value:
            out += letters
            number -= value
    return out


@transaction.atomic
def promote_and_relegate(seasons) -> list[Season]:
    """Carry the members of a finished season's divisions into the next season's: the same
    league's seasons with the same divisions that start later and are open for registration
    (the admin creates them first). The league's rule decides who goes up and down; a member
    already in next season's division stays where they are. Returns next season's divisions."""
    from . import divisions, standings  # standings imports this module's models

    seasons = sorted(seasons, key=lambda s: (s.league_id, s.name, s.division or 0))
    if not seasons or any(s.division is None for s in seasons):
        raise LeagueError(gettext("Choose the seasons of one league's divisions."))
    league, name = seasons[0].league, seasons[0].name
    if any((s.league_id, s.name) != (league.pk, name) for s in seasons):
        raise LeagueError(gettext("Choose the divisions of one season of one league."))
    if [s.division for s in seasons] != list(range(1, len(seasons) + 1)):
        raise LeagueError(gettext("Choose every division of the season, from Division I down."))
    if any(s.status != Season.Status.FINISHED for s in seasons):
        raise LeagueError(gettext("Every division must be finished first."))
    targets = []
    for season in seasons:
        target = (
            Season.objects.select_for_update()
            .filter(
                league=league,
                division=season.division,
                status=Season.Status.REGISTRATION,
                starts_on__gt=season.starts_on,
            )
            .order_by("starts_on", "pk")
            .first()
        )
        if target is None:
            raise LeagueError(
                gettext("Create next season's %(division)s first (open for registration).")
                % {"division": season.division_label}
            )
        targets.append(target)
    orders = []
    for season in seasons:
        players, withdrawn, byes = standings.members(season)
        table, _cross = standings.season_tables(season, players, byes, withdrawn)
        orders.append([row.user_id for row in table if not row.withdrawn])
    for target, arrivals in zip(
        targets, divisions.moves(orders, league.promotion_places), strict=True
    ):
        taken = set(
            SeasonPlayer.objects.filter(season__in=targets).values_list("user_id", flat=True)
        )
        SeasonPlayer.objects.bulk_create(
            SeasonPlayer(season=target, user_id=user_id, moved=how)
            for user_id, how in arrivals
            if user_id not in taken
        )
    return targets


def new_calendar_token() -> str:
    return secrets.token_urlsafe(24)


class CalendarToken(models.Model):
    """The secret in a member's calendar feed address: the address is the only key, so the
    member can make a new one (and the old stops working) whenever they like."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="calendar_token"
    )
    token = models.CharField(max_length=64, unique=True, default=new_calendar_token)
    created_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("calendar address")
        verbose_name_plural = _("calendar addresses")

    def __str__(self) -> str:
        return str(self.user)

    @classmethod
    def for_user(cls, user) -> CalendarToken:
        return cls.objects.get_or_create(user=user)[0]

    def reset(self) -> None:
        self.token = new_calendar_token()
        self.save(update_fields=["token", "created_at"])


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
