"""A challenge's writes: make one (with the refusals a member must hear), accept, decline,
withdraw. Each answer locks the challenge's row first, so a double click or two tabs answer once;
every change tells both members' open lobbies through their own stream ("mine")."""

from __future__ import annotations

import math
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
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


def _tell_lobbies(challenge: Challenge) -> None:
    """Both members' lobbies redraw their lists (the number only says "something changed")."""
    keys = [f"u:{challenge.challenger_id}", f"u:{challenge.challenged_id}"]
    push.publish_event_on_commit(keys, "mine", challenge.pk)


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


@retried
def make(challenger, challenged, variant, players: int, fillers: list[str]) -> Challenge:
    """Challenge ``challenged`` to ``variant`` at a table of ``players``: the challenger at seat
    1, the challenged member at seat 2, ``fillers`` ("open", "easy", "hard") after them. The
    challenger's row is locked first, so two challenges sent at once are counted in turn."""
    refused = refusal(challenger, challenged)
    if refused:
        raise ActionError(refused)
    if not variant.active:
        raise ActionError(_("These house rules are no longer offered."))
    if players not in variant.player_counts():
        raise ActionError(_("These house rules are not played by that many players."))
    if len(fillers) != players - 2 or any(f not in ("open", "easy", "hard") for f in fillers):
        raise ActionError(_("Say who sits at every other seat."))
    get_user_model().objects.select_for_update().filter(pk=challenger.pk).first()
    now = timezone.now()
    if Challenge.objects.open(now).filter(challenger=challenger, challenged=challenged).exists():
        raise ActionError(
            _("Your challenge to %(name)s is still waiting for an answer.")
            % {"name": challenged.get_username()}
        )
    too_often = _too_often(challenger, challenged, now)
    if too_often:
        raise ActionError(too_often)
    challenge = Challenge.objects.create(
        challenger=challenger,
        challenged=challenged,
        variant=variant,
        players=players,
        fillers=list(fillers),
        created_at=now,
        expires_at=Challenge.expiry(now),
    )
    notify(challenged, Kind.CHALLENGE, challenge=challenge)
    _tell_lobbies(challenge)
    return challenge


def _locked(pk: int, user) -> Challenge:
    challenge = (
        Challenge.objects.select_for_update(of=("self",))
        .select_related("challenger", "challenged", "variant")
        .filter(pk=pk)
        .first()
    )
    if challenge is None or user.pk not in (challenge.challenger_id, challenge.challenged_id):
        raise NoSuchChallenge(_("There is no such challenge."))
    return challenge


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
    """The challenged member says yes: the table is made (and starts at once unless a seat was
    left open for another member); the challenger hears it."""
    challenge = _locked(pk, user)
    if user.pk != challenge.challenged_id:
        raise ActionError(_("Only the challenged member can accept."))
    now = timezone.now()
    _still_open(challenge, now)
    if not challenge.variant.active:
        raise ActionError(_("These house rules are no longer offered."))
    challenge.match = writes.start_seated(
        challenge.challenger,
        challenge.variant,
        [challenge.challenger, challenge.challenged, *challenge.fillers],
    )
    challenge.status = Challenge.Status.ACCEPTED
    challenge.answered_at = now
    challenge.save(update_fields=["match", "status", "answered_at"])
    notify(challenge.challenger, Kind.CHALLENGE, challenge=challenge)
    _tell_lobbies(challenge)
    return challenge


@retried
def decline(pk: int, user) -> Challenge:
    """The challenged member says no (the challenger hears it), or the challenger withdraws."""
    challenge = _locked(pk, user)
    now = timezone.now()
    _still_open(challenge, now)
    if user.pk == challenge.challenged_id:
        challenge.status = Challenge.Status.DECLINED
        notify(challenge.challenger, Kind.CHALLENGE, challenge=challenge)
    else:
        challenge.status = Challenge.Status.WITHDRAWN
    challenge.answered_at = now
    challenge.save(update_fields=["status", "answered_at"])
    _tell_lobbies(challenge)
    return challenge
