"""The admin's page of a match: its seats are shown, never added or removed there (a seat is
taken, left and ended by the club's own actions), and the page speaks the admin's language."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.test import RequestFactory
from django.urls import reverse

from games.admin import SeatInline
from games.models import Match
from tests.web.table_helpers import start_match

pytestmark = pytest.mark.django_db


@pytest.fixture
def boss(make_member):
    return make_member("boss", is_staff=True, is_superuser=True)


def match_page(client_for, boss, match, language):
    response = client_for(boss).get(
        reverse("admin:games_match_change", args=[match.pk]), HTTP_ACCEPT_LANGUAGE=language
    )
    assert response.status_code == 200
    return response.content.decode()


def test_not_even_a_superuser_may_add_a_seat_to_a_match_in_the_admin(alice, bob, boss, client_for):
    match = start_match("escoba", [alice, bob])
    request = RequestFactory().get("/")
    request.user = boss
    inline = SeatInline(Match, admin.site)
    assert not inline.has_add_permission(request, match)
    page = match_page(client_for, boss, match, "en")
    assert 'id="seats-0"' in page and 'id="seats-1"' in page  # both seats are shown
    assert "seats-__prefix__" not in page  # no blank seat to fill in
    assert "seats-0-DELETE" not in page  # and none to remove


def test_a_match_s_admin_page_names_its_fields_and_seats_in_spanish(alice, bob, boss, client_for):
    match = start_match("escoba", [alice, bob])
    page = match_page(client_for, boss, match, "es")
    for words in ("Asientos", "Nivel del bot", "Le toca", "Versión", "Puntos"):
        assert words in page, words
    for words in ("Seats", "Bot level", "To move", "Version", "Score"):
        assert words not in page, words
