"""The notifications bell in a real browser: a notification committed by another process (the
worker's sweeps, another app server) rings the bell of the member's open lobby without a reload."""

from __future__ import annotations

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
