"""A cup's bracket is live through the push streams (cardclub/leagues/live.py): the season
page's stream starts with the stamp its bracket shows, a decided game reaches the open stream
once it commits, and the page polls only where no stream can be held."""

from __future__ import annotations

import asyncio

import pytest
from django.db import transaction
from django.urls import reverse

from cardclub.leagues import live
from games import push
from games.streams import LiveStreams
from tests.web.leagues.test_leagues_cups import cup, open_games, play
from tests.web.leagues.test_leagues_cups import six as six  # noqa: F401  (the fixture, under its own name)
from tests.web.live.test_live import run_async
from tests.web.live.test_streams import Stream, _cookie

pytestmark = pytest.mark.django_db(transaction=True)


class Loopback:
    """A push backend that hands what this process publishes to this process's listener, as
    the local sockets do between processes."""

    def __init__(self):
        self.deliver = self.loop = None

    def publish(self, data):
        if self.deliver is not None:
            self.loop.call_soon_threadsafe(self.deliver, data)

    async def listen(self, deliver, ready):
        self.deliver, self.loop = deliver, asyncio.get_running_loop()
        ready()
        await asyncio.Event().wait()


@pytest.fixture
def loopback(monkeypatch):
    backend = Loopback()
    monkeypatch.setattr(push, "backend", lambda: backend)
    return backend


def shown_stamp(client, season) -> str:
    html = client.get(reverse("leagues:season", args=[season.pk])).content.decode()
    return html.split('id="bracket" data-version="', 1)[1].split('"', 1)[0]


def test_a_decided_game_reaches_the_open_bracket_stream_with_the_stamp_the_page_then_shows(
    league, six, client_for, loopback
):
    season = cup(league, six)
    season.generate_fixtures()
    client = client_for(six[0])
    before = shown_stamp(client, season)
    url = reverse("leagues:season_live", args=[season.pk])
    game = open_games(season).get(seats__user=six[3])

    async def scenario():
        stream = Stream(LiveStreams(None), url, _cookie(client))
        task = asyncio.ensure_future(stream.run())
        await stream.until(f"event: bracket\ndata: {before}\n\n")
        # Another process's commit, as far as this stream knows: c5 beats c4.
        await asyncio.to_thread(play, game, six[4])
        after = await asyncio.to_thread(live.stamp_now, season.pk)
        await stream.until(f"event: bracket\ndata: {after}\n\n")
        stream.leave()
        await task
        return stream, after

    stream, after = run_async(scenario())
    assert stream.status == 200
    assert str(after) != before and str(after) == shown_stamp(client, season)
    fragment = client.get(
        reverse("leagues:season", args=[season.pk]), {"part": "bracket"}, HTTP_HX_REQUEST="true"
    ).content.decode()
    assert fragment.count("c5") == 2  # the quarter-final won, and the semi-final it leads to


def test_the_push_goes_after_the_commit_and_names_only_the_season_and_a_number(
    league, six, monkeypatch
):
    season = cup(league, six)
    season.generate_fixtures()
    sent = []
    monkeypatch.setattr(
        push, "publish_event", lambda keys, event, value: sent.append((tuple(keys), event, value))
    )
    with transaction.atomic():
        play(open_games(season).get(seats__user=six[3]), six[3])
        assert sent == []  # nothing before the commit
    stamp = live.stamp_now(season.pk)
    bracket = {item for item in sent if item[1] == "bracket"}
    assert bracket == {((live.season_key(season.pk),), "bracket", stamp)}


def test_only_a_cups_season_has_a_bracket_stream(league, make_member, client_for, loopback):
    from cardclub.leagues.models import Season

    members = [make_member(f"r{n}") for n in range(4)]
    season = cup(league, members)
    season.format = Season.Format.SINGLE
    season.save(update_fields=["format"])
    client = client_for(members[0])
    url = reverse("leagues:season_live", args=[season.pk])

    async def scenario():
        stream = Stream(LiveStreams(None), url, _cookie(client))
        await stream.run()
        return stream

    assert run_async(scenario()).status == 404
    # Under WSGI (the test client) Django answers the stream's address with 204: no stream,
    # and the page polls.
    assert client.get(url).status_code == 204
