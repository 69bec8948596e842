"""A member plays a whole Schotten Totten match against the easy bot in Chromium, through the
real pages: picking a card then a stone, claiming stones one at a time, ending turns. The bot
moves after each of the member's moves commits, and its moves reach the page by the poll."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from games.models import Match

from .helpers import (
    is_my_turn,
    log_in,
    match_is_over,
    table_version,
    wait_for_my_turn,
    wait_for_new_version,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def click_and_wait(page: Page, locator) -> None:
    old = table_version(page)
    locator.click()
    wait_for_new_version(page, old)


def play_turn(page: Page) -> str:
    """One action of the member: claim, end the turn, pass, or pick a card and a stone."""
    table = page.locator("#table")
    claims = table.locator("button.st-claim")
    if claims.count():
        click_and_wait(page, claims.first)
        return "claim"
    for kind in ("st-end", "st-pass"):
        button = table.locator(f"button.{kind}")
        if button.count():
            click_and_wait(page, button)
            return kind
    # Pick the first card of the hand: only then do the stones' "play here" buttons show.
    table.locator(".st-hand label").first.click()
    here = table.locator(".st-board button[value^='p:']:visible")
    expect(here.first).to_be_visible()
    click_and_wait(page, here.first)
    return "play"


def test_a_member_plays_a_whole_match_against_the_easy_bot(live_server, page: Page, alice):
    log_in(page, live_server.url, alice.username)
    page.goto(live_server.url + "/play/new/schotten_totten/")
    # Schotten Totten is for two: the form starts with one more seat to fill.
    page.locator("#id_seat_1").select_option("easy")
    page.locator("#table-form button[type=submit]").last.click()
    expect(page.locator("#table .st-board")).to_be_visible()
    match = Match.objects.get()
    assert match.status == Match.Status.PLAYING

    done = []
    for _ in range(200):
        wait_for_my_turn(page)
        if match_is_over(page):
            break
        assert is_my_turn(page)
        done.append(play_turn(page))
    else:
        raise AssertionError("the match did not end")

    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    # Claims are clicked whenever offered; whether the member wins one depends on the deal.
    assert "play" in done
    expect(page.locator("#table .st-win")).to_be_visible()
    # The winning stones are marked on the board.
    assert page.locator("#table .st-board > li.winning").count() >= 3


def test_a_refused_move_is_swapped_in_with_its_message_and_no_csp_violation(
    live_server, browser, alice, bob
):
    """A page that fell behind (here: its version set back, as a page opened before the other
    member's move would be) posts a move: the table comes back through htmx, the message in
    the page's message area.
    The console watch of every browser test fails it on any CSP violation of that swap."""
    from tests.web.table_helpers import start_match

    match = start_match("schotten_totten", [alice, bob])
    mover = alice if match.seats.get(index=0).to_move else bob
    page = browser.new_context(locale="es-ES").new_page()
    log_in(page, live_server.url, mover.username)
    page.goto(live_server.url + match.get_absolute_url())
    table = page.locator("#table")
    page.evaluate("document.querySelector('#table input[name=v]').value = '0'")
    table.locator(".st-hand label").first.click()
    table.locator(".st-board button[value^='p:']:visible").first.click()
    expect(page.locator("#messages .message.error[role=alert]")).to_be_visible()
    assert Match.objects.get(pk=match.pk).version == match.version
