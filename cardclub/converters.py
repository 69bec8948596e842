"""Path converters that refuse, with a plain 404, what no database could look up.

``<int:…>`` accepts any number of digits, and SQLite cannot even bind an integer past 2**63 - 1
(a 500 "Python int too large"); ``<str:…>`` accepts a NUL byte, which PostgreSQL refuses in a
string (another 500). These match only what a row could hold, in one place for every URL.
"""

from __future__ import annotations

from django.urls import register_converter


class IdConverter:
    """A primary key: 1 to 18 digits, so it always fits a signed 64-bit column."""

    regex = "[0-9]{1,18}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value) -> str:
        return str(int(value))


class UsernameConverter:
    """The characters Django's username validator allows, at most its 150."""

    regex = r"[\w.@+-]{1,150}"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value) -> str:
        return str(value)


class TokenConverter:
    """A URL-safe token (``secrets.token_urlsafe``), as invitation links carry."""

    regex = "[A-Za-z0-9_-]{1,64}"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value) -> str:
        return str(value)


register_converter(IdConverter, "id")
register_converter(UsernameConverter, "username")
register_converter(TokenConverter, "token")


def id_param(value) -> int | None:
    """A query-string id (``?variant=12``) as an int, or ``None`` when it cannot name a row."""
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 18:
        return int(value)
    return None
