"""A challenge's writes: make one (with the refusals a member must hear), accept, decline,
withdraw. A challenge may name further members for the seats after the first two: each has
their own row (so each is refused, rate-limited and expires as a lone challenge would), the
rows form a party, and the match starts when the last of them says yes. Each answer locks all
the party's rows first (in one order, so answers at the same instant are taken one after the
other): a double click or two tabs answer once; every change tells all the members' open
lobbies through their own stream ("mine")."""

from __future__ import annotations

import math
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from cardclub.accounts.models import Preferences
from cardclub.notifications.models import Kind
from cardclub.notifications.services import notify
from games import push, writes
from games.locking import ActionError, retried

from .models import Challenge


class NoSuchChallenge(ActionError):
    """The challenge does not exist or does not concern this member (a 404)."""


def _tell_lobbies(rows: list[Challenge]) -> None:
    """Every member's lobby redraws its lists (the number only says "something changed")."""
    keys = {f"u:{rows[0].challenger_id}"} | {f"u:{row.challenged_id}" for row in rows}
    push.publish_event_on_commit(sorted(keys), "mine", rows[0].lead_pk)


def _too_often(challenger, challenged, now) -> str | None:
    """The rate limit's message when ``challenger`` has challenged ``challenged`` their share
    of a window of ``CHALLENGE_RATE_LIMITS``, else ``None`` (counted in the database)."""
    for most, seconds in settings.CHALLENGE_RATE_LIMITS:
        recent = list(
            Challenge.objects.filter(
                challenger=challenger,
                challenged=challenged,
                created_at__gt=now - timedelta(seconds=seconds),
            )
            .order_by("-created_at")
            .values_list("created_at", flat=True)[:most]
        )
        if len(recent) >= most:
            wait = recent[-1] + timedelta(seconds=seconds) - now
            minutes = max(1, math.ceil(wait.total_seconds() / 60))
            return ngettext(
                "You have challenged %(name)s often enough for now: you may again in %(n)d minute.",
                "You have challenged %(name)s often enough for now: you may again in %(n)d minutes.",
                minutes,
            ) % {"name": challenged.get_username(), "n": minutes}
    return None


def refusal(challenger, challenged) -> str | None:
    """Why ``challenger`` may not challenge ``challenged`` at all, else ``None``."""
    if challenger.pk == challenged.pk:
        return _("You cannot challenge yourself.")
    if not challenged.is_active:
        return _("There is no member with that name.")
    if Preferences.refuses_challenges(challenged):
        return _("%(name)s does not take challenges.") % {"name": challenged.get_username()}
    return None


def _seating(challenged, fillers: list[str], others: list) -> list:
    """Seats 2 and on as ``start_seated`` takes them: the named members where "member" is."""
    named = iter(others)
    return [challenged, *(next(named) if f == "member" else f for f in fillers)]


@retried
def make(challenger, challenged, variant, players: int, fillers: list[str], others=()) -> Challenge:
    """Challenge ``challenged`` to ``variant`` at a table of ``players``: the challenger at seat
    1, the challenged member at seat 2, ``fillers`` ("open", "easy", "hard", "member") after
    them; ``others`` are the members for the "member" seats, in order, each challenged too.
    Returns the row of ``challenged`` (the party's lead). The challenger's row is locked first,
    so two challenges sent at once are counted in turn."""
    others = list(others)
    members = [challenged, *others]
    for member in members:
        refused = refusal(challenger, member)
        if refused:
            raise ActionError(refused)
    if len({member.pk for member in members}) != len(members):
        raise ActionError(_("A member can take only one seat at a table."))
    if not variant.active:
        raise ActionError(_("These house rules are no longer offered."))
    if players not in variant.player_counts():
        raise ActionError(_("These house rules are not played by that many players."))
    if (
        len(fillers) != players - 2
        or any(f not in ("open", "easy", "hard", "member") for f in fillers)
        or fillers.count("member") != len(others)
    ):
        raise ActionError(_("Say who sits at every other seat."))
    get_user_model().objects.select_for_update().filter(pk=challenger.pk).first()
    now = timezone.now()
    for member in members:
        if Challenge.objects.open(now).filter(challenger=challenger, challenged=member).exists():
            raise ActionError(
                _("Your challenge to %(name)s is still waiting for an answer.")
                % {"name": member.get_username()}
            )
        too_often = _too_often(challenger, member, now)
        if too_often:
            raise ActionError(too_often)
    common = {
        "challenger": challenger,
        "variant": variant,
        "players": players,
        "fillers": list(fillers),
        "created_at": now,
        "expires_at": Challenge.expiry(now),
    }
    lead = Challenge.objects.create(challenged=challenged, seat=1, **common)
    rows = [lead]
    member_seats = [index + 2 for index, f in enumerate(fillers) if f == "member"]
    for member, seat in zip(others, member_seats, strict=True):
        rows.append(Challenge.objects.create(challenged=member, seat=seat, lead=lead, **common))
    for row in rows:
        notify(row.challenged, Kind.CHALLENGE, challenge=row)
    _tell_lobbies(rows)
    return lead


def _locked(pk: int, user) -> tuple[Challenge, list[Challenge]]:
    """The row ``pk`` (which must concern ``user``) and all its party's rows, locked in the
    order of their ids so two answers to one party never wait on each other crosswise."""
    row = Challenge.objects.filter(pk=pk).only("pk", "lead_id").first()
    if row is None:
        raise NoSuchChallenge(_("There is no such challenge."))
    lead = row.lead_id or row.pk
    rows = list(
        Challenge.objects.select_for_update(of=("self",))
        .select_related("challenger", "challenged", "variant")
        .filter(Q(pk=lead) | Q(lead_id=lead))
        .order_by("pk")
    )
    challenge = next((r for r in rows if r.pk == pk), None)
    if challenge is None or user.pk not in (challenge.challenger_id, challenge.challenged_id):
        raise NoSuchChallenge(_("There is no such challenge."))
    return challenge, sorted(rows, key=lambda r: r.seat)


def _still_open(challenge: Challenge, now) -> None:
    if challenge.status == Challenge.Status.ACCEPTED:
        raise ActionError(_("This challenge was accepted already."))
    if challenge.status == Challenge.Status.DECLINED:
        raise ActionError(_("This challenge was declined."))
    if challenge.status == Challenge.Status.WITHDRAWN:
        raise ActionError(_("This challenge was withdrawn."))
    if challenge.is_expired(now):
        raise ActionError(_("This challenge has expired."))


@retried
def accept(pk: int, user) -> Challenge:
    """A challenged member says yes. The last yes of the party makes the table (it starts at
    once unless a seat was left open for another member) and everyone else hears it; before
    that, the yes is kept and the lobbies show who is still to answer."""
    challenge, rows = _locked(pk, user)
    if user.pk != challenge.challenged_id:
        raise ActionError(_("Only the challenged member can accept."))
    now = timezone.now()
    _still_open(challenge, now)
    if challenge.agreed_at is not None:
        raise ActionError(_("You said yes already: the others have still to answer."))
    if not challenge.variant.active:
        raise ActionError(_("These house rules are no longer offered."))
    challenge.agreed_at = now
    if any(row.agreed_at is None for row in rows if row.pk != challenge.pk):
        challenge.save(update_fields=["agreed_at"])
        _tell_lobbies(rows)
        return challenge
    lead = rows[0]
    others = [row.challenged for row in rows[1:]]
    match = writes.start_seated(
        challenge.challenger,
        challenge.variant,
        [challenge.challenger, *_seating(lead.challenged, lead.fillers, others)],
    )
    for row in rows:
        row.match = match
        row.status = Challenge.Status.ACCEPTED
        row.answered_at = now
        if row.pk == challenge.pk:
            row.agreed_at = now
        row.save(update_fields=["match", "status", "answered_at", "agreed_at"])
    notify(challenge.challenger, Kind.CHALLENGE, challenge=challenge)
    for row in rows:
        if row.pk != challenge.pk:
            notify(row.challenged, Kind.CHALLENGE, challenge=row)
    _tell_lobbies(rows)
    return challenge


@retried
def decline(pk: int, user) -> Challenge:
    """A challenged member says no, or the challenger withdraws: either ends every row of the
    party. A no is heard by the challenger and the party's other members."""
    challenge, rows = _locked(pk, user)
    now = timezone.now()
    _still_open(challenge, now)
    declined = user.pk == challenge.challenged_id
    status = Challenge.Status.DECLINED if declined else Challenge.Status.WITHDRAWN
    for row in rows:
        if row.status != Challenge.Status.OPEN:
            continue
        row.status, row.answered_at, row.ended_by = status, now, user
        row.save(update_fields=["status", "answered_at", "ended_by"])
    if declined:
        notify(challenge.challenger, Kind.CHALLENGE, challenge=challenge)
        for row in rows:
            if row.pk != challenge.pk:
                notify(row.challenged, Kind.CHALLENGE, challenge=row)
    _tell_lobbies(rows)
    return next(row for row in rows if row.pk == challenge.pk)
