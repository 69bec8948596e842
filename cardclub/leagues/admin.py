"""The club admin runs a season from here: players, fixtures, rounds, forfeits, deadlines."""

from __future__ import annotations

from django.contrib import admin, messages
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from .models import (
    Bye,
    Fixture,
    FixtureSeat,
    League,
    LeagueError,
    ResultChange,
    Round,
    Season,
    SeasonPlayer,
    Tie,
    promote_and_relegate,
)


@admin.register(League)
class LeagueAdmin(admin.ModelAdmin):
    list_display = ["name", "game", "variant"]
    list_filter = ["game"]


class SeasonPlayerInline(admin.TabularInline):
    model = SeasonPlayer
    extra = 1
    autocomplete_fields = ["user"]
    fields = ["user", "seed"]
    # Empty seeds are given by rating when a Swiss or a cup starts, after any given by hand;
    # the pairings and the bracket read them from then on.


def _each(modeladmin, request, queryset, method, done_message):
    for obj in queryset:
        try:
            method(obj)
        except LeagueError as error:
            modeladmin.message_user(request, f"{obj}: {error}", messages.ERROR)
        else:
            modeladmin.message_user(request, f"{obj}: {done_message}", messages.SUCCESS)


# The permission of the actions that write league results (fixtures, rounds, forfeits): "Can
# manage league results", declared on Season. Django offers an action, and runs a posted one,
# only when every name in its ``permissions`` has a ``has_<name>_permission`` saying yes.
MANAGE_RESULTS = "manage_league_results"


class ManagesLeagueResults:
    """For admins with actions declared ``permissions=[MANAGE_RESULTS]``."""

    def has_manage_league_results_permission(self, request) -> bool:
        return request.user.has_perm(f"{Season._meta.app_label}.{MANAGE_RESULTS}")


@admin.register(Season)
class SeasonAdmin(ManagesLeagueResults, admin.ModelAdmin):
    list_display = ["name", "league", "division", "format", "status", "current_round", "starts_on"]
    list_filter = ["status", "league"]
    inlines = [SeasonPlayerInline]
    actions = ["generate_fixtures", "next_round", "close_season", "promote_and_relegate"]

    @admin.action(
        description=_("Generate fixtures (once) and start the season"),
        permissions=[MANAGE_RESULTS],
    )
    def generate_fixtures(self, request, queryset):
        _each(self, request, queryset, Season.generate_fixtures, _("fixtures generated."))

    @admin.action(
        description=_("Move to the next round (a Swiss: pair it from the standings)"),
        permissions=[MANAGE_RESULTS],
    )
    def next_round(self, request, queryset):
        _each(self, request, queryset, Season.next_round, _("moved to the next round."))

    @admin.action(
        description=_("Promote and relegate into next season's divisions"),
        permissions=["change"],
    )
    def promote_and_relegate(self, request, queryset):
        # The divisions of each season chosen, one league's season at a time.
        groups: dict[tuple, list] = {}
        for season in queryset.select_related("league"):
            if season.division is None:
                said = _("not a division.")
                self.message_user(request, f"{season}: {said}", messages.ERROR)
            else:
                groups.setdefault((season.league_id, season.name), []).append(season)
        for seasons in groups.values():
            try:
                targets = promote_and_relegate(seasons)
            except LeagueError as error:
                self.message_user(request, f"{seasons[0].name}: {error}", messages.ERROR)
            else:
                names = ", ".join(str(t) for t in targets)
                self.message_user(request, _("Members carried into: %(names)s.") % {"names": names})

    @admin.action(description=_("Close the season"), permissions=["change"])
    def close_season(self, request, queryset):
        _each(self, request, queryset, Season.close, _("closed."))


class FixtureSeatInline(admin.TabularInline):
    model = FixtureSeat
    extra = 0
    # Results change only through the actions below, which leave an audit line.
    readonly_fields = ["index", "user", "rank", "score", "forfeited", "ready_at"]
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


class ResultChangeInline(admin.TabularInline):
    model = ResultChange
    extra = 0
    readonly_fields = ["changed_at", "changed_by", "note", "before", "after"]
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


class OverdueFilter(admin.SimpleListFilter):
    title = _("overdue")
    parameter_name = "overdue"

    def lookups(self, request, model_admin):
        return [("yes", _("Past the deadline, unplayed"))]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.overdue(timezone.now())
        return queryset


@admin.register(Fixture)
class FixtureAdmin(ManagesLeagueResults, admin.ModelAdmin):
    list_display = ["__str__", "round", "table", "status", "deadline", "match"]
    list_filter = [OverdueFilter, "status", "round__season"]
    readonly_fields = ["round", "table", "match", "status", "result_at", "deadline"]
    inlines = [FixtureSeatInline, ResultChangeInline]
    actions = [
        "forfeit_first",
        "forfeit_second",
        "forfeit_all",
        "forfeit_holding_up",
        "extend_deadline",
    ]

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("seats__user", "match__seats")

    def _forfeit(self, request, queryset, pick):
        done = 0
        for fixture in queryset:
            try:
                fixture.record_forfeit(pick(fixture), by=request.user)
            except LeagueError as error:
                self.message_user(request, f"{fixture}: {error}", messages.ERROR)
            else:
                done += 1
        if done:
            self.message_user(
                request,
                ngettext("%(n)d forfeit recorded.", "%(n)d forfeits recorded.", done) % {"n": done},
                messages.SUCCESS,
            )

    @admin.action(description=_("Forfeit: the first seat loses"), permissions=[MANAGE_RESULTS])
    def forfeit_first(self, request, queryset):
        self._forfeit(request, queryset, lambda f: {0})

    @admin.action(description=_("Forfeit: the second seat loses"), permissions=[MANAGE_RESULTS])
    def forfeit_second(self, request, queryset):
        self._forfeit(request, queryset, lambda f: {1})

    @admin.action(description=_("Double forfeit: every seat loses"), permissions=[MANAGE_RESULTS])
    def forfeit_all(self, request, queryset):
        self._forfeit(request, queryset, lambda f: {s.index for s in f.seats.all()})

    @admin.action(
        description=_("Forfeit: whoever is holding the fixture up loses"),
        permissions=[MANAGE_RESULTS],
    )
    def forfeit_holding_up(self, request, queryset):
        self._forfeit(request, queryset, Fixture.holding_up)

    @admin.action(
        description=_("Extend the deadline by the season's round length"), permissions=["change"]
    )
    def extend_deadline(self, request, queryset):
        for fixture in queryset.select_related("round__season"):
            fixture.extend_deadline(fixture.round.season.round_days, by=request.user)
        self.message_user(request, _("Deadlines extended."), messages.SUCCESS)


@admin.register(Round)
class RoundAdmin(admin.ModelAdmin):
    list_display = ["__str__", "season", "deadline", "starts_at"]
    fields = ["season", "number", "deadline", "starts_at"]
    # Rounds are made with the season's fixtures; only their times are the admin's to move.
    readonly_fields = ["season", "number"]
    list_filter = ["season"]


@admin.register(SeasonPlayer)
class SeasonPlayerAdmin(ManagesLeagueResults, admin.ModelAdmin):
    """Who plays in which season; where the admin withdraws a member by the season's rule."""

    list_display = ["user", "season", "seed", "joined_at", "withdrawn_at", "withdrawal"]
    list_filter = ["season"]
    search_fields = ["user__username"]
    autocomplete_fields = ["user"]
    readonly_fields = ["seed", "withdrawn_at", "withdrawal"]
    actions = ["withdraw"]

    @admin.action(
        description=_("Withdraw: by the season's rule (forfeit the rest, or void every result)"),
        permissions=[MANAGE_RESULTS],
    )
    def withdraw(self, request, queryset):
        for player in queryset.select_related("season", "user"):
            try:
                player.season.withdraw(player.user, by=request.user)
            except LeagueError as error:
                self.message_user(request, f"{player}: {error}", messages.ERROR)
            else:
                said = _("withdrawn.")
                self.message_user(request, f"{player}: {said}", messages.SUCCESS)


@admin.register(Tie)
class TieAdmin(admin.ModelAdmin):
    """A cup's ties move on with their games' results; the admin reads them here."""

    list_display = ["__str__", "season", "first", "first_wins", "second_wins", "second", "winner"]
    list_filter = ["season"]
    readonly_fields = [
        "season",
        "round",
        "slot",
        "first",
        "second",
        "first_wins",
        "second_wins",
        "winner",
    ]

    def has_add_permission(self, request):
        return False


@admin.register(Bye)
class ByeAdmin(admin.ModelAdmin):
    """Byes are given by the pairing; the admin reads them here."""

    list_display = ["round", "user", "points"]
    list_filter = ["season"]
    readonly_fields = ["season", "round", "user", "points"]

    def has_add_permission(self, request):
        return False


@admin.register(ResultChange)
class ResultChangeAdmin(admin.ModelAdmin):
    list_display = ["fixture", "note", "changed_by", "changed_at"]
    readonly_fields = ["fixture", "note", "changed_by", "changed_at", "before", "after"]
