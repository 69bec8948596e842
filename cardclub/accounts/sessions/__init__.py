"""The club's session engines: Django's ``db`` and ``cached_db``, with the session row read by
one plain statement (``cardclub/rows.py``) instead of a query built by the ORM on every request
(issue 34). Same table, same encoding, same expiry: a session made by Django's own engine is
read here and the other way round. ``SESSION_ENGINE``: ``cardclub.accounts.sessions.db``, or
``….cached_db`` with a shared cache.

The row is read on every request (a logout or a password change ends the session at once, in
every process), but its data are decoded once per process: checking the signature and parsing
the JSON cost more CPU than reading the row. Decoding is a function of the data and the keys
alone, so the same data decode to the same session whatever the request."""

from __future__ import annotations

from functools import lru_cache

from django.conf import settings
from django.core import signing
from django.db import connections
from django.utils import timezone

from cardclub import rows

FIELDS = ("session_key", "session_data", "expire_date")
WHERE = "session_key = %s AND expire_date > %s"
# What a session holds that a copy of its dict cannot share with another request's.
SCALARS = (str, int, float, bool, type(None))


@lru_cache(maxsize=4096)
def _decoded(data: str, salt: str, serializer, secret, fallbacks) -> tuple | None:
    """The items of the session ``data`` decode to, or ``None`` when they do not decode or
    hold something mutable (then the store decodes them itself, as Django does). ``secret`` and
    ``fallbacks`` (the signing keys, which ``signing.loads`` reads from the settings) are part of
    the key: data signed with a key no longer accepted do not decode from the cache."""
    try:
        session = signing.loads(data, salt=salt, serializer=serializer)
    except Exception:  # noqa: BLE001  (Django's decode logs it and answers an empty session)
        return None
    if not all(isinstance(value, SCALARS) for value in session.values()):
        return None
    return tuple(session.items())


class ReadByStatement:
    def decode(self, session_data):
        items = _decoded(
            session_data,
            self.key_salt,
            self.serializer,
            settings.SECRET_KEY,
            tuple(settings.SECRET_KEY_FALLBACKS),
        )
        if items is None:
            return super().decode(session_data)
        return dict(items)

    def _get_session_from_db(self):
        using, now = self._where()
        session = rows.instance(
            self.model,
            FIELDS,
            WHERE,
            [self.session_key, now],
            using=using,
        )
        if session is None:
            # As Django's engine: an unknown or expired key is forgotten, and a new one is
            # made if the session is written.
            self._session_key = None
        return session

    def _session_data(self) -> str | None:
        """The session's data alone, or ``None`` (the key forgotten, as above): what the
        database engine's ``load`` needs, with no model built around it."""
        using, now = self._where()
        found = rows.values(self.model, ("session_data",), WHERE, [self.session_key, now], using)
        if found is None:
            self._session_key = None
            return None
        return found[0]

    def _where(self):
        using = self.model._default_manager.db
        return using, connections[using].ops.adapt_datetimefield_value(timezone.now())
