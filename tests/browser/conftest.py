"""Playwright against the system Chromium; skipped with a reason where there is none.

Never `playwright install`: the browser is Debian's `chromium` package.
"""

from __future__ import annotations

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
