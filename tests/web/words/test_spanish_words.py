"""The words a Spanish-speaking member met on the club night (issue 31): their own seat's
turn, a season's status, the welcome after signing up and the admin's login-protection
section."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from tests.conftest import PASSWORD
from tests.web.club_night import club_night

pytestmark = pytest.mark.django_db


def spanish(user=None) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="es")
    if user is not None:
        client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    return client


def test_your_own_seat_says_te_toca_and_the_others_le_toca(make_member):
    night = club_night(make_member, live_moves=0)
    match = night.live["schotten_totten"]
    to_move = match.engine.to_move(match.engine.load(match.state))[0]
    mover = match.seats.get(index=to_move).user
    other = next(m for m in night.members[:2] if m != mover)
    assert 'class="badge turn">te toca<' in spanish(mover).get(match.get_absolute_url()).text
    seen_by_other = spanish(other).get(match.get_absolute_url()).text
    assert 'class="badge turn">le toca<' in seen_by_other
    assert "te toca" not in seen_by_other


def test_the_seats_panel_speaks_each_members_language_in_turn(make_member):
    night = club_night(make_member, live_moves=0)
    match = night.live["schotten_totten"]
    member = night.members[0]
    english = Client(HTTP_ACCEPT_LANGUAGE="en")
    english.force_login(member, backend="django.contrib.auth.backends.ModelBackend")
    for _ in range(2):
        assert 'class="badge you">tú<' in spanish(member).get(match.get_absolute_url()).text
        in_english = english.get(match.get_absolute_url()).text
        assert 'class="badge you">you<' in in_english and "tú<" not in in_english


def test_a_running_season_reads_en_juego(make_member):
    night = club_night(make_member, live_moves=0)
    night.season.generate_fixtures()
    page = spanish(night.members[0]).get(reverse("leagues:season", args=[night.season.pk]))
    assert re.search(r'id="season-status">En juego<', page.text)


def test_a_running_season_offers_its_members_to_withdraw_in_spanish(make_member):
    night = club_night(make_member, live_moves=0)
    night.season.generate_fixtures()
    page = spanish(night.members[0]).get(reverse("leagues:season", args=[night.season.pk]))
    assert "Retirarme de esta temporada" in page.text
    assert re.search(r">Retirarme</button>", page.text)


def test_the_welcome_after_signing_up_agrees_with_the_page_title():
    response = spanish().post(
        reverse("signup"),
        {"username": "dora", "email": "", "password1": PASSWORD, "password2": PASSWORD},
        follow=True,
    )
    assert "¡Te damos la bienvenida al club, dora!" in response.text
    assert "Bienvenido" not in response.text


def test_the_spanish_admin_names_the_login_protection_section_in_spanish(make_member):
    boss = make_member("boss", is_staff=True, is_superuser=True)
    page = spanish(boss).get(reverse("admin:index")).text
    assert "Protección del acceso" in page
    assert "Intentos de acceso" in page
    assert "Access attempts" not in page
    assert not re.search(r">\s*Axes\s*<", page, re.I)


def test_the_spanish_admin_names_the_background_tasks_in_spanish(make_member):
    boss = make_member("boss", is_staff=True, is_superuser=True)
    page = spanish(boss).get(reverse("admin:index")).text
    assert "Tareas en segundo plano" in page
    assert "Resultados de las tareas" in page
    assert "Tasks Database Backend" not in page and "Task Results" not in page
