"""A rematch's writes: offer "Play again", accept, decline or withdraw, and the start.

Every write locks the finished match's row first (``games.locking.locked``), then reads the
rematch: two members pressing "Play again" at the same instant are taken one after the other,
the first makes the offer, the second's yes starts the one new match.

The new match keeps the old one's house rules (the options and clock it was played with), seats
the same members and the same bots, and rotates the seats by one so that the first to play is
the next in turn (see :func:`_seating` and :func:`_seed_for_first`).
"""

from __future__ import annotations

from django.utils import timezone
from django.utils.translation import gettext as _

from games import locking, writes
from games.locking import ActionError, retried
from games.models import Match, new_seed

from .models import Rematch

# How many seeds are tried for a game whose first player is drawn by lot (Escoba's dealer).
SEED_TRIES = 64


def members_of(seats) -> list[int]:
    return [seat.user_id for seat in seats if seat.user_id]


def _seating(seats) -> list:
    """Who sits where in the rematch: every seat one place down (seat 1's member to seat 0,
    seat 0's to the last), members as members and bots as bots. In pairs (0+2 against 1+3) the
    partners stay partners."""
    ordered = sorted(seats, key=lambda seat: seat.index)
    rotated = ordered[1:] + ordered[:1]
    return [seat.user if seat.user_id else seat.bot_level for seat in rotated]


def _first_mover(match: Match) -> int | None:
    first = match.moves.order_by("seq").values_list("seat", flat=True).first()
    return first


def _seed_for_first(match: Match) -> int:
    """A fresh seed under which the seat that moves first is the old first mover's index: the
    seats moved one place down, so that seat now holds the member who played after them. For
    a game where seat 0 always starts any seed does; where a lot decides (Escoba's dealer) a few
    are drawn until one does. The seed stays secret like every other."""
    wanted = _first_mover(match)
    engine = match.engine
    seed = new_seed()
    if wanted is None:
        return seed
    for _attempt in range(SEED_TRIES):
        awaited = engine.to_move(engine.new_game(match.players, options=match.options, seed=seed))
        if len(awaited) != 1 or awaited[0] == wanted:
            return seed
        seed = new_seed()
    return seed


def _touch(match: Match) -> None:
    """A new version of the old match, so every open page of it redraws its result panel
    through the page's own stream (or poll) and shows the offer, the answers or the link."""
    match.version += 1
    match.save(update_fields=["version"])


def _start(match: Match, seats, rematch: Rematch) -> Match:
    variant = match.variant
    if not variant.active:
        raise ActionError(_("These house rules are no longer offered."))
    new = writes.start_seated(
        rematch.offered_by,
        variant,
        _seating(seats),
        options=match.options,
        clock={
            "clock": match.clock,
            "clock_minutes": match.clock_minutes,
            "clock_increment": match.clock_increment,
            "clock_days": match.clock_days,
        },
        rated=match.rated and variant.rated,
        seed=_seed_for_first(match),
        private=match.private,
    )
    rematch.status = Rematch.Status.STARTED
    rematch.new_match = new
    return new


@retried
def play_again(match_id: int, user, offer: int | None = None) -> Rematch:
    """The member says "Play again": with ``offer`` (the number of the offer on their page) a
    yes to that offer, refused if it ended; without, a new offer, or a yes to the one open now
    (two members pressing at once). When every seated member has said yes the match starts."""
    match, seats = locking.locked(match_id)
    if user.pk not in members_of(seats):
        raise ActionError(_("Only the members who played this match may play it again."))
    if match.for_fixture:
        raise ActionError(_("League fixtures are played once: there is no rematch."))
    rematch = Rematch.objects.filter(match=match).first()
    now = timezone.now()
    if rematch is not None and rematch.status == Rematch.Status.STARTED:
        return rematch  # already under way: the member is sent to it
    if offer is not None:
        if rematch is None or rematch.offer != offer:
            raise ActionError(_("That rematch offer is no longer open."))
        if rematch.status == Rematch.Status.DECLINED:
            raise ActionError(_("That rematch offer was declined."))
        if rematch.status == Rematch.Status.WITHDRAWN:
            raise ActionError(_("That rematch offer was withdrawn."))
        if rematch.is_expired(now):
            raise ActionError(_("That rematch offer has expired."))
    elif rematch is not None and rematch.status == Rematch.Status.DECLINED:
        raise ActionError(_("That rematch offer was declined."))
    if not match.offers_rematch(now):
        raise ActionError(_("This match can no longer be played again."))
    if not match.variant.active:
        raise ActionError(_("These house rules are no longer offered."))
    if rematch is None:
        rematch = Rematch(match=match, offered_by=user, accepted=[], expires_at=Rematch.expiry(now))
    elif not rematch.is_open:
        # A new offer after one expired or was withdrawn.
        rematch.offer += 1
        rematch.offered_by = user
        rematch.accepted = []
        rematch.status = Rematch.Status.OPEN
        rematch.ended_by = None
        rematch.created_at = now
        rematch.expires_at = Rematch.expiry(now)
    if user.pk not in rematch.accepted:
        rematch.accepted = [*rematch.accepted, user.pk]
    if set(members_of(seats)) <= set(rematch.accepted):
        _start(match, seats, rematch)
    rematch.save()
    _touch(match)
    return rematch


@retried
def say_no(match_id: int, user, offer: int) -> Rematch:
    """Decline the open offer (a member who has not said yes) or withdraw it (one who has):
    either way it ends for everyone."""
    match, seats = locking.locked(match_id)
    if user.pk not in members_of(seats):
        raise ActionError(_("Only the members who played this match may answer its rematch."))
    rematch = Rematch.objects.filter(match=match).first()
    if rematch is None or rematch.offer != offer or rematch.status != Rematch.Status.OPEN:
        raise ActionError(_("That rematch offer is no longer open."))
    if rematch.is_expired():
        raise ActionError(_("That rematch offer has expired."))
    withdrawn = user.pk in rematch.accepted
    rematch.status = Rematch.Status.WITHDRAWN if withdrawn else Rematch.Status.DECLINED
    rematch.ended_by = user
    rematch.save(update_fields=["status", "ended_by"])
    _touch(match)
    return rematch
