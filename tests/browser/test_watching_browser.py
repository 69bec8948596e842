"""Watching in separate browsers: Bob finds Alice's match on the "being played" page and
watches it; Alice's table names him. Alice opens a private table with the new-table form:
Carmen cannot open it, Bob opens it with the invitation link and sits down."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from games.models import Match
from tests.web.table_helpers import start_match

from .helpers import session_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_spectator_finds_a_match_and_a_private_table_opens_only_by_invitation(
    live_server, browser: Browser, alice, bob, make_member, console_problems
):
    make_member("carmen")
    match = start_match("schotten_totten", [alice], fillers=["easy"])
    alice_page, bob_page, carmen_page = (
        session_for(browser, live_server.url, u) for u in ("alice", "bob", "carmen")
    )
    bob_page.set_viewport_size({"width": 390, "height": 800})
    bob_page.goto(live_server.url + "/social/watching/")
    row = bob_page.locator(".watching-list li", has_text=f"#{match.pk}")
    expect(row).to_contain_text("alice")
    assert bob_page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    row.get_by_role("link", name="Mirar").click()
    bob_page.wait_for_url(live_server.url + match.get_absolute_url())
    alice_page.goto(live_server.url + match.get_absolute_url())
    expect(alice_page.locator(".watchers")).to_contain_text("bob")

    # A private table, opened with the form by keyboard.
    alice_page.goto(live_server.url + "/play/new/escoba/")
    alice_page.locator("#id_private").focus()
    alice_page.keyboard.press("Space")
    alice_page.get_by_role("button", name="Abrir la mesa").click()
    private = Match.objects.get(private=True)
    alice_page.wait_for_url(live_server.url + private.get_absolute_url())
    invite = alice_page.locator("#invite-link").input_value()
    carmen_page.goto(live_server.url + private.get_absolute_url())
    expect(carmen_page.locator("main")).to_contain_text("No hay ninguna partida con ese número")
    console_problems.clear()  # the browser logs the 404 it was meant to get
    bob_page.goto(invite)
    bob_page.get_by_role("button", name="Sentarme").click()
    expect(bob_page.locator("form.resign-form button")).to_be_visible()
