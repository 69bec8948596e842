"""Sessions in the database, read by one plain statement (see the package)."""

from functools import cache

from django.contrib.sessions.backends import db
from django.db import connections

from cardclub import rows
from cardclub.accounts.sessions import ReadByStatement


class SessionStore(ReadByStatement, db.SessionStore):
    def load(self):
        data = self._session_data()
        return {} if data is None else self.decode(data)

    def load_with_member(self, model, fields: tuple[str, ...], user_id):
        """Load the session and, by the same statement, the row of ``model`` whose primary key
        is ``user_id`` (``fields`` loaded): that member, or ``None`` when there is no such row.
        The caller checks that the session is that member's."""
        using, now = self._where()
        found = rows.row(
            with_member(self.model, model, fields, using), [user_id, self.session_key, now], using
        )
        if found is None:
            self._session_key = None
            self._session_cache = {}
            return None
        self._session_cache = self.decode(found[0])
        if found[1] is None:  # the primary key: no such member
            return None
        return model.from_db(using, list(fields), rows.read_as(model, fields, found[1:], using))


@cache
def with_member(session_model, model, fields: tuple[str, ...], using: str) -> str:
    """The session's data and the member's ``fields``, one statement (``load_with_member``)."""
    quote = connections[using].ops.quote_name
    member = ", ".join(f"m.{quote(model._meta.get_field(name).column)}" for name in fields)
    return (
        f"SELECT s.{quote('session_data')}, {member} FROM {quote(session_model._meta.db_table)} s"
        f" LEFT JOIN {quote(model._meta.db_table)} m ON m.{quote(model._meta.pk.column)} = %s"
        f" WHERE s.{quote('session_key')} = %s AND s.{quote('expire_date')} > %s"
    )
