"""Challenges in two browsers: Alice challenges Bob from his profile; Bob's open lobby shows the
challenge through its stream, he accepts it there and sits at the new table; Alice's lobby lists
the match."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from cardclub.social import challenges
from games.models import Match, RuleVariant

from .helpers import page_with_session

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_challenge_reaches_the_open_lobby_and_its_acceptance_seats_both(
    server, browser: Browser, alice, bob
):
    alice_page, bob_page = (page_with_session(browser, server, u) for u in (alice, bob))
    bob_page.set_viewport_size({"width": 390, "height": 800})
    bob_page.goto(server.url + "/play/")
    expect(bob_page.locator('[data-live="mine"][data-stream="open"]')).to_have_count(
        1, timeout=10000
    )
    alice_page.goto(server.url + "/members/bob/")
    alice_page.get_by_role("link", name="Retar a bob").click()
    alice_page.get_by_role("link", name="Schotten Totten").click()
    # By keyboard: the submit button takes the focus and Enter sends the form.
    alice_page.get_by_role("button", name="Enviar el reto").focus()
    alice_page.keyboard.press("Enter")
    expect(alice_page.locator("main")).to_contain_text("alice reta a bob")
    # Bob did nothing: the challenge arrives in his lobby by its stream.
    row = bob_page.locator("#challenges .challenge-row")
    expect(row).to_contain_text("alice te reta a Schotten Totten", timeout=5000)
    assert bob_page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    row.get_by_role("button", name="Aceptar").click()
    match = Match.objects.get()
    bob_page.wait_for_url(server.url + match.get_absolute_url())
    expect(bob_page.locator("form.resign-form button")).to_be_visible()
    alice_page.goto(server.url + "/play/")
    expect(alice_page.locator("#mine")).to_contain_text("bob")


def test_a_challenge_naming_a_third_member_starts_when_both_have_said_yes(
    server, browser: Browser, alice, bob, charlie
):
    """Three members, three contexts: Alice names Charlie for seat 3 with the form alone (no
    script needed to send it); Bob's yes waits for Charlie's, shown live in Charlie's lobby;
    Charlie's yes seats all three, and Bob's open lobby lists the match without a reload."""
    alice_page, bob_page, charlie_page = (
        page_with_session(browser, server, u) for u in (alice, bob, charlie)
    )
    charlie_page.set_viewport_size({"width": 390, "height": 800})
    for page in (bob_page, charlie_page):
        page.goto(server.url + "/play/")
        expect(page.locator('[data-live="mine"][data-stream="open"]')).to_have_count(
            1, timeout=10000
        )
    alice_page.set_viewport_size({"width": 390, "height": 800})
    alice_page.goto(server.url + "/social/challenge/bob/?game=scout&players=3")
    assert alice_page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    alice_page.get_by_label("Asiento 3:", exact=True).select_option("member")
    alice_page.get_by_label("Miembro en el asiento 3").fill("charlie")
    alice_page.get_by_role("button", name="Enviar el reto").click()
    expect(alice_page.locator("main")).to_contain_text("Asiento 3: charlie")
    # Both lobbies hear of it by their stream; Bob says yes first.
    bob_row = bob_page.locator("#challenges .challenge-row")
    expect(bob_row).to_contain_text("alice te reta", timeout=5000)
    expect(bob_row).to_contain_text("charlie aún tiene que responder")
    bob_row.get_by_role("button", name="Aceptar").click()
    expect(bob_page.locator("#challenges")).to_contain_text("Has dicho que sí")
    assert not Match.objects.exists()
    charlie_row = charlie_page.locator("#challenges .challenge-row")
    expect(charlie_row).to_contain_text("bob ha dicho que sí", timeout=5000)
    assert charlie_page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    charlie_row.get_by_role("button", name="Aceptar").click()
    match = Match.objects.get()
    charlie_page.wait_for_url(server.url + match.get_absolute_url())
    expect(charlie_page.locator("form.resign-form button")).to_be_visible()
    expect(bob_page.locator("#mine")).to_contain_text("charlie", timeout=5000)
    alice_page.goto(server.url + "/play/")
    expect(alice_page.locator("#mine")).to_contain_text("charlie")


def test_a_no_from_the_notification_calls_off_the_party_for_everyone(
    server, browser: Browser, alice, bob, charlie
):
    """Bob declines from his notification; Alice's bell rings with his answer and Charlie's
    open lobby drops the challenge, both without a reload."""
    scout = RuleVariant.objects.get(game="scout", slug="standard")
    challenges.make(alice, bob, scout, 3, ["member"], [charlie])
    alice_page, bob_page, charlie_page = (
        page_with_session(browser, server, u) for u in (alice, bob, charlie)
    )
    for page in (alice_page, charlie_page):
        page.goto(server.url + "/play/")
        expect(page.locator('[data-live="mine"][data-stream="open"]')).to_have_count(
            1, timeout=10000
        )
    expect(charlie_page.locator("#challenges .challenge-row")).to_contain_text("alice te reta")
    expect(alice_page.locator("#bell .bell-count")).to_have_text("0")
    bob_page.goto(server.url + "/play/")
    bob_page.locator("#bell").click()
    bob_page.locator(".notification-list li a").first.click()
    expect(bob_page.locator("main")).to_contain_text("Asiento 3: charlie")
    bob_page.get_by_role("button", name="Rechazar").click()
    expect(bob_page.locator("main")).to_contain_text("bob rechazó: el reto queda anulado.")
    expect(charlie_page.locator("#challenges")).to_have_count(0, timeout=10000)
    expect(alice_page.locator("#bell .bell-count")).to_have_text("1", timeout=10000)
    alice_page.locator("#bell").click()
    expect(alice_page.locator(".notification-list")).to_contain_text("bob rechazó tu reto a Scout")
    assert not Match.objects.exists()
