"""Styled error pages in both languages, the 500 page without a database, and inputs that no
database could look up answered with a 404 instead of a 500."""

from __future__ import annotations

import runpy
from datetime import date
from unittest import mock

import pytest
from django.db import OperationalError
from django.db.backends.base.base import BaseDatabaseWrapper
from django.test import Client
from django.urls import reverse

from games import writes
from games.models import Match
from tests.web.table_helpers import variant

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("es", "No hay ninguna partida con ese número."),
        ("en", "There is no match with that number."),
    ],
)
def test_a_missing_match_is_a_styled_404_saying_so_in_the_members_language(
    alice_client, language, text
):
    alice_client.cookies["django_language"] = language
    response = alice_client.get(reverse("games:match", args=[987654]))
    assert response.status_code == 404
    html = response.content.decode()
    assert text in html
    assert 'class="panel error-page"' in html and "club.css" in html


def test_an_unknown_address_is_a_styled_404_without_the_resolvers_internals(alice_client):
    html = alice_client.get("/no-such-page/").content.decode()
    assert "Resolver404" not in html and "tried" not in html
    assert 'class="panel error-page"' in html


def test_a_replay_before_the_end_is_a_styled_403_saying_why(alice, bob, client_for):
    from tests.web.table_helpers import start_match

    match = start_match("escoba", [alice, bob])
    client = client_for(alice)
    client.cookies["django_language"] = "en"
    response = client.get(reverse("games:replay", args=[match.pk]))
    assert response.status_code == 403
    assert "A match can be replayed once it is over." in response.content.decode()


def test_a_form_without_its_csrf_token_gets_the_styled_expired_form_page(alice):
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice, backend="django.contrib.auth.backends.ModelBackend")
    client.cookies["django_language"] = "en"
    response = client.post(reverse("games:join", args=[1]))
    assert response.status_code == 403
    assert "This form has expired" in response.content.decode()


@pytest.mark.parametrize("language", ["es", "en"])
def test_the_500_page_renders_with_the_database_unreachable(language):
    client = Client(raise_request_exception=False)
    client.cookies["django_language"] = language
    client.cookies["sessionid"] = "x" * 32  # so the session (the database) is read

    def unreachable(self):
        raise OperationalError("could not connect to server: Connection refused")

    with mock.patch.object(BaseDatabaseWrapper, "ensure_connection", unreachable):
        response = client.get(reverse("games:lobby"))
    assert response.status_code == 500
    html = response.content.decode()
    assert 'class="panel error-page"' in html
    expected = {"es": "Algo ha fallado por nuestra parte", "en": "Something went wrong on our side"}
    assert expected[language] in html


# Each with the one answer it must get: a 404 where the address names nothing (an id past the
# database's integers, a NUL byte no name holds), the page itself where a bad parameter is
# ignored. ``{match}`` is a match being played with alice seated, ``{finished}`` one that has
# ended (its replay), ``{season}`` a season.
@pytest.mark.parametrize(
    ("method", "url", "status"),
    [
        ("get", "/play/rules/escoba/?variant=abc", 200),
        ("get", "/play/rules/escoba/?variant=99999999999999999999999", 200),
        ("get", "/members/%00/", 404),
        ("get", "/members/a%00b/", 404),
        ("get", "/play/invite/%00/", 404),
        ("post", "/play/m/9223372036854775808/move/", 404),
        ("get", "/play/m/9223372036854775808/", 404),
        ("get", "/play/m/99999999999999999999999999/poll/?v=1", 404),
        ("post", "/play/m/9223372036854775808/join/", 404),
        ("post", "/play/m/9223372036854775808/resign/", 404),
        ("get", "/play/m/9223372036854775808/replay/", 404),
        ("get", "/leagues/season/9223372036854775808/", 404),
        ("post", "/leagues/fixture/9223372036854775808/start/", 404),
        ("get", "/ratings/%00/", 404),
        ("get", "/play/new/%00/", 404),
        ("get", "/leagues/season/{season}/?round=99999999999999999999999", 200),
        ("get", "/leagues/season/{season}/?round=%00", 200),
        ("get", "/ratings/escoba/?page=%00", 200),
        ("get", "/ratings/escoba/?page=99999999999999999999999", 200),
        ("get", "/play/new/escoba/?players=%00", 200),
        ("get", "/play/rules/escoba/?variant=%00", 200),
        ("get", "/play/m/{match}/poll/?v=%00", 200),
        ("get", "/play/m/{finished}/replay/?step=99999999999999999999999", 200),
        ("get", "/play/m/{match}/?ss=%00", 200),
        ("post", "/play/new/escoba/", 200),
    ],
)
def test_input_no_database_could_look_up_is_never_a_500(
    alice_client, alice, bob, league, method, url, status
):
    from cardclub.leagues.models import Season
    from tests.web.table_helpers import start_match

    if "{" in url:
        finished = start_match("escoba", [alice, bob])
        writes.resign(finished.pk, bob)
        url = url.format(
            match=start_match("escoba", [alice, bob]).pk,
            finished=finished.pk,
            season=Season.objects.create(league=league, name="2026", starts_on=date.today()).pk,
        )
    response = getattr(alice_client, method)(url)
    assert response.status_code == status, url


# The form is drawn again with its errors (200), or the move refused and the member sent back
# to the table (302: a form post without htmx), or the language left as it was (302).
@pytest.mark.parametrize(
    ("url", "data", "status"),
    [
        ("/play/new/escoba/", {"variant": "\x00", "players": "\x00", "seat_1": "\x00"}, 200),
        ("/play/new/escoba/", {"variant": "99999999999999999999999", "players": "2"}, 200),
        ("/play/m/1/move/", {"code": "\x00", "v": "\x00"}, 302),
        ("/accounts/profile/", {"email": "a\x00@example.com"}, 200),
        ("/i18n/setlang/", {"language": "\x00", "next": "/\x00"}, 302),
    ],
)
def test_form_fields_no_database_could_store_are_never_a_500(
    alice_client, alice, url, data, status
):
    if "/m/1/" in url:
        match = writes.create_match(alice, variant("escoba"), 2, ["open"])
        url = url.replace("/m/1/", f"/m/{match.pk}/")
    response = alice_client.post(url, data)
    assert response.status_code == status, url


@pytest.mark.parametrize(
    ("url", "data"),
    [
        ("/accounts/login/", {"username": "a\x00", "password": "x\x00"}),
        ("/accounts/signup/", {"username": "a\x00", "password1": "x", "password2": "x"}),
        ("/accounts/password/reset/", {"email": "a\x00@example.com"}),
    ],
)
def test_visitors_forms_with_a_nul_byte_are_never_a_500(client, url, data):
    # Refused as any wrong entry is: the form again, with its errors.
    assert client.post(url, data).status_code == 200


def test_the_rules_page_ignores_a_variant_that_is_not_a_number(client):
    response = client.get(reverse("games:rules", args=["escoba"]), {"variant": "abc"})
    assert response.status_code == 200


def test_a_match_id_still_reverses_and_resolves(alice):
    match = writes.create_match(alice, variant("escoba"), 2, ["open"])
    assert reverse("games:match", args=[match.pk]) == f"/play/m/{match.pk}/"
    assert Match.objects.get(pk=match.pk)


@pytest.mark.parametrize(
    "url", ["sqlite:////tmp/cardclub-settings-check.sqlite3", "sqlite:///relative.sqlite3"]
)
def test_sqlite_named_through_database_url_gets_wal_immediate_writes_and_a_busy_timeout(
    monkeypatch, url
):
    monkeypatch.setenv("DATABASE_URL", url)
    settings = runpy.run_path("cardclub/settings.py")
    database = settings["DATABASES"]["default"]
    assert database["ENGINE"] == "django.db.backends.sqlite3"
    assert database["OPTIONS"]["transaction_mode"] == "IMMEDIATE"
    assert database["OPTIONS"]["timeout"] >= 5
    assert "journal_mode=WAL" in database["OPTIONS"]["init_command"]
    assert "busy_timeout" in database["OPTIONS"]["init_command"]
    assert database["TEST"]["NAME"]  # a file, never memory


def test_the_default_sqlite_file_gets_the_same_settings(monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    database = runpy.run_path("cardclub/settings.py")["DATABASES"]["default"]
    assert database["OPTIONS"]["transaction_mode"] == "IMMEDIATE"
    assert "journal_mode=WAL" in database["OPTIONS"]["init_command"]
