"""Receivers: the table tells us a match finished; we rate it in the same transaction."""

from __future__ import annotations

from .services import record_match


def on_match_finished(sender, match, seats, **kwargs) -> None:
    # Sent inside the transaction that finishes the match, so a failure here rolls the final
    # move back too: a match is never finished without its ratings, or rated twice.
    record_match(match, seats)
