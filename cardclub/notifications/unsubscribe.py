"""Signed one-click unsubscribe links: the token names a member and a kind, and only this site
can make one (``SECRET_KEY``, a salt of its own), so the link itself is the proof (RFC 8058)."""

from __future__ import annotations

from django.conf import settings
from django.core import signing
from django.urls import reverse

from .models import Kind

SALT = "cardclub.notifications.unsubscribe"


def make_token(user_id: int, kind: str) -> str:
    return signing.dumps({"u": user_id, "k": str(kind)}, salt=SALT, compress=True)


def read_token(token: str) -> tuple[int, str] | None:
    """(member id, kind) of a genuine token, else None. Links do not expire: a member may
    unsubscribe from a mail of last year."""
    try:
        data = signing.loads(token, salt=SALT)
        user_id, kind = int(data["u"]), str(data["k"])
    except (signing.BadSignature, KeyError, TypeError, ValueError):
        return None
    if kind not in Kind.values:
        return None
    return user_id, kind


def absolute(path: str) -> str:
    return settings.SITE_URL.rstrip("/") + path


def unsubscribe_url(user_id: int, kind: str) -> str:
    return absolute(reverse("notifications:unsubscribe", args=[make_token(user_id, kind)]))
