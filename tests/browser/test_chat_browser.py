"""The table chat in a real browser, against a real ASGI server (uvicorn in its own process):
a message sent from one member's page reaches the other member's open page by push, and one
committed by another process reaches the first; the htmx form clears itself and keeps the
focus; nothing breaks the Content-Security-Policy (the conftest fails a test on a violation)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from cardclub.chat import actions as chat_actions
from tests.web.table_helpers import start_match

from .helpers import page_with_session

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# A generous wait, for a busy machine. What arrives came by push, not by the chat's 10 s slow
# poll: the chat does not poll while the table's stream is open (static/js/chat.js), and each
# page records whether its stream ever left "open" meanwhile (a stream opened again fetches
# what it missed), which the test asserts it did not.
PUSHED_MS = 15000

WATCH_STREAM = """() => {
  const wrap = document.querySelector('[data-live="table"]');
  window.streamLeftOpen = false;
  new MutationObserver(() => {
    if (wrap.dataset.stream !== "open") window.streamLeftOpen = true;
  }).observe(wrap, {attributes: true, attributeFilter: ["data-stream"]});
}"""


def test_a_message_reaches_the_other_members_open_page_by_push(
    browser, server, alice, bob, charlie
):
    match = start_match("schotten_totten", [alice, bob])
    pages = {}
    for user in (alice, bob, charlie):
        page = page_with_session(browser, server, user)
        page.goto(server.url + match.get_absolute_url())
        expect(page.locator('[data-live="table"][data-stream="open"]')).to_have_count(
            1, timeout=10000
        )
        page.evaluate(WATCH_STREAM)
        pages[user.username] = page
    assert pages["charlie"].locator("#chat-text").count() == 0  # a spectator reads only

    alice_page = pages["alice"]
    box = alice_page.locator("#chat-text")
    box.fill("¡Suerte, <bob>!")
    box.press("Enter")
    # Refused (markup): the message says so, the text stays to be fixed, nothing was sent.
    expect(alice_page.locator(".chat-errors")).to_contain_text("HTML")
    expect(alice_page.locator("#chat-text")).to_have_value("¡Suerte, <bob>!")
    alice_page.locator("#chat-text").fill("¡Suerte, bob! 3 < 5")
    alice_page.locator("#chat-text").press("Enter")
    expect(alice_page.locator("#chat-messages")).to_contain_text("alice: ¡Suerte, bob! 3 < 5")
    expect(alice_page.locator("#chat-text")).to_have_value("")
    expect(alice_page.locator("#chat-text")).to_be_focused()
    for name in ("bob", "charlie"):
        expect(pages[name].locator("#chat-messages")).to_contain_text(
            "alice: ¡Suerte, bob! 3 < 5", timeout=PUSHED_MS
        )

    # A message committed by another process (here, the test's) reaches the open pages too.
    chat_actions.post_message(match.pk, bob, "Gracias, igualmente")
    expect(alice_page.locator("#chat-messages")).to_contain_text(
        "bob: Gracias, igualmente", timeout=PUSHED_MS
    )
    for page in pages.values():
        assert page.evaluate("window.streamLeftOpen") is False
    # The table itself did not change: a chat message is not a move.
    assert alice_page.locator("#table").get_attribute("data-version") == str(match.version)
