"""The visible clock: a clocked match's table shows every seat's time large by the board, the
member's own marked, with the moment it turns to the warning colour (the last fifth of its time,
or 30 seconds) for static/js/clock.js."""

from __future__ import annotations

import re

import pytest
from django.utils import timezone

from games.models import Match
from tests.web.table_helpers import start_match
from tests.web.tables.test_clocks import correspondence, live

pytestmark = pytest.mark.django_db


def _bar(html: str) -> str:
    found = re.search(r'<ul class="clock-bar".*?</ul>', html, re.S)
    return found.group(0) if found else ""


def test_a_live_clock_shows_both_times_large_and_warns_in_the_last_fifth(alice, bob, client_for):
    live(minutes=10, increment=0)
    match = start_match("escoba", [alice, bob])
    bar = _bar(client_for(alice).get(match.get_absolute_url()).content.decode())
    assert bar.count('class="clock big-clock') == 2
    assert bar.count('data-clock-warn-ms="120000"') == 2  # a fifth of 10 minutes
    assert bar.count("data-clock-mine") == 1 and "data-clock-running" in bar
    assert "alice" in bar and "bob" in bar and "10:00" in bar
    assert " warn" not in bar
    # Down to 90 seconds: the running clock is drawn in the warning colour already.
    mover = match.engine.to_move(match.engine.load(match.state))[0]
    left = [600_000, 600_000]
    left[mover] = 90_000
    # As every write a page shows does, the clock's moves updated_at (games/versions.py keeps
    # a version drawn under it).
    Match.objects.filter(pk=match.pk).update(clock_left=left, updated_at=timezone.now())
    bar = _bar(client_for(bob).get(match.get_absolute_url()).content.decode())
    assert re.search(r'class="clock big-clock running warn', bar)


def test_a_short_clock_warns_at_thirty_seconds_and_a_spectator_has_no_clock_of_their_own(
    alice, bob, charlie, client_for
):
    live(game="schotten_totten", minutes=1, increment=0)
    match = start_match("schotten_totten", [alice, bob])
    bar = _bar(client_for(charlie).get(match.get_absolute_url()).content.decode())
    assert 'data-clock-warn-ms="30000"' in bar and "data-clock-mine" not in bar


def test_no_clock_no_bar_and_a_correspondence_clock_counts_days(alice, bob, client_for):
    match = start_match("escoba", [alice, bob])
    assert (
        'class="clock-bar"' not in client_for(alice).get(match.get_absolute_url()).content.decode()
    )
    correspondence(game="scout", days=2)
    match = start_match("scout", [alice, bob])
    bar = _bar(client_for(alice).get(match.get_absolute_url()).content.decode())
    assert 'data-clock-kind="correspondence"' in bar
