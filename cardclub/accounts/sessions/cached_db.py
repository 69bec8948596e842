"""Sessions read from the shared cache, written through to the database and read from there
by one plain statement when the cache has lost them (see the package)."""

from django.contrib.sessions.backends import cached_db

from cardclub.accounts.sessions import ReadByStatement


class SessionStore(ReadByStatement, cached_db.SessionStore):
    pass
