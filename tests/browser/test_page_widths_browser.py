"""Every kind of page fits a phone (390 px) and a laptop (1280 px): no sideways scroll.

A club night is built (every game live and finished, replay, lobby, ratings, profile, leagues,
rules, a closed table) and a member, then the admin, opens each page at both widths. The page
must not be wider than the window (``scrollWidth <= clientWidth`` of the document), and on the
leaderboards no table may need a sideways scroll of its own at 1280 px.

Whether a page is too wide can hang on the deal (each match has its own seed): a stone's hidden
"completed first" words, placed against the page rather than the board that scrolls, widened the
page only when a tie fell on the eighth or ninth stone. So each page is also checked for what
would do that on another deal: an absolutely placed element inside a box that scrolls sideways
whose containing block is outside the box.
"""

from __future__ import annotations

import os
import re

import pytest
from playwright.sync_api import Browser

from tests.web.club_night import club_night

from .helpers import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTHS = (390, 1280)
SHOTS = os.environ.get("SCREENSHOTS")

OVERFLOW = """() => {
  const doc = document.documentElement;
  const wide = [...document.querySelectorAll('body *')]
    .filter(e => e.getBoundingClientRect().right > doc.clientWidth + 1)
    .slice(0, 3).map(e => e.tagName + '.' + e.className);
  return {scroll: doc.scrollWidth, client: doc.clientWidth, wide};
}"""

# The first element of each box that scrolls sideways that is absolutely placed against something
# outside the box (its offsetParent): the box does not clip it, so it can widen the page.
ESCAPES = """() => {
  const scrolls = e => ['auto', 'scroll', 'hidden'].includes(getComputedStyle(e).overflowX);
  const found = [];
  for (const e of document.querySelectorAll('body *')) {
    if (getComputedStyle(e).position !== 'absolute') continue;
    let box = e.parentElement;
    while (box && box !== document.body && !scrolls(box)) box = box.parentElement;
    if (box && box !== document.body && !(e.offsetParent && box.contains(e.offsetParent)))
      found.push(e.tagName + '.' + e.className + ' in ' + box.tagName + '.' + box.className);
  }
  return [...new Set(found)];
}"""

INNER_SCROLL = """() => [...document.querySelectorAll('.table-scroll')]
  .filter(e => e.scrollWidth > e.clientWidth + 1).length"""


def test_no_page_scrolls_sideways_on_a_phone_or_a_laptop(
    live_server, browser: Browser, make_member
):
    night = club_night(make_member)
    base = live_server.url
    pages = night.pages()
    too_wide = []
    escaping = []
    squeezed = []
    for width in WIDTHS:
        context = browser.new_context(locale="es-ES", viewport={"width": width, "height": 900})
        page = context.new_page()
        log_in(page, base, night.members[0].username)
        for name, url in pages:
            page.goto(base + url)
            measured = page.evaluate(OVERFLOW)
            if measured["scroll"] > measured["client"]:
                too_wide.append((width, name, measured))
            if escapes := page.evaluate(ESCAPES):
                escaping.append((width, name, escapes))
            if SHOTS:  # to look at the pages as a member would: SCREENSHOTS=/some/dir
                file = re.sub(r"\W+", "-", f"{width}-{name}") + ".png"
                page.screenshot(path=os.path.join(SHOTS, file), full_page=True)
            board = "ratings" in name or "leaderboard" in name
            if width == 1280 and board and page.evaluate(INNER_SCROLL):
                squeezed.append(name)
        context.close()
        admin = browser.new_context(locale="es-ES", viewport={"width": width, "height": 900})
        page = admin.new_page()
        log_in(page, base, night.admin.username)
        page.goto(base + "/admin/")
        measured = page.evaluate(OVERFLOW)
        if measured["scroll"] > measured["client"]:
            too_wide.append((width, "admin index", measured))
        admin.close()
    assert escaping == [], "\n".join(map(str, escaping))
    assert too_wide == [], "\n".join(map(str, too_wide))
    assert squeezed == []
