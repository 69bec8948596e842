"""Sessions in the database, read by one plain statement (see the package)."""

from django.contrib.sessions.backends import db

from cardclub.accounts.sessions import ReadByStatement


class SessionStore(ReadByStatement, db.SessionStore):
    def load(self):
        data = self._session_data()
        return {} if data is None else self.decode(data)
