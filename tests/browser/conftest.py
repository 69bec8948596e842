"""Playwright against the system Chromium; skipped with a reason where there is none.

Never `playwright install`: the browser is Debian's `chromium` package.
"""

from __future__ import annotations

import contextlib
import os
import shutil

import pytest

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
HAVE_CHROMIUM = os.path.exists(CHROMIUM) or bool(shutil.which("chromium"))

# Playwright's sync API runs an event loop in the test thread; Django's ORM calls in the test
# itself (fixtures, assertions) are still synchronous and safe.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


def pytest_collection_modifyitems(config, items):
    if HAVE_CHROMIUM:
        return
    skip = pytest.mark.skip(
        reason=f"no Chromium at {CHROMIUM}: install Debian's chromium package to run browser tests"
    )
    for item in items:
        if "tests/browser/" in str(item.fspath):
            item.add_marker(skip)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return {
        **browser_type_launch_args,
        "executable_path": CHROMIUM if os.path.exists(CHROMIUM) else shutil.which("chromium"),
        "args": [
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ],
    }


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    return {**browser_context_args, "locale": "es-ES"}


# --- Content-Security-Policy: a test fails on any violation or console error ----------------
# Every page and context a test opens is watched, however it was made (the `page` fixture,
# browser.new_context(), browser.new_page()). Chromium reports a refused inline script,
# handler or style both as a `securitypolicyviolation` event, which the init script below turns
# into a console error, and as a console error "Refused to …".
REPORT_VIOLATIONS = """
document.addEventListener("securitypolicyviolation", (e) => {
  console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI || "inline"}`
    + ` (${e.sourceFile || document.location.href}:${e.lineNumber})`);
});
"""


def watch_context(context, problems: list[str]) -> None:
    if getattr(context, "_csp_watched", False):
        return
    context._csp_watched = True
    context.add_init_script(script=REPORT_VIOLATIONS)

    def on_console(message):
        # The live table aborts its own fetch when the member moves (static/js/live.js), and htmx
        # logs every abort as an error event; a failed request still shows as responseError or
        # sendError. Chromium writes the event's other arguments after a comma, when it has them
        # ("htmx:afterRequest, [object HTMLElement]").
        if message.text.split(",")[0].strip() in ("htmx:afterRequest", "htmx:sendAbort"):
            return
        if message.type == "error":
            problems.append(
                f"console error on {message.page.url if message.page else '?'}: {message.text}"
            )

    context.on("console", on_console)
    context.on("weberror", lambda error: problems.append(f"page error: {error.error}"))


@pytest.fixture
def console_problems(monkeypatch):
    """The CSP violations and console errors of the test's pages so far; the test fails at the
    end if any is left. A test that provokes one on purpose empties the list.

    The contexts a test opened itself are closed when it ends: the browser lives for the whole
    run, and a page left open keeps polling and streaming from the run's live server after the
    test's database is gone (each of its requests a traceback, at any later test)."""
    from playwright.sync_api import Browser, Error

    problems: list[str] = []
    opened = []
    new_context, new_page = Browser.new_context, Browser.new_page

    def watched_context(self, *args, **kwargs):
        context = new_context(self, *args, **kwargs)
        watch_context(context, problems)
        opened.append(context)
        return context

    def watched_page(self, *args, **kwargs):
        page = new_page(self, *args, **kwargs)
        watch_context(page.context, problems)
        opened.append(page.context)
        return page

    monkeypatch.setattr(Browser, "new_context", watched_context)
    monkeypatch.setattr(Browser, "new_page", watched_page)
    yield problems
    # What the test's pages reported while it ran; closing them below delivers what they say
    # of the servers the test has already stopped, which is not the test's to answer for.
    reported = list(problems)
    for context in opened:
        # A test may have closed it, or the browser with it; either way it is gone. The class's
        # close, not the instance's: pytest-playwright wraps its own contexts' close to forget
        # them, and closes them itself after this (closing twice is harmless).
        with contextlib.suppress(Error):
            type(context).close(context)
    assert reported == [], "the pages reported CSP violations or console errors"


@pytest.fixture(autouse=True)
def no_console_problems(request):
    if "tests/browser/" in str(request.node.fspath) and HAVE_CHROMIUM:
        request.getfixturevalue("console_problems")


@pytest.fixture
def server():
    """The club under uvicorn (ASGI: pages open push streams), with the local push backend."""
    from tests.servers import start_app_server

    app = start_app_server({"PUSH_BACKEND": "local", "PUSH_SOCKET_DIR": ""})
    yield app
    app.stop()
