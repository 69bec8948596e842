"""The notifications bell in a real browser: a notification committed by another process (the
worker's sweeps, another app server) rings the bell of the member's open lobby without a reload."""

from __future__ import annotations

import time

import pytest
from django.db import transaction
from playwright.sync_api import expect

from cardclub.notifications import services
from cardclub.notifications.models import Kind
from tests.web.table_helpers import start_match

from .helpers import page_with_session

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_new_notification_rings_the_bell_of_an_open_page(browser, server, alice, bob):
    match = start_match("schotten_totten", [alice, bob])
    page = page_with_session(browser, server, alice)
    page.goto(server.url + "/play/")
    count = page.locator("#bell .bell-count")
    expect(count).to_have_text("0")
    expect(page.locator('[data-live="mine"][data-stream="open"]')).to_have_count(1, timeout=10000)
    with transaction.atomic():
        services.notify(alice, Kind.FORFEIT, match=match)
        services.notify(bob, Kind.FORFEIT, match=match)
    # The bell has no poll of its own (static/js/bell.js): only the push can ring it, so the
    # wait is for that event, with room for a loaded machine.
    expect(count).to_have_text("1", timeout=10000)
    page.locator("#bell").click()
    expect(page.locator(".notification-list li")).to_have_count(1)


def test_the_bell_rings_when_its_script_arrives_after_the_stream_opened(
    browser, server, alice, bob
):
    # A loaded server may answer bell.js after the page's stream has opened (the deferred
    # scripts run in order, but the stream's "open" comes whenever the network brings it): the
    # bell must still listen to that stream, not wait for word of one that opened before.
    match = start_match("schotten_totten", [alice, bob])
    page = page_with_session(browser, server, alice)
    held = []
    page.route("**/js/bell.js*", lambda route: held.append(route))
    page.goto(server.url + "/play/", wait_until="commit")
    expect(page.locator('[data-live="mine"][data-stream="open"]')).to_have_count(1, timeout=10000)
    assert len(held) == 1, "the page waits for bell.js"
    held[0].continue_()
    page.wait_for_load_state("load")
    count = page.locator("#bell .bell-count")
    expect(count).to_have_text("0")
    with transaction.atomic():
        services.notify(alice, Kind.FORFEIT, match=match)
    expect(count).to_have_text("1", timeout=10000)


# Counts the "bell" events the page's streams heard, in an attribute of the page's root (a
# listener added before bell.js's own, so by the time the count moves, bell.js has heard the
# event too). An attribute, not a predicate to evaluate: the page's CSP forbids eval.
COUNT_BELL_EVENTS = """
const OriginalEventSource = window.EventSource;
window.EventSource = function (url, options) {
  const source = new OriginalEventSource(url, options);
  source.addEventListener("bell", () => {
    const root = document.documentElement;
    root.dataset.bellEvents = String(Number(root.dataset.bellEvents || 0) + 1);
  });
  return source;
};
"""


def wait_for_bell_events(page, count: int) -> None:
    expect(page.locator(f'html[data-bell-events="{count}"]')).to_have_count(1, timeout=10000)


def test_news_that_comes_while_the_bell_is_being_fetched_is_fetched_after_it(
    browser, server, alice, bob
):
    match = start_match("schotten_totten", [alice, bob])
    page = page_with_session(browser, server, alice)
    page.add_init_script(script=COUNT_BELL_EVENTS)
    page.goto(server.url + "/play/")
    expect(page.locator('[data-live="mine"][data-stream="open"]')).to_have_count(1, timeout=10000)
    count = page.locator("#bell .bell-count")
    held = []

    def hold_the_first(route):
        if held:
            route.continue_()
        else:
            held.append(route)

    page.route("**/notifications/bell/*", hold_the_first)
    services.notify(alice, Kind.FORFEIT, match=match)
    wait_for_bell_events(page, 1)
    # The page's fetch reaches the route above as an event Playwright hands over only while
    # the test waits on the page: the page counted the news before that.
    deadline = time.monotonic() + 10  # a bound, not a measure
    while not held:
        assert time.monotonic() < deadline, "the first news had the bell fetched"
        page.wait_for_timeout(25)
    # The server answers the first fetch now (one unread); the page gets that answer only after
    # a second notification has rung while the fetch was still on its way.
    first_answer = held[0].fetch()
    services.notify(alice, Kind.FORFEIT, match=start_match("escoba", [alice, bob]))
    wait_for_bell_events(page, 2)
    held[0].fulfill(response=first_answer)
    expect(count).to_have_text("2", timeout=10000)
