"""The club's session engines: Django's ``db`` and ``cached_db``, with the session row read by
one plain statement (``cardclub/rows.py``) instead of a query built by the ORM on every request
(issue 34). Same table, same encoding, same expiry: a session made by Django's own engine is
read here and the other way round. ``SESSION_ENGINE``: ``cardclub.accounts.sessions.db``, or
``….cached_db`` with a shared cache."""

from __future__ import annotations

from django.db import connections
from django.utils import timezone

from cardclub import rows

FIELDS = ("session_key", "session_data", "expire_date")


class ReadByStatement:
    def _get_session_from_db(self):
        using = self.model._default_manager.db
        now = connections[using].ops.adapt_datetimefield_value(timezone.now())
        session = rows.instance(
            self.model,
            FIELDS,
            "session_key = %s AND expire_date > %s",
            [self.session_key, now],
            using=using,
        )
        if session is None:
            # As Django's engine: an unknown or expired key is forgotten, and a new one is
            # made if the session is written.
            self._session_key = None
        return session
