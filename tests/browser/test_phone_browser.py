"""A phone (390×844): on the tables every tap target at least 44×44 px, Scout's hand in one row
whatever its size and the picked Schotten Totten card inside the table; the header in one row,
the rating chart's labels readable, and a table too wide for the screen hinting that it
scrolls."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser

from games import registry
from tests.web.club_night import club_night

from .helpers import page_with_session

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}

# Everything a finger can press on the table: links, buttons, labels standing for their
# (visually hidden) inputs, the inputs that are drawn, menus and disclosures. A link inside a
# sentence is no target of its own (WCAG 2.5.5's inline exception).
TARGETS = """() => {
  const inSentence = a => a.closest('p, li') && a.closest('p, li').textContent.trim() !== a.textContent.trim();
  return [...document.querySelectorAll(
      '#table a[href], #table button, #table label, #table select, #table summary, #table input')]
    .filter(e => e.getClientRects().length && getComputedStyle(e).visibility !== 'hidden')
    .filter(e => !(e.tagName === 'A' && inSentence(e)))
    .filter(e => { const r = e.getBoundingClientRect(); return r.width > 2 && r.height > 2; })
    .map(e => { const r = e.getBoundingClientRect();
      return {what: e.tagName + '.' + e.className + ' ' + (e.textContent || e.value || '').trim().slice(0, 30),
              w: Math.round(r.width * 10) / 10, h: Math.round(r.height * 10) / 10}; });
}"""


# What a member taps first, which shows more targets: a Schotten Totten hand card (its stones'
# "Play here"), a Scout tab (show, scout, scout & show), an Escoba hand card (its captures).
STEPS = "#table .st-hand label, #table .sc-tabs label, #table .hand-row label"


def phone_page(browser: Browser, server, user):
    return page_with_session(browser, server, user, viewport=PHONE, has_touch=True)


def member_to_move(match):
    engine = match.engine
    seats = set(engine.to_move(engine.load(match.state)))
    return next(s.user for s in match.seats.all() if s.index in seats and s.user_id)


def test_every_tap_target_on_every_games_table_is_44_by_44_on_a_phone(
    live_server, browser: Browser, make_member
):
    night = club_night(make_member)
    small, measured = [], {}
    for game in registry.game_keys():
        for state, match in (("live", night.live[game]), ("finished", night.finished[game])):
            user = member_to_move(match) if state == "live" else night.members[0]
            page = phone_page(browser, live_server, user)
            page.goto(live_server.url + match.get_absolute_url())
            targets = page.evaluate(TARGETS)
            assert targets, (game, state)
            # The targets each step of a move shows: a picked card's stones, each kind of move.
            for step in page.locator(STEPS).all():
                step.tap()
                targets += page.evaluate(TARGETS)
            measured[(game, state)] = min(min(t["w"], t["h"]) for t in targets)
            small += [(game, state, t) for t in targets if t["w"] < 44 or t["h"] < 44]
            page.context.close()
    print("smallest tap target per table:", measured)
    assert small == [], "\n".join(map(str, small))


def fifteen_card_hand(alice, bob):
    from tests.web.table_helpers import engine_state, start_match

    match = start_match("scout", [alice, bob], fillers=["easy"])
    data = match.engine.dump(engine_state(match))
    me = match.seats.get(user=alice).index
    other = (me + 1) % 3
    data["hands"][me] += data["hands"][other][:3]
    data["hands"][other] = data["hands"][other][3:]
    data.update(phase="play", decided=[True] * 3, turn=me, first=me)
    match.state = match.engine.dump(match.engine.load(data))
    match.save()
    return match


HAND_ROWS = """() => {
  const cards = [...document.querySelectorAll('#table .sc-hand-row > li .scard')];
  const tops = new Set(cards.map(c => Math.round(c.getBoundingClientRect().top)));
  const doc = document.documentElement;
  return {cards: cards.length, rows: tops.size, page_scrolls: doc.scrollWidth > doc.clientWidth};
}"""


@pytest.mark.parametrize("width", [390, 1280])
def test_a_scout_hand_of_fifteen_cards_is_one_row_on_a_phone_and_a_laptop(
    live_server, browser: Browser, alice, bob, width
):
    match = fifteen_card_hand(alice, bob)
    page = page_with_session(browser, live_server, alice, viewport={"width": width, "height": 844})
    page.goto(live_server.url + match.get_absolute_url())
    for tab in [None, *page.locator("#table .sc-tabs label").all()]:
        if tab is not None:
            tab.click()
        measured = page.evaluate(HAND_ROWS)
        assert measured == {"cards": 15, "rows": 1, "page_scrolls": False}


def test_the_picked_schotten_totten_card_stays_inside_the_table_on_a_phone(
    live_server, browser: Browser, alice, bob
):
    from tests.web.table_helpers import start_match

    match = start_match("schotten_totten", [alice, bob])
    mover = alice if match.seats.get(user=alice).to_move else bob
    page = phone_page(browser, live_server, mover)
    page.goto(live_server.url + match.get_absolute_url())
    felt = page.locator("#table .st-felt").bounding_box()
    for label in page.locator("#table .st-hand label").all():
        label.tap()
        box = label.locator("[data-card]").bounding_box()
        assert box["x"] >= felt["x"] - 0.5, label.get_attribute("for")
        assert box["x"] + box["width"] <= felt["x"] + felt["width"] + 0.5


def test_the_header_is_one_row_on_a_phone_even_for_an_admin(
    live_server, browser: Browser, make_member
):
    boss = make_member("boss", is_staff=True, is_superuser=True)
    page = phone_page(browser, live_server, boss)
    page.goto(live_server.url + "/play/")
    header = page.locator(".site-header").bounding_box()
    assert header["height"] <= 64, header
    # One row: every part of the header centred on the same line.
    centres = page.evaluate(
        "() => [...document.querySelectorAll('.nav > *')]"
        ".map(e => { const r = e.getBoundingClientRect(); return (r.top + r.bottom) / 2; })"
    )
    assert max(centres) - min(centres) < 4, centres


def test_the_rating_charts_labels_are_readable_on_a_phone(
    live_server, browser: Browser, make_member
):
    night = club_night(make_member, live_moves=0)
    member = night.members[0]
    page = phone_page(browser, live_server, member)
    page.goto(live_server.url + f"/members/{member.username}/")
    sizes = page.evaluate(
        "() => [...document.querySelectorAll('.rating-chart text')]"
        ".map(t => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a)"
    )
    assert sizes and min(sizes) >= 11, sizes


def test_a_table_too_wide_for_a_phone_scrolls_in_its_box_and_says_so(
    live_server, browser: Browser, make_member
):
    night = club_night(make_member, live_moves=0)
    page = phone_page(browser, live_server, night.members[0])
    page.goto(live_server.url + f"/members/{night.members[0].username}/")
    boxes = page.evaluate(
        "() => [...document.querySelectorAll('.table-scroll')]"
        ".filter(e => e.scrollWidth > e.clientWidth + 1)"
        ".map(e => getComputedStyle(e).backgroundImage)"
    )
    assert boxes, "no table needed a sideways scroll at 390 px: the check checks nothing"
    # The hint: a shadow at the side where more is hidden (club.css, .table-scroll).
    assert all(b.count("radial-gradient") == 2 for b in boxes), boxes


# Whatever sticks out past the right edge of the screen outside a box that scrolls sideways.
STICKS_OUT = """() => {
  const width = document.documentElement.clientWidth;
  const scrolls = e => { for (let p = e.parentElement; p; p = p.parentElement)
      if (['auto', 'scroll', 'hidden'].includes(getComputedStyle(p).overflowX)) return true;
    return false; };
  const out = [...document.querySelectorAll('body *')].filter(e => {
      const r = e.getBoundingClientRect();
      return r.width && r.height && r.right > width + 1 && !scrolls(e); })
    .map(e => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right)
      + ' in ' + (e.parentElement.closest('[class]') || e.parentElement).className);
  return {page: document.documentElement.scrollWidth, width, out: out.slice(0, 5)};
}"""


def test_a_member_with_a_very_long_name_scrolls_no_page_sideways_on_a_phone(
    live_server, browser: Browser, make_member, alice
):
    from games.models import RuleVariant
    from tests.web.table_helpers import start_match

    # As long as the sign-up form and the profile allow: 150 characters without a space.
    long = make_member("x" * 150, first_name="y" * 150, last_name="z" * 150)
    RuleVariant.objects.create(
        game="escoba", slug="long", name_es="ñ" * 100, name_en="n" * 100, options={}
    )
    tables = [start_match(game, [long, alice]).get_absolute_url() for game in registry.game_keys()]
    # A table the long name opened, waiting in alice's lobby with its Join button.
    from games import writes

    writes.create_match(long, RuleVariant.objects.get(slug="long"), 2, ["open"])
    page = phone_page(browser, live_server, alice)
    wide = {}
    for path in [
        "/",
        "/play/",
        *tables,
        f"/members/{long.username}/",
        "/play/new/escoba/",
    ]:
        page.goto(live_server.url + path)
        measured = page.evaluate(STICKS_OUT)
        if measured["page"] > measured["width"] or measured["out"]:
            wide[path] = measured
        if path == "/play/":
            # The table the long name opened: its Join button is on the screen as it is.
            join = page.get_by_role("button", name="Unirme").bounding_box()
            assert join["x"] >= 0 and join["x"] + join["width"] <= measured["width"], join
    assert wide == {}, "\n".join(f"{p[:30]}: {m}" for p, m in wide.items())
