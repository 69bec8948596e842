"""A fixture's match that finishes writes the fixture's result, in the same transaction."""

from __future__ import annotations

from .models import Fixture


def on_match_finished(sender, match, seats, **kwargs) -> None:
    if not match.for_fixture:
        return  # most matches are not a league's: no query for them
    fixture = Fixture.objects.filter(match=match, status=Fixture.Status.PLAYING).first()
    if fixture is None:
        return
    fixture.record_match_result(seats)
