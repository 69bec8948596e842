"""The members' writes in a league: join a season, say "ready" to start a fixture's match."""

from __future__ import annotations

from django.utils import timezone
from django.utils.translation import gettext as _

from games import writes
from games.locking import ActionError, retried

from .models import Fixture, FixtureSeat, LeagueError, Season, lock_fixture


def join_season(season: Season, user):
    return season.add_player(user)


def _locked_for_ready(fixture_id: int, user) -> tuple[Fixture, list[FixtureSeat], FixtureSeat]:
    """The fixture locked (as ``lock_fixture`` would: a fixture still to start has no match to
    lock first), its seats read after the lock, and the member's own seat; or the reason they
    may not say "ready" now."""
    fixture = (
        # The fixture alone: its round, season, league and house rules are every fixture's.
        Fixture.objects.select_for_update(of=("self",))
        .select_related("round__season__league__variant")
        .get(pk=fixture_id)
    )
    season = fixture.round.season
    seats = list(fixture.seats.select_related("user").order_by("index"))
    mine = next((seat for seat in seats if seat.user_id == user.pk), None)
    if mine is None:
        raise LeagueError(_("You do not play in this fixture."))
    if fixture.status != Fixture.Status.SCHEDULED:
        raise LeagueError(_("This fixture has already been started."))
    if season.status != Season.Status.RUNNING:
        raise LeagueError(_("This season is not running."))
    if fixture.round.number > season.current_round:
        raise LeagueError(_("This fixture's round has not started yet."))
    return fixture, seats, mine


def _start(fixture: Fixture, seats: list[FixtureSeat]) -> Fixture:
    """Start the locked fixture's match, with the fixture's seat order and the league's house
    rules."""
    variant = fixture.round.season.league.variant
    try:
        match = writes.start_match_for([seat.user for seat in seats], variant)
    except ActionError as error:
        raise LeagueError(str(error)) from None
    fixture.match = match
    fixture.status = Fixture.Status.PLAYING
    fixture.save(update_fields=["match", "status"])
    return fixture


@retried
def say_ready(fixture_id: int, user) -> Fixture:
    """The member is ready to play. The last seat to say so starts the match, in the same
    transaction and under the fixture's lock, so two members pressing "Ready" at the same
    instant start one match, not two (the second waits for the lock, then sees it started,
    or sees the first one ready and starts it itself)."""
    fixture, seats, mine = _locked_for_ready(fixture_id, user)
    if mine.ready_at is None:
        mine.ready_at = timezone.now()
        mine.save(update_fields=["ready_at"])
    if all(seat.ready_at is not None for seat in seats):
        return _start(fixture, seats)
    return fixture


@retried
def take_back_ready(fixture_id: int, user) -> Fixture:
    """The member is not ready after all; possible until the match starts."""
    fixture, _seats, mine = _locked_for_ready(fixture_id, user)
    if mine.ready_at is not None:
        mine.ready_at = None
        mine.save(update_fields=["ready_at"])
    return fixture


@retried
def start_at_round_time(fixture_id: int, now=None) -> Fixture | None:
    """Start a fixture whose round's start time has passed, whoever is ready (the periodic
    task). ``None`` when, under the lock, it is no longer due: started by its members' "ready"
    meanwhile, or settled, or the start time moved."""
    now = now or timezone.now()
    fixture = (
        Fixture.objects.select_for_update(of=("self",))
        .select_related("round__season__league__variant")
        .filter(pk=fixture_id)
        .due_to_start(now)
        .first()
    )
    if fixture is None:
        return None
    return _start(fixture, list(fixture.seats.select_related("user").order_by("index")))


@retried
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
