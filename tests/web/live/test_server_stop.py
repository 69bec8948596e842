"""A server told to stop (a deploy, a restart, Ctrl-C of ``make run``) ends its live pages'
streams at once, each with a last event telling the page to open another, rather than wait for
them until it is killed: a real uvicorn process, a real stream over HTTP, a real SIGTERM."""

from __future__ import annotations

import subprocess

import pytest
from django.urls import reverse

from tests.servers import session_cookie, start_app_server
from tests.web.live.test_push_outage import open_stream
from tests.web.table_helpers import start_match

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_server_told_to_stop_renews_its_open_streams_and_exits_without_waiting_for_them(
    alice, bob
):
    match = start_match("escoba", [alice, bob])
    server = start_app_server({"PUSH_BACKEND": "local", "PUSH_SOCKET_DIR": ""})
    try:
        stream = open_stream(
            server.url + reverse("games:live", args=[match.pk]), session_cookie(alice)
        )
        assert stream.wait_for_status(10) == 200
        assert stream.next(10) == match.version  # the stream is open and heard
        server.process.terminate()
        # uvicorn lets responses in flight finish: a stream never does, and held the stop
        # until a kill. Far less than that here, however loaded the machine.
        try:
            server.process.wait(timeout=8)
        except subprocess.TimeoutExpired:
            pytest.fail("the server waited for the open stream instead of ending it")
        assert stream.next(5) is None  # the page's stream ended
        # ... saying so: the page opens another and fetches nothing before (static/js/live.js)
        assert stream.renewed
        assert "Traceback" not in server.log.read_text()
    finally:
        server.stop()
