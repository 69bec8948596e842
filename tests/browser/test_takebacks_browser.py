"""Takebacks in two browsers: Alice takes back her move by asking; Bob's open page shows the
question without a reload, he accepts, and Alice's page is her turn again with the move gone."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from games.models import MoveRecord
from tests.web.social.test_takebacks import allow, first_move
from tests.web.table_helpers import engine_state, start_match

from .helpers import session_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_takeback_asked_on_one_page_is_answered_on_the_other(
    live_server, browser: Browser, alice, bob
):
    allow()
    match = start_match("escoba", [alice, bob])
    mover, other = first_move(match, [alice, bob])
    url = live_server.url + match.get_absolute_url()
    mover_page = session_for(browser, live_server.url, mover.username)
    other_page = session_for(browser, live_server.url, other.username)
    other_page.set_viewport_size({"width": 390, "height": 800})
    other_page.goto(url)
    mover_page.goto(url)
    ask = mover_page.get_by_role("button", name="Deshacer mi última jugada")
    ask.focus()
    mover_page.keyboard.press("Enter")
    expect(mover_page.locator("#takeback")).to_contain_text("Esperando la respuesta")
    # The other page hears of it through its own updates.
    accept = other_page.locator("#takeback").get_by_role("button", name="Aceptar")
    expect(accept).to_be_visible(timeout=10000)
    assert other_page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    accept.click()
    expect(other_page.locator("#messages")).to_contain_text("Se deshizo la jugada")
    assert MoveRecord.objects.filter(match=match).count() == 0
    # The mover's page shows the table as it was before the move: their turn.
    expect(mover_page.locator("#takeback")).to_have_count(0, timeout=10000)
    seat = match.engine.to_move(engine_state(match))[0]
    assert [alice, bob][seat] == mover
