"""A member and two easy bots play a whole 3-player Scout match in Chromium, through the real
pages: the hand decision, shows picked by first and last card, scouts into a gap, and a scout &
show in its two steps whenever one is the only way to show."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from games.models import Match

from .helpers import log_in, table_version, wait_for_my_turn, wait_for_new_version

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# The longest show offered: its first card's index and its code "s:<first>:<length>" (every
# set's button is in the page, only the picked first card's are visible).
LONGEST_SHOW = """() => {
  let best = null;
  for (const b of document.querySelectorAll('#table .sc-windows.p-show button')) {
    const [, start, n] = b.value.split(':').map(Number);
    if (!best || n > best.n) best = {n, start, code: b.value};
  }
  return best;
}"""


def click_and_wait(page: Page, locator) -> None:
    old = table_version(page)
    locator.click()
    wait_for_new_version(page, old)


def play_scout_turn(page: Page, used: dict) -> None:
    table = page.locator("#table")
    if table.locator(".sc-keep").count():
        keep = table.locator(".sc-keep")
        try:
            keep.click(timeout=8000)
        except PlaywrightTimeoutError:
            # Seen twice in CI: the bots' decisions at a round's start replaced the table and
            # the page then showed no decision for a long while. Reload, as a member would,
            # and decide on the table as it is (the note of 2026-12-01 names this).
            page.reload()
            wait_for_my_turn(page)
            old = table_version(page)
            table.locator(".sc-keep").click()
            wait_for_new_version(page, old)
            return
        expect(table.locator(".sc-keep")).to_have_count(0)
        return
    show = page.evaluate(LONGEST_SHOW)
    if show:
        table.locator(f"label[for=sf{show['start']}]").click()
        click_and_wait(page, table.locator(f".p-show button[value='{show['code']}']"))
        used["show"] += 1
        return
    if table.locator("a.t-ss").count():
        table.locator("a.t-ss").click()
        table.locator(".p-ss a.end-label").first.click()
        table.locator(".sc-hand-row a:visible").first.click()
        expect(table.locator(".p-ss .sc-windows")).to_be_visible()
        click_and_wait(page, table.locator(".p-ss .sc-windows button:visible").first)
        used["scout_show"] += 1
        return
    table.locator("label[for=sc-mode-scout]").click()
    click_and_wait(page, table.locator(".sc-hand-row button:visible").first)
    used["scout"] += 1


def test_a_member_plays_a_whole_three_player_match_against_two_easy_bots(
    live_server, page: Page, alice
):
    log_in(page, live_server.url, "alice")
    page.goto(live_server.url + "/play/new/scout/?players=3")
    page.locator("#id_seat_1").select_option("easy")
    page.locator("#id_seat_2").select_option("easy")
    page.locator("#table-form button[type=submit]").last.click()
    expect(page.locator("#table .scout")).to_be_visible()
    match = Match.objects.get()
    assert match.players == 3 and match.status == Match.Status.PLAYING

    used = {"show": 0, "scout": 0, "scout_show": 0}
    rounds_seen = set()
    for _ in range(150):
        match.refresh_from_db()
        if match.status != Match.Status.PLAYING:
            break
        wait_for_my_turn(page)
        rounds_seen.add(page.locator("#table .scout").get_attribute("data-round"))
        play_scout_turn(page, used)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert rounds_seen == {"1", "2", "3"}
    assert used["show"] > 0
    page.reload()
    expect(page.locator("#table .sc-over")).to_be_visible()
    expect(page.locator("#table .sc-winner").first).to_be_visible()
    expect(page.locator("#table .result")).to_be_visible()
