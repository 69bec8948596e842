"""A league week in Chromium with the real background processes (issue 21): two members say
they are ready for their fixture, play a correspondence match, then one of them lets the clock
run out with nobody watching. The scheduler and a real worker process end the match, the
ratings and the standings follow, and both members hear of it on the site (the bell) and by
e-mail (the worker's console mail backend)."""

from __future__ import annotations

import subprocess
import sys
import time
from datetime import date, timedelta
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from cardclub.leagues.models import Fixture, League, Season
from cardclub.notifications.models import Kind, Notification
from cardclub.ratings.models import Rating
from games.models import Clock, Match
from tests.servers import spawn
from tests.web.background.test_background import DATABASE, _worker_environment
from tests.web.table_helpers import variant

from .helpers import session_for
from .test_schotten_totten_browser import play_turn

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

MANAGE = Path(__file__).resolve().parents[2] / "manage.py"


def play_a_turn(page: Page, match: Match, seat: int) -> None:
    """The member's whole turn at a Schotten Totten table (a card, claims, the end of the
    turn), until the table waits on the other member."""
    for _ in range(6):
        if not match.seats.filter(index=seat, to_move=True).exists():
            return
        play_turn(page)
    raise AssertionError("the turn did not pass")


def wait_until(check, timeout: float = 30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError("the worker did not get there in time")


@pytest.fixture
def worker(settings, tmp_path):
    """``manage.py db_worker`` on the test database, its console mail captured in a file."""
    settings.TASKS = DATABASE
    out = (tmp_path / "worker.out").open("w+")
    process = spawn(
        [sys.executable, str(MANAGE), "db_worker", "--interval", "0.1", "--no-reload"]
        + ["--no-startup-delay", "--verbosity", "0"],
        env={**_worker_environment(), "EMAIL_HOST": ""},  # the console mail backend
        stdout=out,
        stderr=subprocess.STDOUT,
    )
    yield out
    process.terminate()
    process.wait(10)
    out.close()


def test_a_correspondence_fixture_lost_on_time_with_nobody_watching_is_ended_by_the_worker(
    live_server, browser: Browser, make_member, worker
):
    base = live_server.url
    rules = variant("schotten_totten")
    rules.clock, rules.clock_days = Clock.CORRESPONDENCE, 1
    rules.save()
    league = League.objects.create(name="Liga", game="schotten_totten", variant=rules)
    season = Season.objects.create(league=league, name="Invierno", starts_on=date.today())
    ana, ben = make_member("ana"), make_member("ben")
    for member in (ana, ben):
        season.add_player(member)
    season.generate_fixtures()
    fixture = Fixture.objects.get(round__season=season)

    # Both say they are ready on the season page: the second "ready" starts the match.
    pages = {}
    for member in (ana, ben):
        page = pages[member.username] = session_for(browser, base, member.username)
        page.goto(base + season.get_absolute_url())
        page.locator(f"form[action$='/fixture/{fixture.pk}/ready/'] button").click()
    fixture.refresh_from_db()
    match = fixture.match
    assert match is not None and match.clock == Clock.CORRESPONDENCE

    # A few moves each in the browser, then the member to move walks away.
    for _ in range(2):
        for _member in (ana, ben):
            mover = match.seats.get(to_move=True)
            page = pages[mover.user.username]
            page.goto(base + match.get_absolute_url())
            expect(page.locator("#seats .clock").first).to_be_visible()
            play_a_turn(page, match, mover.index)
    match.refresh_from_db()
    late = match.seats.get(to_move=True)
    loser, winner = late.user, (ben if late.user == ana else ana)
    for page in pages.values():
        page.goto(base + "/")  # nobody has the table open any more

    # A day and a minute go by.
    Match.objects.filter(pk=match.pk).update(
        clock_turn_started=match.clock_turn_started - timedelta(days=1, minutes=1),
        clock_deadline=match.clock_deadline - timedelta(days=1, minutes=1),
    )
    Notification.objects.all().delete()  # only what the time-out brings
    # The scheduler queues the periodic sweeps, as `make run` does; the worker runs them.
    subprocess.run(
        [sys.executable, str(MANAGE), "scheduler", "--once", "--verbosity", "0"],
        env=_worker_environment(),
        check=True,
        timeout=60,
    )
    wait_until(lambda: Match.objects.get(pk=match.pk).status == Match.Status.FINISHED)
    fixture.refresh_from_db()
    assert fixture.status == Fixture.Status.PLAYED
    assert Rating.objects.filter(game="schotten_totten", games=1).count() == 2
    wait_until(
        lambda: (
            {(n.user_id, n.kind) for n in Notification.objects.all()}
            >= {(loser.pk, Kind.FORFEIT), (loser.pk, Kind.RESULT), (winner.pk, Kind.RESULT)}
        )
    )

    # Both find it on the site: the bell, the list, the table and the standings.
    for member, points in ((winner, "3"), (loser, "0")):
        page = pages[member.username]
        page.goto(base + "/")
        expect(page.locator("#bell .bell-count")).not_to_have_text("0")
        page.locator("#bell").click()
        expect(page.locator("main")).to_contain_text("Invierno")
        page.goto(base + match.get_absolute_url())
        expect(page.locator("#table .result")).to_contain_text("por tiempo")
        page.goto(base + season.get_absolute_url())
        row = page.locator("#standings tbody tr", has=page.locator("th", has_text=member.username))
        expect(row.locator("strong")).to_have_text(points)

    # And by e-mail, sent by the worker (its console backend), with the unsubscribe header.
    def mailed():
        worker.flush()
        return Path(worker.name).read_text()

    text = wait_until(
        lambda: (
            (out := mailed()).count(f"To: {loser.email}") >= 2
            and f"To: {winner.email}" in out
            and out
        )
    )
    assert "List-Unsubscribe:" in text
    assert Notification.objects.filter(emailed_at__isnull=False).count() >= 3
