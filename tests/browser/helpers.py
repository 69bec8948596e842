"""Shared steps for the browser tests: logging in and playing through the real pages."""

from __future__ import annotations

from playwright.sync_api import Browser, Page, expect

from tests.conftest import PASSWORD


def log_in(page: Page, base_url: str, username: str) -> None:
    page.goto(base_url + "/accounts/login/")
    page.locator("#id_username").fill(username)
    page.locator("#id_password").fill(PASSWORD)
    page.locator("main button[type=submit]").click()
    page.wait_for_url(base_url + "/")


def session_for(browser: Browser, base_url: str, username: str) -> Page:
    """A page of a browser context of its own (its own cookies), logged in as ``username``."""
    page = browser.new_context(locale="es-ES").new_page()
    log_in(page, base_url, username)
    return page


def page_with_session(browser: Browser, server, user, **context_args) -> Page:
    """A page of a context of its own carrying ``user``'s session cookie for ``server`` (an
    app server started by the tests, which has no login form run against it); ``context_args``
    for the context (a phone's viewport, touch)."""
    from tests.servers import session_cookie

    context = browser.new_context(**{"locale": "es-ES", **context_args})
    cookies = session_cookie(user)
    context.add_cookies([{"name": k, "value": v, "url": server.url} for k, v in cookies.items()])
    return context.new_page()


def table_version(page: Page) -> str:
    return page.locator("#table").get_attribute("data-version")


def wait_for_new_version(page: Page, old: str, timeout: float = 15000) -> None:
    expect(page.locator(f'#table:not([data-version="{old}"])')).to_have_count(1, timeout=timeout)


def show_version(page: Page, version: int, timeout: float = 5000) -> None:
    """Make the page show the table at ``version``: wait for the push (or poll) to bring it,
    and reload if it has not come in ``timeout`` ms."""
    shown = page.locator(f'#table[data-version="{version}"]')
    try:
        expect(shown).to_have_count(1, timeout=timeout)
    except AssertionError:
        page.reload()
        expect(shown).to_have_count(1)


def is_my_turn(page: Page) -> bool:
    return page.locator("#table .turn-line .badge.turn").count() > 0


def match_is_over(page: Page) -> bool:
    return page.locator("#table .result").count() > 0


def wait_for_my_turn(page: Page, timeout: float = 20000) -> None:
    """Wait until the table asks the member to move or shows the result: the bots move in the
    worker after the member's move commits, and each of their moves reaches the page as its own
    version."""
    expect(page.locator("#table .turn-line .badge.turn, #table .result").first).to_be_visible(
        timeout=timeout
    )


# What the page's streams and swaps did, recorded in the page itself: a test then waits for
# the event it needs (a swap settled) and asks what happened (did a stream ever drop?) rather
# than timing the page against the fallback poll.
WATCH_LIVE = """() => {
  window.__streamDrops = [];
  window.__tableSettled = 0;
  for (const wrap of document.querySelectorAll("[data-live]")) {
    new MutationObserver(() => {
      if (wrap.dataset.stream !== "open") window.__streamDrops.push(wrap.dataset.live);
    }).observe(wrap, { attributes: true, attributeFilter: ["data-stream"] });
  }
  // After static/js/live.js's own listener (added at load): its work on the swap is done.
  document.addEventListener("htmx:afterSettle", (event) => {
    if (event.detail.target && event.detail.target.id === "table") window.__tableSettled++;
  });
}"""


def watch_live(page: Page) -> None:
    """Start recording, once the page's stream is open, whether it ever drops (``came_by_push``)
    and how many swaps of the table settled (``wait_for_table_settled``)."""
    page.evaluate(WATCH_LIVE)


def came_by_push(page: Page) -> bool:
    """Whether every stream of the page stayed open since ``watch_live``: a page polls only
    while its stream is down, so what it fetched meanwhile it fetched because the push said so."""
    return page.evaluate("() => window.__streamDrops.length === 0")


def wait_for_table_settled(page: Page, swaps: int = 1, timeout: float = 15000) -> None:
    """Wait until ``swaps`` swaps of the table have settled since ``watch_live`` (the page has
    then marked the move, announced it and put the focus back)."""
    page.wait_for_function(f"() => window.__tableSettled >= {swaps}", timeout=timeout)
