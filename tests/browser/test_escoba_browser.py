"""Two members in two browsers play a whole Escoba match to the end, through the real pages."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from games.escoba import engine
from games.models import Match, RuleVariant
from tests.bench.bench_capacity import cards_making_15

from .helpers import log_in, show_version, table_version, wait_for_new_version

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
# 40 cards, 4 of them first laid on the table: a hand of two members is 36 moves.
HAND_MOVES = 36


def play_escoba_turn(page: Page) -> None:
    """Capture as a member does: pick a hand card that can, check table cards that make 15
    with it (clicking the cards) and press Take; when no card can, lay the first one down."""
    old = table_version(page)
    labels = page.locator("#table .hand-row label")
    table = page.locator("#table input[name=pick]")
    cards = [table.nth(i).get_attribute("value") for i in range(table.count())]
    for i in range(labels.count()):
        labels.nth(i).click()
        take = page.locator("#table .choices > div:visible button.take-picked")
        picks = cards_making_15(take.get_attribute("value"), cards) if take.count() else None
        if picks:
            for card in picks:
                page.locator(f"#table .table-cards label:has(input[value='{card}'])").click()
                expect(page.locator(f"#table input[value='{card}']")).to_be_checked()
            take.click()
            wait_for_new_version(page, old)
            return
    for i in range(labels.count()):
        labels.nth(i).click()
        lay = page.locator("#table .choices > div:visible button[value^='l:']")
        if lay.count():
            lay.click()
            wait_for_new_version(page, old)
            return
    raise AssertionError("no card in hand offered a move")


def plays_as_a_member_here(state, seat: int):
    """The move play_escoba_turn makes in ``state``: the first hand card that can capture,
    taking the table cards cards_making_15 finds (in the table's order), else the first lay."""
    view, moves = engine.view(state, seat), engine.legal_moves(state, seat)
    for card in view["hand"]:
        if any(move.card == card and move.take for move in moves):
            picks = cards_making_15(f"c:{card}:*", list(view["table"]))
            if picks:
                return engine.parse_move(f"c:{card}:{'+'.join(picks)}")
    return next(move for card in view["hand"] for move in moves if move.card == card)


def one_hand_deal(options: dict) -> int:
    """A deal whose match, played as this test plays it, is over after its first hand. With a
    target of 1 both members usually reach it, and tied totals call for another hand (rules:
    "if the highest totals tie, another hand is played"): 36 more moves through two browsers."""
    for seed in range(1, 1000):
        state = engine.new_game(2, options=options, seed=seed)
        for _move in range(HAND_MOVES):
            seat = engine.to_move(state)[0]
            state = engine.apply(state, seat, plays_as_a_member_here(state, seat))
            if engine.is_over(state):
                return seed
    raise AssertionError("no deal of the first thousand ends after one hand")


@pytest.fixture
def short_escoba(db):
    # A game to 1 point ends after one or two hands, so the whole match fits in a test.
    return RuleVariant.objects.create(
        game="escoba", slug="corta", name_es="Corta", name_en="Short", options={"target": 1}
    )


def test_two_members_play_a_whole_escoba_match_in_two_browsers(
    live_server, browser, alice, bob, short_escoba
):
    pages = {}
    for user in (alice, bob):
        context = browser.new_context(locale="es-ES")
        pages[user.username] = context.new_page()
        log_in(pages[user.username], live_server.url, user.username)
    alice_page, bob_page = pages["alice"], pages["bob"]

    alice_page.goto(live_server.url + "/play/new/escoba/")
    alice_page.get_by_label("Corta").check()
    alice_page.locator("#id_players").select_option("2")
    alice_page.locator("#id_seat_1").select_option("open")
    alice_page.locator("#table-form button[type=submit]").last.click()
    invite = alice_page.locator("#invite-link").input_value()
    # The cards are dealt when the second member sits down, from this seed.
    Match.objects.update(seed=one_hand_deal(short_escoba.options))

    bob_page.goto(invite)
    bob_page.locator("#table form button[type=submit]").click()
    match = Match.objects.get()
    # The house rules chosen before the number of players are the ones in force.
    assert (match.variant, match.options) == (short_escoba, {"target": 1})
    expect(bob_page.locator("#table .escoba")).to_be_visible()
    # Alice's page learns that the match started by polling, without a reload.
    expect(alice_page.locator("#table .escoba")).to_be_visible(timeout=10000)

    by_seat = {seat.index: pages[seat.user.username] for seat in match.seats.all()}
    for _ in range(300):
        match.refresh_from_db()
        if match.status != Match.Status.PLAYING:
            break
        page = by_seat[match.seats.get(to_move=True).index]
        # The move's form carries the version its page shows: a page a version behind would
        # have its move refused (and swapped to the new version, which looks like progress).
        show_version(page, match.version)
        play_escoba_turn(page)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    alice_page.reload()
    expect(alice_page.locator("#table .result")).to_be_visible()
    assert match.moves.count() == match.moves_played > 0
    # Captures were made by checking table cards, not only lays.
    assert match.moves.filter(code__startswith="c:").exists()


def test_taking_without_checking_table_cards_says_so_through_htmx(live_server, browser, alice, bob):
    """Pressing Take with no table card checked: the table comes back through htmx, the message
    in the page's message area, and nothing changes (the console watch fails the test on any CSP violation)."""
    from tests.web.table_helpers import start_match, variant

    options = variant("escoba").options

    def first_can_capture(seed: int) -> bool:
        state = engine.new_game(2, options=options, seed=seed)
        moves = engine.legal_moves(state, engine.to_move(state)[0])
        return any(m.code.startswith("c:") for m in moves)

    deal = next(seed for seed in range(1, 200) if first_can_capture(seed))
    match = start_match("escoba", [alice, bob], deal=deal)
    mover = alice if match.seats.get(index=0).to_move else bob
    page = browser.new_context(locale="es-ES").new_page()
    log_in(page, live_server.url, mover.username)
    page.goto(live_server.url + match.get_absolute_url())
    labels = page.locator("#table .hand-row label")
    for i in range(labels.count()):
        labels.nth(i).click()
        take = page.locator("#table .choices > div:visible button.take-picked")
        if take.count():
            take.click()
            break
    expect(page.locator("#messages .message.error[role=alert]")).to_contain_text(
        "Elige primero las cartas"
    )
    assert Match.objects.get(pk=match.pk).version == match.version


def test_on_a_phone_a_capture_is_two_taps_the_hand_card_and_its_listed_capture(
    live_server, browser, alice, bob
):
    from tests.web.table_helpers import set_escoba_table, start_match

    match = start_match("escoba", [alice, bob])
    set_escoba_table(match, ["2o", "3e", "5b"], [["5o", "7o", "10o"], ["10c", "10e", "9c"]])
    page = browser.new_context(
        locale="es-ES", viewport={"width": 390, "height": 844}, has_touch=True
    ).new_page()
    log_in(page, live_server.url, alice.username)
    page.goto(live_server.url + match.get_absolute_url())
    old = table_version(page)
    # Tap one: the 7 de oros in the hand. Tap two: its capture, listed as a button.
    page.locator("#table .hand-row label[for='h-7o']").tap()
    way = page.locator("#table .choices > div:visible .way-buttons button")
    expect(way).to_have_text("3 de espadas + 5 de bastos")
    box = way.bounding_box()
    assert box["width"] >= 44 and box["height"] >= 44
    way.tap()
    wait_for_new_version(page, old)
    expect(page.locator("#table .last-moves")).to_contain_text(
        "juega el 7 de oros y se lleva el 3 de espadas y el 5 de bastos"
    )
    assert Match.objects.get(pk=match.pk).moves.get().code == "c:7o:3e+5b"
