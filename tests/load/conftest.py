"""The race suite starts real servers and takes minutes: it runs only when asked for, with
``pytest tests/load -m race`` (as .ci/run does), never as part of a plain ``pytest``."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(config, items):
    if "race" in (config.getoption("markexpr") or ""):
        return
    skip = pytest.mark.skip(reason="a race against a real server: run with -m race")
    for item in items:
        if "race" in item.keywords:
            item.add_marker(skip)
