"""The live table in a real browser, against a real ASGI server (uvicorn in its own process).

A move committed by another process (as the background worker or another app server commits
them) reaches the open page by push: the new version appears without a reload, the last move's
cards are marked, its sentence is announced, the tab says it is your turn and the focus goes to
your hand. The lobby's list of your matches follows too.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from games import writes
from games.models import Match
from tests.web.table_helpers import engine_state, start_match

from .helpers import came_by_push, page_with_session, wait_for_table_settled, watch_live

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# How long the page may take on a loaded machine: a bound on waiting for the event, not a
# measure of the push (came_by_push tells that the page did not poll for it).
ARRIVES_MS = 15000


def _play_for_the_other(match, waiting_user):
    """Commit one move for whoever is to move, unless that is ``waiting_user`` (then first a
    move of theirs, so that the next one is the other's). Returns the new version."""
    for _ in range(2):
        match.refresh_from_db()
        state = engine_state(match)
        seat = match.engine.to_move(state)[0]
        user = match.seats.get(index=seat).user
        code = match.engine.legal_moves(state, seat)[0].code
        writes.play_move(match.pk, user, code, match.version)
        if user != waiting_user:
            break
    match.refresh_from_db()
    return match.version


def _wait_until_waiting(match, user):
    """Play moves until it is the other member's turn, so that ``user`` waits."""
    for _ in range(4):
        match.refresh_from_db()
        state = engine_state(match)
        seat = match.engine.to_move(state)[0]
        if match.seats.get(index=seat).user != user:
            return
        code = match.engine.legal_moves(state, seat)[0].code
        writes.play_move(match.pk, user, code, match.version)


def test_a_move_committed_elsewhere_appears_marked_and_announced_and_it_is_your_turn(
    browser, server, alice, bob
):
    match = start_match("schotten_totten", [alice, bob])
    _wait_until_waiting(match, alice)
    match.refresh_from_db()
    page = page_with_session(browser, server, alice)
    page.goto(server.url + match.get_absolute_url())
    old = page.locator("#table").get_attribute("data-version")
    base_title = page.title()
    expect(page.locator('[data-live="table"][data-stream="open"]')).to_have_count(1, timeout=10000)
    assert old == str(match.version)
    page.locator("#table").focus()
    watch_live(page)

    version = _play_for_the_other(match, alice)

    expect(page.locator(f'#table[data-version="{version}"]')).to_have_count(1, timeout=ARRIVES_MS)
    assert came_by_push(page), "the stream dropped: the page may have polled for the move"
    wait_for_table_settled(page)
    strip = page.locator("#table .just-happened")
    expect(strip).to_contain_text("bob")
    # The card bob placed is marked where it now lies on the board, not only in the strip.
    expect(page.locator("#table .st-felt .is-just")).to_have_count(1)
    expect(page.locator("#announce")).to_contain_text("bob")
    expect(page.locator("#announce")).to_contain_text("Tu turno")
    expect(page).to_have_title(re.compile("Tu turno"))
    assert page.title() != base_title
    assert page.locator('link[rel="icon"]').get_attribute("href").endswith("favicon-turn.svg")
    # The focus went to the hand, not to the top of the page.
    focused = page.evaluate(
        "() => { const a = document.activeElement;"
        " return a && a.closest('#table') ? (a.closest('[aria-labelledby$=\"hand-h\"]') ? 'hand'"
        " : a.tagName + '.' + a.className) : (a ? a.tagName : null) }"
    )
    assert focused == "hand" or focused.startswith("INPUT"), focused


def test_the_focus_stays_where_it_was_when_a_move_arrives(browser, server, alice, bob, charlie):
    match = start_match("schotten_totten", [alice, bob])
    # A spectator: no move ever makes it their turn, so the focus has no reason to move.
    page = page_with_session(browser, server, charlie)
    page.goto(server.url + match.get_absolute_url())
    expect(page.locator('[data-live="table"][data-stream="open"]')).to_have_count(1, timeout=10000)
    rules = page.locator("#table a[href*='/rules/']").last
    rules.focus()
    href = rules.get_attribute("href")
    watch_live(page)
    version = _play_for_the_other(match, None)  # one move, whoever's: alice's page hears it
    expect(page.locator(f'#table[data-version="{version}"]')).to_have_count(1, timeout=ARRIVES_MS)
    assert came_by_push(page)
    # The page puts the focus back once the swap has settled: wait for that, then look.
    wait_for_table_settled(page)
    assert page.evaluate("() => document.activeElement.getAttribute('href')") == href


def test_the_lobby_list_of_your_matches_updates_itself(browser, server, alice, bob):
    match = start_match("schotten_totten", [alice, bob])
    _wait_until_waiting(match, alice)
    page = page_with_session(browser, server, alice)
    page.goto(server.url + "/play/")
    mine = page.locator("#mine")
    expect(mine.locator(".badge.turn")).to_have_count(0)
    expect(page.locator('[data-live="mine"][data-stream="open"]')).to_have_count(1, timeout=10000)
    watch_live(page)
    _play_for_the_other(match, alice)
    expect(mine.locator(".badge.turn")).to_have_count(1, timeout=ARRIVES_MS)
    assert came_by_push(page)
    expect(page).to_have_title(re.compile(r"^\(1\) "))
    assert Match.objects.get(pk=match.pk).seats.get(user=alice).to_move


def test_spectators_see_every_move_come_live_each_in_their_own_language(
    browser, server, alice, bob, charlie, make_member
):
    # Three watchers of one match: two in Spanish are given one drawing of each version, the
    # third, in English, one of its own (games/templatetags/drawn_once.py).
    diana = make_member("diana")
    erik = make_member("erik")
    match = start_match("escoba", [alice, bob])
    pages = [
        page_with_session(browser, server, charlie),
        page_with_session(browser, server, diana),
        page_with_session(browser, server, erik, locale="en-GB"),
    ]
    for page in pages:
        page.goto(server.url + match.get_absolute_url())
        expect(page.locator('[data-live="table"][data-stream="open"]')).to_have_count(
            1, timeout=10000
        )
        watch_live(page)
    for _ in range(2):
        version = _play_for_the_other(match, None)
        mover = Match.objects.get(pk=match.pk).moves.order_by("-seq").first().seat
        name = ["alice", "bob"][mover]
        for page in pages:
            table = page.locator(f'#table[data-version="{version}"]')
            expect(table).to_have_count(1, timeout=ARRIVES_MS)
            expect(page.locator("#table .just-happened")).to_contain_text(name)
            assert came_by_push(page)
        spanish = [page.locator("#table").inner_html() for page in pages[:2]]
        assert spanish[0] == spanish[1]
        expect(pages[0].locator("#table .just-label")).to_have_text("Última jugada:")
        expect(pages[2].locator("#table .just-label")).to_have_text("Last move:")
        # A spectator sees no hand and no choice to make.
        for page in pages:
            expect(page.locator("#table .my-hand, #table form.table-form")).to_have_count(0)
