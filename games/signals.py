"""Signals of the table that other apps listen to.

``match_timed_out``: sent after the transaction that applied a time-out committed, with
``sender=Match``, ``match`` and ``seats`` (the Seat objects whose member ran out of time). When
the time-out ends the match, ``match_finished`` (games.actions) was sent too, inside that
transaction, so ratings and league standings follow as for any other result.

``match_viewed``: sent when a logged-in member without a seat is drawn a match's table (its
page, or the fragment its updates fetch), with ``sender=Match``, ``match`` and ``user``: who is
watching (cardclub/social).
"""

from __future__ import annotations

from django.dispatch import Signal

match_timed_out = Signal()
match_viewed = Signal()
