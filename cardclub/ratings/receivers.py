"""What the ratings hear: the table tells us a match finished; we rate it in the same
transaction. Wired by :func:`connect`, which ``RatingsConfig.ready()`` calls."""

from __future__ import annotations

from games.signals import match_finished

from .services import record_match


def on_match_finished(sender, match, seats, **kwargs) -> None:
    # Sent inside the transaction that finishes the match, so a failure here rolls the final
    # move back too: a match is never finished without its ratings, or rated twice.
    record_match(match, seats)


def connect() -> None:
    # A stable dispatch_uid: ready() may run twice in some test set-ups, and a second
    # connection would rate every match twice.
    match_finished.connect(on_match_finished, dispatch_uid="ratings.on_match_finished")
