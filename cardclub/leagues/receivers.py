"""What the leagues hear: a fixture's match that finishes writes the fixture's result, in the
same transaction; a cup's tie saved tells the season's open pages (``live.tie_saved``, after the
commit). Wired by :func:`connect`, which ``LeaguesConfig.ready()`` calls."""

from __future__ import annotations

from django.db.models.signals import post_save

from games.signals import match_finished

from . import live
from .models import Fixture, Tie


def on_match_finished(sender, match, seats, **kwargs) -> None:
    if not match.for_fixture:
        return  # most matches are not a league's: no query for them
    # Locked (after the match, which the finishing action holds): the overdue sweep takes the
    # same two locks in the same order, so it sees this result or this sees its forfeit.
    fixture = (
        Fixture.objects.select_for_update(of=("self",))
        .filter(match=match, status=Fixture.Status.PLAYING)
        .first()
    )
    if fixture is None:
        return
    fixture.record_match_result(seats)


def connect() -> None:
    # A stable dispatch_uid: ready() may run twice, and a second connection would be harmless
    # here but wasteful.
    match_finished.connect(on_match_finished, dispatch_uid="leagues.on_match_finished")
    post_save.connect(live.tie_saved, sender=Tie, dispatch_uid="leagues.tie_saved")
