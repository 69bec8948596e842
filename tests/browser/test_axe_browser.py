"""axe-core finds no accessibility violation on any kind of page, in Spanish and in English.

A club night is built (every game mid-match and finished, their replays, leaderboards, a
profile, a league with a season under way, notifications) and each kind of page is opened by a
member, and the admin's index by the admin, then checked by axe-core with its default rules
(WCAG 2 A and AA, and its best practices). axe-core comes from a package (its axe.min.js, in
axe-playwright-python) and is put into the page by Playwright in the test only: the site never
serves it. No page asks for anything that answers 404 either (the admin's pages asked for
/favicon.ico).
"""

from __future__ import annotations

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.urls import reverse
from playwright.sync_api import Browser

from tests.web.club_night import club_night

from .helpers import page_with_session

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LOCALES = {"es": "es-ES", "en": "en-GB"}


# The page as it settles: a move's mark fades in (games.css), cards grow after a delay; axe-core
# measures colours as they are, so it waits for every finite animation and transition to end.
SETTLED = """() => document.getAnimations()
  .filter(a => a.effect && a.effect.getComputedTiming().iterations !== Infinity)
  .every(a => a.playState === 'finished')"""


def violations(page) -> list[str]:
    page.wait_for_function(SETTLED)
    found = Axe().run(page).response["violations"]
    return [
        f"{v['id']} ({v['impact']}): {len(v['nodes'])}× e.g. {v['nodes'][0]['target']}"
        for v in found
    ]


# Every page in both languages on a laptop, and in Spanish on a phone too (where boxes scroll
# sideways and must then be reachable by keyboard).
SCREENS = [("en", 1280), ("es", 1280), ("es", 390)]


@pytest.mark.parametrize(("language", "width"), SCREENS)
def test_no_page_kind_has_an_axe_core_violation(
    live_server, browser: Browser, make_member, language, width
):
    night = club_night(make_member)
    night.season.generate_fixtures()
    pages = [*night.pages(), ("notifications", reverse("notifications:list"))]
    found, counts, missing = [], {}, []
    for who, kinds in ((night.members[0], pages), (night.admin, [("admin index", "/admin/")])):
        page = page_with_session(
            browser,
            live_server,
            who,
            locale=LOCALES[language],
            viewport={"width": width, "height": 844},
        )
        # Nothing a page asks for is missing (the admin's pages asked for /favicon.ico).
        page.on("response", lambda r: r.status == 404 and missing.append(r.url))
        for name, url in kinds:
            page.goto(live_server.url + url)
            seen = violations(page)
            counts[name] = len(seen)
            found += [f"{name}: {v}" for v in seen]
        page.context.close()
    print(f"axe-core violations per page kind ({language}, {width} px):", counts)
    assert found == [], "\n".join(found)
    assert missing == []
