"""What the live page is given by the server to stay live (issue 28): the stream's keep-alive,
the connection line, a refused move's reason in the page's messages, and every part of the
table (the game log too) in the updates of whoever opened it."""

from __future__ import annotations

import json
import re

import pytest
from django.conf import settings
from django.test import AsyncClient
from django.urls import reverse

from games import writes
from tests.servers import run_in_new_loop
from tests.web.table_helpers import post_move, start_match, variant

LOG_PANEL = '<details class="panel game-log-panel">'


def _poll(client, match, version, status):
    url = reverse("games:poll", args=[match.pk])
    response = client.get(
        url, {"v": version, "m": 0, "s": status}, HTTP_HX_REQUEST="true", HTTP_ACCEPT_LANGUAGE="es"
    )
    return response.content.decode()


def test_the_member_who_opened_the_table_gets_the_game_log_when_the_match_starts(
    alice, bob, client_for
):
    match = writes.create_match(alice, variant("schotten_totten"), 2, ["open"])
    client = client_for(alice)
    page = client.get(match.get_absolute_url()).content.decode()
    assert 'id="game-log-panel"' in page and LOG_PANEL not in page
    waiting = match.version
    writes.join_match(match.pk, bob)
    fragment = _poll(client, match, waiting, "open")
    panel = re.search(
        r'<div id="game-log-panel" hx-swap-oob="true">.*?</div>\s*</details>', fragment, re.S
    )
    assert panel and LOG_PANEL in panel.group(0)
    assert reverse("games:log", args=[match.pk]) in panel.group(0)


def test_an_update_that_does_not_change_the_status_carries_no_game_log_panel(
    alice, bob, client_for
):
    match = start_match("schotten_totten", [alice, bob])
    fragment = _poll(client_for(alice), match, match.version - 1, "playing")
    assert "game-log-panel" not in fragment and 'id="table"' in fragment


def test_a_refused_move_is_said_in_the_messages_and_the_page_is_told_to_keep_the_pick(
    alice, bob, client_for
):
    match = start_match("schotten_totten", [alice, bob])
    mover = alice if match.seats.get(index=0).to_move else bob
    client = client_for(mover)
    response = post_move(client, match, "p:R7:0", version=match.version - 1)
    assert "cardclub:moveRefused" in json.loads(response["HX-Trigger"])
    html = response.content.decode()
    table, messages = html.split('<div id="messages"', 1)
    assert 'role="alert"' not in table
    assert 'role="alert"' in messages and "La mesa ha cambiado" in messages
    match.refresh_from_db()
    assert not match.moves_played


def test_a_move_played_carries_no_refusal(alice, bob, client_for):
    match = start_match("schotten_totten", [alice, bob])
    seat = 0 if match.seats.get(index=0).to_move else 1
    mover = match.seats.get(index=seat).user
    state = match.engine.load(match.state)
    code = match.engine.legal_moves(state, seat)[0].code
    response = post_move(client_for(mover), match, code)
    assert "HX-Trigger" not in response and 'role="alert"' not in response.content.decode()


def _asgi_page(user, url):
    async def get():
        client = AsyncClient()
        await client.aforce_login(user, backend="django.contrib.auth.backends.ModelBackend")
        return (await client.get(url, headers={"accept-language": "es"})).content.decode()

    return run_in_new_loop(get())


@pytest.mark.django_db(transaction=True)
def test_a_live_page_names_its_stream_its_keep_alive_and_has_a_polite_connection_line(alice, bob):
    match = start_match("schotten_totten", [alice, bob])
    keepalive = f'data-keepalive="{int(settings.PUSH_KEEPALIVE_SECONDS)}"'
    for url, stream in (
        (match.get_absolute_url(), reverse("games:live", args=[match.pk])),
        (reverse("games:lobby"), reverse("games:my_matches_live")),
    ):
        html = _asgi_page(alice, url)
        assert f'data-stream-url="{stream}" {keepalive}' in html, url
        line = re.search(r'<p class="connection-state"[^>]*>', html).group(0)
        assert 'role="status"' in line and 'aria-live="polite"' in line
        assert "Reconectando" in line and "Sin conexión" in line


def test_the_page_head_carries_no_template_comment_as_text(alice, client_for):
    html = client_for(alice).get(reverse("games:lobby")).content.decode()
    assert "{#" not in html and "#}" not in html and "Content-Security-Policy htmx" not in html
    assert '"attributesToSettle": ["class", "width", "height"]' in html
