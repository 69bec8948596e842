"""The members' writes in a league: join a season, start a fixture's match."""

from __future__ import annotations

from django.utils import timezone
from django.utils.translation import gettext as _

from games import actions as game_actions

from .models import Fixture, LeagueError, Season, lock_fixture


def join_season(season: Season, user):
    return season.add_player(user)


@game_actions.retried
def start_fixture(fixture_id: int, user) -> Fixture:
    """Any seated member may start the fixture's match, with the fixture's seat order and the
    league's house rules. The fixture row is locked so two members pressing "Start" at once
    start one match, not two."""
    fixture = (
        # The fixture alone: its round, season, league and house rules are every fixture's.
        Fixture.objects.select_for_update(of=("self",))
        .select_related("round__season__league__variant")
        .get(pk=fixture_id)
    )
    season = fixture.round.season
    seats = list(fixture.seats.select_related("user").order_by("index"))
    if all(seat.user_id != user.pk for seat in seats):
        raise LeagueError(_("You do not play in this fixture."))
    if fixture.status != Fixture.Status.SCHEDULED:
        raise LeagueError(_("This fixture has already been started."))
    if season.status != Season.Status.RUNNING or fixture.round.number > season.current_round:
        raise LeagueError(_("This fixture's round has not started yet."))
    try:
        match = game_actions.start_match_for([seat.user for seat in seats], season.league.variant)
    except game_actions.ActionError as error:
        raise LeagueError(str(error)) from None
    fixture.match = match
    fixture.status = Fixture.Status.PLAYING
    fixture.save(update_fields=["match", "status"])
    return fixture


@game_actions.retried
def forfeit_overdue(fixture_id: int, now=None) -> tuple[Fixture, set[int]] | None:
    """Record the forfeit of an overdue fixture, deciding with what is true under the locks:
    ``None`` when its match finished (or it was otherwise settled or extended) since the sweep
    read it, else the fixture and the seats that lost it."""
    fixture = lock_fixture(fixture_id)
    season = fixture.round.season
    if season.status != Season.Status.RUNNING or not fixture.is_overdue(now or timezone.now()):
        return None
    indexes = fixture.holding_up()
    everyone = len(indexes) == len(fixture.seats.all())
    fixture.record_forfeit(
        indexes, by=None, note="Overdue: " + ("double forfeit" if everyone else "forfeit")
    )
    return fixture, indexes
