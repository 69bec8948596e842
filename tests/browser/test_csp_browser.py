"""The pages run under their Content-Security-Policy in Chromium, and the conftest's watch
catches what the policy refuses (so a clean run of the browser tests means something)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import log_in
from tests.web.table_helpers import start_match

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_pages_arrive_with_the_policy_and_violate_nothing(live_server, page, alice):
    response = page.goto(live_server.url + "/accounts/login/")
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
    log_in(page, live_server.url, "alice")
    for path in ("/play/", "/ratings/", "/leagues/", "/members/alice/", "/play/rules/scout/"):
        response = page.goto(live_server.url + path)
        assert response.status == 200, path
        assert "default-src 'self'" in response.headers["content-security-policy"], path
    # htmx runs: the language switch is club.js, the leaderboard pages are htmx.
    assert page.evaluate("typeof htmx") == "object"
    assert page.evaluate("htmx.config.includeIndicatorStyles") is False
    assert page.locator("head style").count() == 0


def test_an_inline_script_or_style_is_refused_and_reported(live_server, page, console_problems):
    page.goto(live_server.url + "/accounts/login/")
    page.evaluate(
        """() => {
        window.__violated = [];
        document.addEventListener("securitypolicyviolation", (e) => {
            window.__violated.push(e.violatedDirective);
        });
        const script = document.createElement("script");
        script.textContent = "window.inlineRan = true";
        document.body.append(script);
        const style = document.createElement("style");
        style.textContent = "body { background: red }";
        document.head.append(style);
    }"""
    )
    # Each refusal is reported by an event (after the console line of REPORT_VIOLATIONS, which
    # listens first): wait for both, not for a while.
    page.wait_for_function(
        "() => ['script-src', 'style-src'].every("
        "(d) => window.__violated.some((v) => v.startsWith(d)))"
    )
    assert page.evaluate("window.inlineRan === undefined")
    reported = "\n".join(console_problems)
    assert "CSP violation: script-src" in reported
    assert "CSP violation: style-src" in reported
    # Chromium's own console message ("Refused to …" in older versions).
    assert "Content Security Policy" in reported
    console_problems.clear()  # provoked on purpose


def test_the_resign_button_asks_first_without_an_inline_handler(live_server, page, alice, bob):
    match = start_match("scout", [alice, bob])
    log_in(page, live_server.url, "alice")
    page.goto(live_server.url + f"/play/m/{match.pk}/")
    button = page.locator("form.resign-form button")
    assert button.get_attribute("onclick") is None
    page.once("dialog", lambda dialog: dialog.dismiss())
    button.click()
    expect(button).to_be_visible()  # dismissed: still playing
    match.refresh_from_db()
    assert match.status == "playing"
    page.once("dialog", lambda dialog: dialog.accept())
    button.click()
    expect(page.locator("form.resign-form")).to_have_count(0)
    match.refresh_from_db()
    assert match.status == "finished"
