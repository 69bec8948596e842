"""Signals of the table that other apps listen to: every signal the games app sends is defined
here. Who listens is wired in one way only: each listening app's ``receivers.py`` has a
``connect()`` that its ``AppConfig.ready()`` calls (``dispatch_uid`` on every connection, so a
second ``ready()`` connects nothing twice).

``match_finished``: sent inside the transaction that finishes a match (the last move, a
resignation, a time-out; ``games.turns``, ``games.writes``, ``games.timeouts``), with
``sender=Match``, ``match`` and ``seats`` (ranked and scored). Ratings and league fixtures
listen, so their writes commit or roll back together with the final move.

``match_timed_out``: sent after the transaction that applied a time-out committed, with
``sender=Match``, ``match`` and ``seats`` (the Seat objects whose member ran out of time). When
the time-out ends the match, ``match_finished`` was sent too, inside that
transaction, so ratings and league standings follow as for any other result.

``match_viewed``: sent when a logged-in member without a seat is drawn a match's table (its
page, or the fragment its updates fetch), with ``sender=Match``, ``match`` and ``user``: who is
watching (cardclub/social).
"""

from __future__ import annotations

from django.dispatch import Signal

match_finished = Signal()
match_timed_out = Signal()
match_viewed = Signal()
