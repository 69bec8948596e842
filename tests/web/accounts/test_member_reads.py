"""Issue 34: the session and the member are read by plain statements (``cardclub/rows.py``),
and the member is checked exactly as Django's ``get_user`` checks it."""

from __future__ import annotations

import pytest
from django.contrib.auth import HASH_SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore as DjangoSessionStore
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from cardclub.accounts.sessions.db import SessionStore
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db


def logged_in(username: str) -> Client:
    client = Client()
    response = client.post(reverse("login"), {"username": username, "password": PASSWORD})
    assert response.status_code == 302
    return client


def whose_page(client) -> str:
    response = client.get(reverse("games:lobby"))
    if response.status_code == 302:
        assert response["Location"].startswith(reverse("login"))
        return "nobody"
    return response.context["user"].username


def test_a_logged_in_page_reads_the_session_and_the_member_in_one_statement_each(alice):
    client = logged_in("alice")
    with CaptureQueriesContext(connection) as queries:
        assert whose_page(client) == "alice"
    sql = [q["sql"] for q in queries.captured_queries]
    assert sum('FROM "django_session"' in s for s in sql) == 1
    assert sum('FROM "auth_user"' in s for s in sql) == 1


def test_a_session_made_by_djangos_own_engine_is_read_by_the_clubs_and_back(alice):
    client = logged_in("alice")
    key = client.cookies["sessionid"].value
    assert DjangoSessionStore(key).load() == SessionStore(key).load()
    assert SessionStore(key).load()["_auth_user_id"] == str(alice.pk)


def test_an_expired_session_is_nobody_and_its_key_is_forgotten(alice):
    client = logged_in("alice")
    key = client.cookies["sessionid"].value
    store = DjangoSessionStore(key)
    store.load()
    store.set_expiry(timezone.now() - timezone.timedelta(seconds=1))
    store.save()
    mine = SessionStore(key)
    assert mine.load() == {}
    assert mine.session_key is None
    assert whose_page(client) == "nobody"


def test_a_password_change_ends_the_members_other_sessions(alice):
    other = logged_in("alice")
    alice.set_password("another-long-pass-42")
    alice.save()
    assert whose_page(other) == "nobody"


def test_a_member_made_inactive_is_logged_out_at_once(alice):
    client = logged_in("alice")
    alice.is_active = False
    alice.save()
    assert whose_page(client) == "nobody"


def test_a_session_without_the_password_hash_is_flushed(alice):
    client = logged_in("alice")
    key = client.cookies["sessionid"].value
    store = DjangoSessionStore(key)
    del store[HASH_SESSION_KEY]
    store.save()
    assert whose_page(client) == "nobody"
    assert not DjangoSessionStore().exists(key)


def test_a_deleted_member_is_nobody(alice):
    client = logged_in("alice")
    alice.delete()
    assert whose_page(client) == "nobody"


def test_the_member_read_has_every_field_as_the_orm_reads_it(alice):
    from django.contrib.auth import get_user_model

    from cardclub.accounts.members import _read

    read = _read(get_user_model(), alice.pk)
    orm = get_user_model().objects.get(pk=alice.pk)
    for field in orm._meta.concrete_fields:
        assert getattr(read, field.attname) == getattr(orm, field.attname), field.name
    assert read.date_joined.tzinfo is not None
    assert read._state.adding is False and read._state.db == "default"


def test_a_session_hashed_with_a_former_secret_key_works_once_renewed(alice, settings):
    client = logged_in("alice")
    key = client.cookies["sessionid"].value
    settings.SECRET_KEY_FALLBACKS = [settings.SECRET_KEY]
    settings.SECRET_KEY = "a-new-secret-key-for-this-test-only-" * 2
    assert whose_page(client) == "alice"
    assert client.cookies["sessionid"].value != key  # cycled, as Django's get_user does
    assert whose_page(client) == "alice"


def test_session_data_signed_with_a_secret_key_no_longer_accepted_do_not_decode(alice, settings):
    client = logged_in("alice")
    key = client.cookies["sessionid"].value
    assert SessionStore(key).load()["_auth_user_id"] == str(alice.pk)  # decoded once, kept
    settings.SECRET_KEY = "another-secret-key-" + "x" * 40
    assert SessionStore(key).load() == {}
    assert whose_page(client) == "nobody"


def test_a_session_decoded_once_is_a_fresh_dict_for_every_request(alice):
    client = logged_in("alice")
    key = client.cookies["sessionid"].value
    first = SessionStore(key).load()
    first["changed"] = "here only"
    assert "changed" not in SessionStore(key).load()


def test_a_session_holding_a_list_is_decoded_anew_so_requests_share_nothing(alice):
    client = logged_in("alice")
    key = client.cookies["sessionid"].value
    store = SessionStore(key)
    store["recent"] = [1, 2]
    store.save()
    SessionStore(key).load()["recent"].append(3)
    assert SessionStore(key).load()["recent"] == [1, 2]


def test_a_changed_session_is_read_with_its_new_data(alice):
    client = logged_in("alice")
    key = client.cookies["sessionid"].value
    store = SessionStore(key)
    store["colour"] = "red"
    store.save()
    assert SessionStore(key).load()["colour"] == "red"
    store["colour"] = "blue"
    store.save()
    assert SessionStore(key).load()["colour"] == "blue"


def test_the_kept_session_hash_is_djangos_for_the_password_and_key(alice, settings):
    from cardclub.accounts.members import _session_auth_hash

    assert _session_auth_hash(alice) == alice.get_session_auth_hash()
    alice.set_password("another password 123")
    assert _session_auth_hash(alice) == alice.get_session_auth_hash()
    settings.SECRET_KEY = "another-secret-key-" + "x" * 40
    assert _session_auth_hash(alice) == alice.get_session_auth_hash()


def test_a_session_seen_before_is_read_with_its_member_by_one_statement(alice):
    client = logged_in("alice")
    assert whose_page(client) == "alice"  # this process now knows whose the session is
    with CaptureQueriesContext(connection) as queries:
        assert whose_page(client) == "alice"
    sql = [q["sql"] for q in queries.captured_queries]
    joined = [s for s in sql if 'FROM "django_session"' in s]
    assert len(joined) == 1 and 'JOIN "auth_user"' in joined[0]
    assert not any('FROM "auth_user"' in s for s in sql)


def test_a_session_read_with_its_member_still_ends_on_a_password_change_or_deactivation(alice, bob):
    client = logged_in("alice")
    assert whose_page(client) == "alice"
    alice.set_password("a whole new password 42")
    alice.save()
    assert whose_page(client) == "nobody"
    client = logged_in("bob")
    assert whose_page(client) == "bob"
    bob.is_active = False
    bob.save()
    assert whose_page(client) == "nobody"


def test_a_session_now_someone_elses_is_read_as_theirs(alice, bob):
    from cardclub.accounts import members

    client = logged_in("alice")
    key = client.cookies["sessionid"].value
    members._members[key] = bob.pk  # as if this process last saw bob with it
    assert whose_page(client) == "alice"
