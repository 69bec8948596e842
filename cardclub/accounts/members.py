"""The member of a request, read by one plain statement (issue 34).

Django's ``AuthenticationMiddleware`` reads the member through ``ModelBackend.get_user``: a
query the ORM builds anew on every request, which cost more CPU than the rest of a bare page.
:class:`MemberMiddleware` reads the same row by ``cardclub/rows.py`` and checks it exactly as
``django.contrib.auth.get_user`` does: the backend named in the session must be one of
``AUTHENTICATION_BACKENDS``, the member must be active (``user_can_authenticate``), and the
session's hash of the password must match (a password change ends the other sessions), trying
the fallback secrets and flushing the session when none matches. Sessions made by any other
backend, and requests with no member, go through Django's own ``get_user``.
"""

from __future__ import annotations

from functools import lru_cache

from django.conf import settings
from django.contrib import auth
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.middleware import AuthenticationMiddleware
from django.contrib.auth.models import AnonymousUser
from django.utils.crypto import constant_time_compare
from django.utils.functional import SimpleLazyObject

from cardclub import rows

MODEL_BACKEND = "django.contrib.auth.backends.ModelBackend"
_backend = ModelBackend()


def _read(model, user_id):
    """The member's row, every column loaded, as ``ModelBackend.get_user`` reads it."""
    return rows.instance(model, rows.concrete(model), f"{model._meta.pk.column} = %s", [user_id])


@lru_cache(maxsize=4096)
def _hash_of(model, password: str, secret: str) -> str:
    return model(password=password)._get_session_auth_hash(secret=secret)


def _session_auth_hash(user) -> str:
    """``user.get_session_auth_hash()``, worked out once per password and secret key (an HMAC
    of the two alone) unless the model works it out otherwise."""
    model = type(user)
    if (
        model.get_session_auth_hash is not AbstractBaseUser.get_session_auth_hash
        or model._get_session_auth_hash is not AbstractBaseUser._get_session_auth_hash
    ):
        return user.get_session_auth_hash()
    return _hash_of(model, user.password, settings.SECRET_KEY)


# Whose each session was when this process last read it: such a session is read with that
# member's row by one statement (the statement reads both afresh; the member is used only if the
# session is still theirs). Forgotten all at once past MEMBERS_KEPT sessions.
MEMBERS_KEPT = 10_000
_members: dict[str, object] = {}


def _member_of_session(session_key, user_id) -> None:
    if session_key is not None and _members.get(session_key) != user_id:
        if len(_members) >= MEMBERS_KEPT:
            _members.clear()
        _members[session_key] = user_id


def _with_session(session, model):
    """The member this process last saw with ``session``, read with the session by one
    statement when the session is not loaded yet and its store can (``sessions/db.py``);
    else ``None``, and the session is loaded as usual."""
    user_id = _members.get(session.session_key)
    if (
        user_id is None
        or hasattr(session, "_session_cache")
        or not hasattr(session, "load_with_member")
    ):
        return None
    return session.load_with_member(model, rows.concrete(model), user_id)


def member_of(request):
    """``request``'s member, or ``AnonymousUser``: ``django.contrib.auth.get_user``'s answer."""
    session = request.session
    model = auth.get_user_model()
    # Before the session is loaded: a session this process has seen is read with its member.
    read_with_session = _with_session(session, model)
    if (
        session.get(BACKEND_SESSION_KEY) != MODEL_BACKEND
        or MODEL_BACKEND not in settings.AUTHENTICATION_BACKENDS
    ):
        return auth.get_user(request)
    try:
        user_id = model._meta.pk.to_python(session[SESSION_KEY])
    except KeyError:
        return AnonymousUser()
    user = read_with_session
    if user is None or user.pk != user_id:
        user = _read(model, user_id)
    if user is None or not _backend.user_can_authenticate(user):
        return AnonymousUser()
    _member_of_session(session.session_key, user.pk)
    session_hash = session.get(HASH_SESSION_KEY)
    current = _session_auth_hash(user)
    if session_hash and constant_time_compare(session_hash, current):
        return user
    if session_hash and any(
        constant_time_compare(session_hash, fallback)
        for fallback in user.get_session_auth_fallback_hash()
    ):
        session.cycle_key()
        session[HASH_SESSION_KEY] = current
        return user
    session.flush()
    return AnonymousUser()


class MemberMiddleware(AuthenticationMiddleware):
    """Django's ``AuthenticationMiddleware`` with the member read by :func:`member_of`."""

    def process_request(self, request):
        super().process_request(request)
        request.user = SimpleLazyObject(lambda: member_of(request))
