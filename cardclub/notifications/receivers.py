"""The events of other apps that notify members, heard here so those apps need not know us.

A fixture's result is written in one place (``Fixture._set_result``), which always adds a
``ResultChange`` with the seats' new results in ``after``; a deadline extension adds one with an
empty ``after``. So a new ResultChange with results is exactly "a result was recorded": played,
forfeited by the sweep or the admin, or corrected. The notifications themselves are written by
the worker: the last move of a fixture's match is a member's request, and stays as light as any.

Wired by :func:`connect`, which ``NotificationsConfig.ready()`` calls.
"""

from __future__ import annotations

from django.conf import settings
from django.db import transaction
from django.db.models.signals import post_save

from cardclub.accounts.models import Preferences
from cardclub.leagues.models import ResultChange
from games.models import Match
from games.signals import match_timed_out

from .tasks import notify_lost_on_time, notify_result


def result_recorded(sender, instance: ResultChange, created: bool, **kwargs) -> None:
    if not created or not instance.after or kwargs.get("raw"):
        return
    pk = instance.pk
    transaction.on_commit(lambda: notify_result.enqueue(pk))


def give_a_new_member_preferences(sender, instance, created: bool, **kwargs) -> None:
    """Every member has a preferences row from the start, so that "last seen" (written from a
    page request, see middleware.py) is always one UPDATE, never a read and an insert."""
    if created and not kwargs.get("raw"):
        Preferences.objects.bulk_create([Preferences(user=instance)], ignore_conflicts=True)


def lost_on_time(sender, match, seats, **kwargs) -> None:
    """Each member whose clock ran out hears it ("forfeit"), written by the worker: whoever
    found the time-out (the clock sweep over many matches, or a request at the table) pays one
    query for it. Sent after the time-out's commit, so the task is queued at once."""
    members = [seat.user_id for seat in seats if seat.user_id is not None]
    if members:
        notify_lost_on_time.enqueue(match.pk, members)


def connect() -> None:
    post_save.connect(
        result_recorded, sender=ResultChange, dispatch_uid="notifications.result_recorded"
    )
    post_save.connect(
        give_a_new_member_preferences,
        sender=settings.AUTH_USER_MODEL,
        dispatch_uid="notifications.new_member",
    )
    match_timed_out.connect(lost_on_time, sender=Match, dispatch_uid="notifications.lost_on_time")
