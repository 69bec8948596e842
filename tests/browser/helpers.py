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
