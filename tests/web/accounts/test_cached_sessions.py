"""Issue 22: sessions from a shared cache (``CACHE_URL``), written through to the database.

With ``CACHE_URL`` set every process reads sessions from the same Redis, so a request pays no
session query, a logout or a password change ends a session everywhere at once, and a flushed
cache logs nobody out. Without it, sessions stay in the database: each process would have a
cache of its own, and a session ended in one would go on working in the others (shown below).
"""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.core.cache import caches
from django.db import connection
from django.test import Client, override_settings
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from cardclub.accounts.sessions.cached_db import SessionStore
from tests.conftest import PASSWORD
from tests.servers import redis_answers

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[3]
NEW_PASSWORD = "another-long-pass-42"


@pytest.fixture
def shared_cache():
    """The settings ``CACHE_URL`` gives, on a key prefix of this test's own."""
    if not redis_answers():
        if os.environ.get("PUSH_REQUIRE_BROKERS") == "1":
            pytest.fail("PUSH_REQUIRE_BROKERS=1 but no Redis answers on 127.0.0.1:6379")
        pytest.skip("no Redis on 127.0.0.1:6379")
    cache_settings = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:6379/1",
            "KEY_PREFIX": f"cardclub-test-{secrets.token_hex(6)}",
        }
    }
    with override_settings(
        CACHES=cache_settings, SESSION_ENGINE="cardclub.accounts.sessions.cached_db"
    ):
        yield caches["default"]
        caches["default"].clear()


def logged_in(username: str = "alice") -> Client:
    client = Client()
    response = client.post(reverse("login"), {"username": username, "password": PASSWORD})
    assert response.status_code == 302
    return client


def a_member_page_opens(client: Client) -> bool:
    response = client.get(reverse("profile_edit"))
    if response.status_code == 302:
        assert response["Location"].startswith(reverse("login"))
        return False
    assert response.status_code == 200
    return True


def same_session(client: Client) -> Client:
    """Another browser (or process) presenting the same session cookie."""
    other = Client()
    name = settings.SESSION_COOKIE_NAME
    other.cookies[name] = client.cookies[name].value
    return other


def test_a_request_reads_its_session_from_the_shared_cache(shared_cache, alice):
    client = logged_in()
    with CaptureQueriesContext(connection) as queries:
        assert a_member_page_opens(client)
    assert not any("django_session" in query["sql"] for query in queries)


def test_a_session_survives_a_flush_of_the_cache(shared_cache, alice):
    client = logged_in()
    shared_cache.clear()
    assert a_member_page_opens(client)


def test_after_a_logout_the_session_works_nowhere(shared_cache, alice):
    client = logged_in()
    copy = same_session(client)
    assert a_member_page_opens(copy)
    key = client.cookies[settings.SESSION_COOKIE_NAME].value
    assert client.post(reverse("logout")).status_code == 302
    assert not a_member_page_opens(copy)
    # Gone from the cache and from the database alike.
    assert not SessionStore().exists(key)
    assert shared_cache.get(SessionStore.cache_key_prefix + key) is None


def test_a_changed_password_ends_the_members_other_sessions(shared_cache, alice):
    here, elsewhere = logged_in(), logged_in()
    response = here.post(
        reverse("password_change"),
        {"old_password": PASSWORD, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert response.status_code == 302
    assert a_member_page_opens(here)
    assert not a_member_page_opens(elsewhere)


def test_with_a_cache_per_process_a_logged_out_session_would_live_on_in_another_process(
    alice,
):
    """Why cached sessions need a shared cache: two local-memory caches stand for two
    processes; the logout empties only the cache of the process that served it."""
    two_processes = {
        "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "a"},
        "other": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "b"},
    }
    with override_settings(CACHES=two_processes):
        store = SessionStore()
        store["_auth_user_id"] = str(alice.pk)
        store.save()
        key = store.session_key
        SessionStore(key).load()  # the first process has the session in its cache
        with override_settings(SESSION_CACHE_ALIAS="other"):
            assert SessionStore(key).load()  # and so does the second
        SessionStore(key).delete()  # the logout, served by the first
        assert not SessionStore(key).exists(key)
        with override_settings(SESSION_CACHE_ALIAS="other"):
            assert SessionStore(key).load() == {"_auth_user_id": str(alice.pk)}


def settings_with(**env: str) -> subprocess.CompletedProcess:
    shown = (
        "from django.conf import settings as s; "
        "print(s.SESSION_ENGINE, s.CACHES['default']['BACKEND'])"
    )
    clean = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(ROOT), "DEBUG": "1"}
    return subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", shown],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_sessions_come_from_the_cache_only_when_a_shared_one_is_configured():
    alone = settings_with()
    assert alone.returncode == 0, alone.stderr
    assert alone.stdout.split()[-2:] == [
        "cardclub.accounts.sessions.db",
        "django.core.cache.backends.locmem.LocMemCache",
    ]
    shared = settings_with(CACHE_URL="redis://127.0.0.1:6379/1")
    assert shared.returncode == 0, shared.stderr
    assert shared.stdout.split()[-2:] == [
        "cardclub.accounts.sessions.cached_db",
        "django.core.cache.backends.redis.RedisCache",
    ]
    wrong = settings_with(CACHE_URL="memcached://127.0.0.1")
    assert wrong.returncode != 0
    assert "CACHE_URL must be a Redis URL" in wrong.stderr
