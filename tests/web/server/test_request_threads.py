"""Issue 34: through a real uvicorn process, each request is served whole in one thread of a
fixed pool (``cardclub/handler.py``), and what Django's own ASGI handler did still holds."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from django.conf import settings
from django.urls import reverse

from tests.servers import session_cookie, start_app_server
from tests.web.table_helpers import engine_state, start_match

pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def server():
    running = start_app_server()
    yield running
    running.stop()


def test_a_static_file_streams_whole_and_a_visitor_is_sent_to_the_login(server):
    script = (ROOT / "static" / "js" / "live.js").read_bytes()
    with httpx.Client(base_url=server.url, timeout=30) as client:
        response = client.get(f"{settings.STATIC_URL}js/live.js")
        assert response.status_code == 200
        assert response.content == script
        page = client.get(reverse("games:lobby"))
        assert page.status_code == 302
        assert page.headers["location"].startswith(reverse("login"))


def test_a_members_move_is_answered_with_the_table_and_a_post_without_csrf_refused(
    server, alice, bob
):
    match = start_match("escoba", [alice, bob])
    state = engine_state(match)
    seat = match.engine.to_move(state)[0]
    mover = match.seats.get(index=seat).user
    code = match.engine.legal_moves(state, seat)[0].code
    move_url = reverse("games:move", args=[match.pk])
    with httpx.Client(base_url=server.url, cookies=session_cookie(mover), timeout=30) as client:
        assert client.get(match.get_absolute_url()).status_code == 200
        refused = client.post(move_url, data={"code": code, "v": str(match.version)})
        assert refused.status_code == 403
        for _ in range(3):  # more requests than one thread: the pool's threads are reused
            assert client.get(reverse("games:lobby")).status_code == 200
        answer = client.post(
            move_url,
            data={"code": code, "v": str(match.version)},
            headers={
                "X-CSRFToken": client.cookies["csrftoken"],
                "HX-Request": "true",
                "Referer": server.url + "/",
            },
        )
        assert answer.status_code == 200
        assert f'data-version="{match.version + 1}"' in answer.text
        assert {"private", "no-store"} <= set(answer.headers["cache-control"].split(", "))
