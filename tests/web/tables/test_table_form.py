"""Issue 22: a seat's table is one form. Every legal move is a submit button naming its code, so
the token and the version travel once per fragment, not once per move; a move chosen in two steps
(a card, then a stone) sends the card as the radio "pick" and the button's code holds "*"."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from games.models import Match
from tests.web.games.test_schotten_totten_table import ALICE_HAND, BOB_HAND, POSITION, set_position
from tests.web.table_helpers import start_match

pytestmark = pytest.mark.django_db


@pytest.fixture
def match(alice, bob):
    return set_position(
        start_match("schotten_totten", [alice, bob]), POSITION, [ALICE_HAND, BOB_HAND]
    )


def fragment(client, match):
    response = client.get(match.get_absolute_url(), HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    return response.content.decode()


@pytest.mark.parametrize("game", ["escoba", "schotten_totten", "scout"])
def test_the_seat_to_move_gets_one_form_with_one_token_and_a_button_per_move(
    game, alice, bob, client_for
):
    match = start_match(game, [alice, bob])
    mover = alice if match.seats.get(index=0).to_move else bob
    client = client_for(mover)
    html = fragment(client, match)
    assert html.count('class="table-form"') == 1
    assert len(re.findall(r'<button type="submit" name="code" value="[^"]+"', html)) >= 1
    assert html.count('name="v"') == 1
    # The fragment's form carries no token (htmx sends it in a header); the full page's does,
    # for a browser without JavaScript.
    table_form = re.search(r'<form[^>]*class="table-form".*?</form>', html, re.S).group(0)
    assert "csrfmiddlewaretoken" not in table_form
    page = client.get(match.get_absolute_url()).content.decode()
    table_form = re.search(r'<form[^>]*class="table-form".*?</form>', page, re.S).group(0)
    assert table_form.count('name="csrfmiddlewaretoken"') == 1


def test_a_move_from_a_fragment_passes_the_csrf_check_with_the_header_htmx_sends(
    alice, bob, client_for
):
    from django.test import Client

    match = start_match("escoba", [alice, bob])
    mover = alice if match.seats.get(index=0).to_move else bob
    client = Client(enforce_csrf_checks=True)
    client.force_login(mover, backend="django.contrib.auth.backends.ModelBackend")
    page = client.get(match.get_absolute_url()).content.decode()
    token = re.search(r'hx-headers=\'\{"X-CSRFToken": "([^"]+)"\}\'', page).group(1)
    state = match.engine.load(match.state)
    code = match.engine.legal_moves(state, match.engine.to_move(state)[0])[0].code
    url = reverse("games:move", args=[match.pk])
    refused = client.post(url, {"code": code, "v": match.version}, HTTP_HX_REQUEST="true")
    assert refused.status_code == 403
    moved = client.post(
        url, {"code": code, "v": match.version}, HTTP_HX_REQUEST="true", HTTP_X_CSRFTOKEN=token
    )
    assert moved.status_code == 200
    assert Match.objects.get(pk=match.pk).version == match.version + 1


def test_a_two_step_move_takes_the_picked_card_in_place_of_the_star(match, alice, client_for):
    response = client_for(alice).post(
        reverse("games:move", args=[match.pk]),
        {"code": "p:*:0", "pick": "R7", "v": match.version},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200
    assert not response.context["error"]
    match.refresh_from_db()
    stone = match.engine.dump(match.engine.load(match.state))["stones"][0]
    assert "R7" in stone["cards"][0]


def test_a_two_step_move_without_a_picked_card_says_so_and_changes_nothing(
    match, alice, client_for
):
    before = (match.version, match.state)
    response = client_for(alice).post(
        reverse("games:move", args=[match.pk]),
        {"code": "p:*:0", "v": match.version},
        HTTP_HX_REQUEST="true",
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert response.status_code == 200
    assert "Pick the cards for this move first." in response.content.decode()
    match = Match.objects.get(pk=match.pk)
    assert (match.version, match.state) == before
