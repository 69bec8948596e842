"""The events of other apps that notify members, heard here so those apps need not know us.

A fixture's result is written in one place (``Fixture._set_result``), which always adds a
``ResultChange`` with the seats' new results in ``after``; a deadline extension adds one with an
empty ``after``. So a new ResultChange with results is exactly "a result was recorded": played,
forfeited by the sweep or the admin, or corrected.
"""

from __future__ import annotations

from django.db.models.signals import post_save
from django.dispatch import receiver

from cardclub.leagues.models import ResultChange

from .models import Kind
from .services import notify


@receiver(post_save, sender=ResultChange, dispatch_uid="notifications.result_recorded")
def result_recorded(sender, instance: ResultChange, created: bool, **kwargs) -> None:
    if not created or not instance.after or kwargs.get("raw"):
        return
    fixture = instance.fixture
    forfeited = {row[0] for row in instance.after if len(row) > 3 and row[3]}
    for seat in fixture.seats.select_related("user"):
        kind = Kind.FORFEIT if seat.index in forfeited else Kind.RESULT
        notify(seat.user, kind, fixture=fixture)
