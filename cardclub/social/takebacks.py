"""Takebacks, where the house rules allow them (``Match.takebacks``: never rated or league
matches, never with a clock): a member asks to take back their last move while nobody has moved
since, and only when the engine says that move showed them nothing new
(``engine.reveals_nothing``); every other member accepts (the move is undone) or one declines.

Every write locks the match row first, as a move does, so a request, its answers and the next
move are taken one after the other: a move played first ends the request.
"""

from __future__ import annotations

from django.utils.translation import gettext as _

from games import locking, writes
from games.locking import ActionError, retried
from games.models import Match

from .models import Takeback


def _members(seats) -> list[int]:
    return [seat.user_id for seat in seats if seat.user_id and not seat.timed_out]


def open_request(match_id: int, moves_played: int) -> Takeback | None:
    """The request standing now: open and about the log's last move (a move since ends it)."""
    request = (
        Takeback.objects.filter(match_id=match_id, status=Takeback.Status.OPEN)
        .select_related("asked_by")
        .order_by("-pk")
        .first()
    )
    if request is None or request.seq != moves_played:
        return None
    return request


def may_ask(match: Match, seat, seats) -> str | None:
    """Why ``seat`` may not ask to take back its last move now, or ``None`` when it may."""
    if not match.takebacks:
        return _("These house rules allow no takebacks.")
    if match.status != Match.Status.PLAYING:
        return _("This match is not being played.")
    if seat is None or not seat.user_id:
        return _("You are not playing in this match.")
    last = match.moves.order_by("-seq").first()
    if last is None or last.seat != seat.index:
        return _("Only your own last move can be taken back, until the next move is played.")
    engine = match.engine
    before = match.replay(upto=match.moves_played - 1)
    if not engine.reveals_nothing(before, seat.index, engine.parse_move(last.code)):
        return _("That move showed you something new (a card drawn or a new deal): it stands.")
    return None


@retried
def ask(match_id: int, user, version: int | None) -> Takeback | None:
    """Ask to take back the member's last move (``version``: the page's, which must be the
    table as it is). With no other member to ask (bots only), the move is taken back at once
    and ``None`` returned."""
    match, seats = locking.locked(match_id)
    seat = next((s for s in seats if s.user_id == user.pk), None)
    if version != match.version:
        raise ActionError(
            _("The table changed since your page was drawn; here it is as it is now.")
        )
    refused = may_ask(match, seat, seats)
    if refused:
        raise ActionError(refused)
    if open_request(match.pk, match.moves_played) is not None:
        raise ActionError(_("A takeback is already waiting for an answer."))
    # A request about an earlier move lapsed when the next move was played: close it for good,
    # so taking back a later move can never bring it back.
    Takeback.objects.filter(match=match, status=Takeback.Status.OPEN).update(
        status=Takeback.Status.DECLINED
    )
    others = [pk for pk in _members(seats) if pk != user.pk]
    if not others:
        writes.take_back_last_move(match, seats)
        return None
    request = Takeback.objects.create(
        match=match, asked_by=user, seat=seat.index, seq=match.moves_played
    )
    # A new version: every page redraws with the question (and the next move's forms carry it).
    match.version += 1
    match.save(update_fields=["version"])
    return request


@retried
def answer(match_id: int, user, yes: bool) -> Takeback:
    """Another member's answer to the standing request: every yes undoes the move; a no ends it."""
    match, seats = locking.locked(match_id)
    request = open_request(match.pk, match.moves_played)
    if request is None:
        raise ActionError(
            _("There is no takeback to answer: the next move was played, or it ended.")
        )
    if user.pk == request.asked_by_id or user.pk not in _members(seats):
        raise ActionError(_("Only the other members at the table answer a takeback."))
    if not yes:
        request.status = Takeback.Status.DECLINED
        request.answered_by = user
        request.save(update_fields=["status", "answered_by"])
        match.version += 1
        match.save(update_fields=["version"])
        return request
    if user.pk not in request.accepted:
        request.accepted = [*request.accepted, user.pk]
    others = {pk for pk in _members(seats) if pk != request.asked_by_id}
    if others <= set(request.accepted):
        request.status = Takeback.Status.ACCEPTED
        writes.take_back_last_move(match, seats)
    else:
        match.version += 1
        match.save(update_fields=["version"])
    request.save(update_fields=["status", "accepted"])
    return request
