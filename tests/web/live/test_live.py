"""The live table: announcements after commits, the per-process hub, the streams, the steps,
the last-move strip, the lobby's live list and the turn-sound preference."""

from __future__ import annotations

import asyncio
import re
import threading

import pytest
from asgiref.sync import sync_to_async
from django.db import connections, transaction
from django.test import AsyncClient
from django.urls import reverse

from cardclub.accounts.models import Preferences
from games import push, writes
from games.streams import LiveStreams
from tests.servers import run_in_new_loop
from tests.web.table_helpers import engine_state, post_move, run_bots, start_match, variant

pytestmark = pytest.mark.django_db


class Recorder:
    """A push backend that keeps what was published (by the publisher's thread)."""

    def __init__(self):
        self._sent = []

    def publish(self, data):
        self._sent.append(push.json.loads(data))

    @property
    def sent(self):
        assert push.drain(), "the publisher's thread did not send everything in time"
        return self._sent


@pytest.fixture
def recorder(monkeypatch):
    recorder = Recorder()
    monkeypatch.setattr(push, "backend", lambda: recorder)
    return recorder


def run_async(coroutine):
    """``asyncio.run``, then close the database connections the async ORM opened in asgiref's
    worker thread (a connection left open there keeps PostgreSQL from dropping the test
    database)."""

    async def run():
        try:
            return await coroutine
        finally:
            await sync_to_async(connections.close_all)()

    return run_in_new_loop(run())


def _mover(match):
    state = engine_state(match)
    seat = match.engine.to_move(state)[0]
    return match.seats.get(index=seat).user, match.engine.legal_moves(state, seat)[0].code


def test_a_move_is_announced_once_it_commits_with_the_new_version_and_the_members(
    alice, bob, client_for, recorder, django_capture_on_commit_callbacks
):
    match = start_match("schotten_totten", [alice, bob])
    user, code = _mover(match)
    with django_capture_on_commit_callbacks(execute=True):
        post_move(client_for(user), match, code)
    assert recorder.sent == [
        {"m": match.pk, "v": match.version + 1, "u": sorted([alice.pk, bob.pk])}
    ]


def test_a_refused_move_announces_nothing(
    alice, bob, client_for, recorder, django_capture_on_commit_callbacks
):
    match = start_match("schotten_totten", [alice, bob])
    user, code = _mover(match)
    with django_capture_on_commit_callbacks(execute=True):
        post_move(client_for(user), match, code, version=match.version - 1)
    assert recorder.sent == []


def test_a_rolled_back_save_is_never_announced(
    alice, bob, recorder, django_capture_on_commit_callbacks
):
    match = start_match("schotten_totten", [alice, bob])
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        with pytest.raises(RuntimeError), transaction.atomic():
            match.version += 1
            match.save()
            raise RuntimeError("rolled back")
        match.refresh_from_db()
        match.save()  # a save that does commit, for contrast
    assert len(callbacks) == 1
    assert recorder.sent == [{"m": match.pk, "v": match.version, "u": sorted([alice.pk, bob.pk])}]


@pytest.mark.parametrize("action", ["join", "leave", "resign"])
def test_joining_leaving_and_resigning_are_announced(
    action, alice, bob, charlie, recorder, django_capture_on_commit_callbacks
):
    if action == "resign":
        match = start_match("schotten_totten", [alice, bob])
        run = lambda: writes.resign(match.pk, alice)  # noqa: E731
    else:
        match = writes.create_match(alice, variant("scout", "standard"), 3, ["open", "open"])
        if action == "leave":
            writes.join_match(match.pk, bob)
        run = (
            (lambda: writes.join_match(match.pk, charlie))
            if action == "join"
            else (lambda: writes.leave_match(match.pk, bob))
        )
    with django_capture_on_commit_callbacks(execute=True):
        run()
    assert [item["m"] for item in recorder.sent] == [match.pk]


def test_the_hub_wakes_the_streams_of_the_match_and_of_its_members_only():
    async def scenario():
        hub = push.Hub(asyncio.get_running_loop())
        table = hub.subscribe("m:7")
        lobby = hub.subscribe("u:3")
        other = hub.subscribe("m:8")
        hub.deliver(push.message(7, 4, [3, 5]))
        hub.deliver(push.message(7, 5, [3, 5]))  # two in a row: the stream hears the newest
        hub.deliver(b"not json")
        assert await table.wait(0.1) == {"version": 5}
        assert await lobby.wait(0.1) == {"mine": 5}
        assert await other.wait(0.05) is None
        table.close()
        assert "m:7" not in hub.streams

    run_in_new_loop(scenario())


def test_other_news_wakes_only_the_streams_of_its_keys_with_its_own_event():
    async def scenario():
        hub = push.Hub(asyncio.get_running_loop())
        table = hub.subscribe("m:7", push.table_key(7), push.member_key(3))
        lobby = hub.subscribe("u:3", push.member_key(3))
        stranger = hub.subscribe("m:8", push.table_key(8), push.member_key(4))
        hub.deliver(push.event_message([push.table_key(7)], "chat", 2))
        hub.deliver(push.message(7, 9, [3]))
        hub.deliver(push.event_message([push.member_key(3)], "bell", 1))
        hub.deliver(push.event_message([push.member_key(3)], "bell", 4))
        hub.deliver(b'{"k": 5, "e": "bell", "v": 1}')  # keys that are no list: ignored
        assert await table.wait(0.1) == {"chat": 2, "version": 9, "bell": 4}
        assert await lobby.wait(0.1) == {"mine": 9, "bell": 4}
        assert await stranger.wait(0.05) is None

    run_in_new_loop(scenario())


def test_a_stream_writes_every_event_it_heard_or_a_keepalive():
    assert push.sse_events(None) == "event: keepalive\ndata: 0\n\n"
    assert push.sse_events({"version": 3, "chat": 1}) == (
        "id: 3\nevent: version\ndata: 3\n\nevent: chat\ndata: 1\n\n"
    )


def test_the_local_backend_carries_a_message_from_another_thread_to_the_listener(tmp_path):
    backend = push.LocalBackend(tmp_path)

    async def scenario():
        got = asyncio.Event()
        heard = []

        def deliver(data):
            heard.append(data)
            got.set()

        ready = asyncio.Event()
        task = asyncio.ensure_future(backend.listen(deliver, ready.set))
        await asyncio.wait_for(ready.wait(), 2)
        thread = threading.Thread(target=backend.publish, args=(push.message(1, 2),))
        thread.start()
        await asyncio.wait_for(got.wait(), 2)
        thread.join()
        task.cancel()
        return heard

    assert run_in_new_loop(scenario()) == [push.message(1, 2)]


def test_a_socket_left_by_a_dead_process_is_removed_by_the_next_publisher(tmp_path):
    import socket

    path = tmp_path / "999-dead.sock"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    sock.close()  # the file stays, nobody reads it
    push.LocalBackend(tmp_path).publish(push.message(1, 2))
    assert not path.exists()


def test_under_wsgi_the_stream_answers_204_so_the_page_polls(alice, bob, client_for):
    match = start_match("schotten_totten", [alice, bob])
    response = client_for(alice).get(reverse("games:live", args=[match.pk]))
    assert response.status_code == 204


async def _call(app, path, cookie=""):
    """Run the ASGI app for one GET and return (status, first body chunk)."""
    sent = []
    disconnect = asyncio.Event()

    async def receive():
        await disconnect.wait()
        return {"type": "http.disconnect"}

    async def send(message):
        sent.append(message)
        if message["type"] == "http.response.body":
            disconnect.set()

    headers = [(b"host", b"127.0.0.1")]
    if cookie:
        headers.append((b"cookie", cookie.encode()))
    scope = {"type": "http", "method": "GET", "path": path, "headers": headers, "root_path": ""}
    await asyncio.wait_for(app(scope, receive, send), 5)
    return sent[0]["status"], sent[1].get("body", b"").decode()


@pytest.mark.django_db(transaction=True)
def test_the_lean_stream_needs_a_member_an_allowed_host_and_a_match(alice, bob, client_for):
    match = start_match("schotten_totten", [alice, bob])
    client = client_for(alice)
    cookie = f"sessionid={client.cookies['sessionid'].value}"
    app = LiveStreams(None)
    url = reverse("games:live", args=[match.pk])
    assert run_async(_call(app, url))[0] == 403
    assert run_async(_call(app, reverse("games:live", args=[match.pk + 99]), cookie))[0] == 404
    status, body = run_async(_call(app, url, cookie))
    assert status == 200 and f"data: {match.version}\n" in body


def test_the_lean_stream_app_hands_every_other_request_to_django():
    seen = []

    async def django_app(scope, receive, send):
        seen.append(scope["path"])

    app = LiveStreams(django_app)
    for path in ("/play/", "/play/m/1/poll/", "/static/x/live/"):
        run_in_new_loop(app({"type": "http", "method": "GET", "path": path}, None, None))
    assert seen == ["/play/", "/play/m/1/poll/", "/static/x/live/"]


def test_the_table_names_the_last_move_and_marks_its_cards(alice, bob, client_for):
    match = start_match("schotten_totten", [alice, bob])
    user, code = _mover(match)
    post_move(client_for(user), match, code)
    html = client_for(alice).get(match.get_absolute_url()).content.decode()
    card = code.split(":")[1]
    assert f'data-just="{card}"' in html
    strip = re.search(
        r'class="just-happened panel">.*?<span class="just-sentence">([^<]+)<', html, re.S
    )
    assert strip and user.username in strip.group(1)
    assert 'aria-live="polite"' in html and 'id="announce"' in html


def test_a_poll_several_moves_behind_gets_the_table_as_it_is_now(alice, charlie, client_for):
    # Moves in a row are paced by the worker alone (each its own version, BOT_MOVE_PAUSE
    # apart, pushed one by one); a page that missed some jumps to the current table.
    match = start_match("schotten_totten", [alice], fillers=["easy"])
    old_version = match.version
    user, code = _mover(match)
    post_move(client_for(alice), match, code)
    run_bots(match)
    match.refresh_from_db()
    poll = reverse("games:poll", args=[match.pk])
    html = client_for(charlie).get(poll, {"v": old_version}, HTTP_HX_REQUEST="true")
    html = html.content.decode()
    assert f'data-version="{match.version}" data-moves="{match.moves_played}"' in html
    assert "data-step" not in html


async def _asgi_get(user, url):
    client = AsyncClient()
    await client.aforce_login(user, backend="django.contrib.auth.backends.ModelBackend")
    return (await client.get(url)).content.decode()


@pytest.mark.django_db(transaction=True)
def test_under_asgi_a_live_match_opens_a_stream_and_a_finished_one_does_not(alice, bob, settings):
    match = start_match("schotten_totten", [alice, bob])
    live = reverse("games:live", args=[match.pk])
    assert f'data-stream-url="{live}"' in run_async(_asgi_get(bob, match.get_absolute_url()))
    writes.resign(match.pk, alice)
    # While it offers "Play again" the finished match hears the answers; after that, nothing.
    assert f'data-stream-url="{live}"' in run_async(_asgi_get(bob, match.get_absolute_url()))
    settings.REMATCH_WITHIN = 0
    html = run_async(_asgi_get(bob, match.get_absolute_url()))
    assert "data-stream-url" not in html and "hx-trigger" not in html


def test_under_wsgi_no_page_opens_a_stream_it_could_not_hold(alice, bob, client_for):
    match = start_match("schotten_totten", [alice, bob])
    client = client_for(alice)
    for url in (match.get_absolute_url(), reverse("games:lobby")):
        html = client.get(url).content.decode()
        # The page polls instead (static/js/live.js), from the same table and list.
        assert "data-stream-url" not in html and 'data-live="' in html


@pytest.mark.django_db(transaction=True)
def test_under_asgi_the_lobby_list_follows_the_members_stream(alice, bob):
    start_match("schotten_totten", [alice, bob])
    html = run_async(_asgi_get(alice, reverse("games:lobby")))
    assert f'data-stream-url="{reverse("games:my_matches_live")}"' in html


def test_the_lobby_list_is_a_fragment_for_htmx_and_the_lobby_otherwise(alice, bob, client_for):
    start_match("schotten_totten", [alice, bob])
    client = client_for(alice)
    url = reverse("games:my_matches")
    fragment = client.get(url, HTTP_HX_REQUEST="true").content.decode()
    assert fragment.lstrip().startswith('<div id="mine"') and "data-my-turns=" in fragment
    assert client.get(url)["Location"] == reverse("games:lobby")


def test_the_turn_sound_is_off_until_the_member_turns_it_on(alice, bob, client_for):
    match = start_match("schotten_totten", [alice, bob])
    client = client_for(alice)
    assert "data-turn-sound" not in client.get(match.get_absolute_url()).content.decode()
    response = client.post(
        reverse("profile_edit"),
        {"first_name": "", "last_name": "", "email": "alice@example.com", "turn_sound": "on"},
    )
    assert response.status_code == 302
    assert Preferences.objects.get(user=alice).turn_sound
    assert "data-turn-sound" in client.get(match.get_absolute_url()).content.decode()
