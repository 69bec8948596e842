"""Every kind of page fits a phone (390 px) and a laptop (1280 px): no sideways scroll.

A club night is built (every game live and finished, replay, lobby, ratings, profile, leagues,
rules, a closed table) and a member, then the admin, opens each page at both widths. The page
must not be wider than the window (``scrollWidth <= clientWidth`` of the document), and on the
leaderboards no table may need a sideways scroll of its own at 1280 px.
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

INNER_SCROLL = """() => [...document.querySelectorAll('.table-scroll')]
  .filter(e => e.scrollWidth > e.clientWidth + 1).length"""


def test_no_page_scrolls_sideways_on_a_phone_or_a_laptop(
    live_server, browser: Browser, make_member
):
    night = club_night(make_member)
    base = live_server.url
    pages = night.pages()
    too_wide = []
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
    assert too_wide == [], "\n".join(map(str, too_wide))
    assert squeezed == []
