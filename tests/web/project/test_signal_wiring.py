"""Signals in one place: every signal the project sends is defined in an app's ``signals.py``,
and every receiver is connected in one way only, by the ``connect()`` of its app's
``receivers.py`` that the app's ``AppConfig.ready()`` calls. A reader who wants to know what
happens when a match finishes reads ``games/signals.py`` and then the ``receivers.py`` files."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.source import parse

ROOT = Path(__file__).resolve().parents[3]
SOURCES = [p for pkg in ("games", "cardclub") for p in (ROOT / pkg).rglob("*.py")]


def calls(tree: ast.AST, attribute: str):
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if name == attribute:
                yield node


def test_signals_are_defined_only_in_a_signals_module():
    elsewhere = [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for path in SOURCES
        if path.name != "signals.py"
        for node in calls(parse(path), "Signal")
    ]
    assert not elsewhere, "a Signal() outside signals.py: " + ", ".join(elsewhere)


def test_receivers_are_connected_only_by_the_connect_of_a_receivers_module():
    stray = []
    for path in SOURCES:
        source = path.read_text(encoding="utf-8")
        if "@receiver" in source:
            stray.append(f"{path.relative_to(ROOT)}: @receiver")
        tree = parse(source)
        connects = {
            node.lineno
            for node in calls(tree, "connect")
            # A signal's connect names its receiver and a dispatch_uid; other connects (a
            # database's, a socket's) do not.
            if any(keyword.arg == "dispatch_uid" for keyword in node.keywords)
        }
        allowed = set()
        if path.name == "receivers.py":
            for node in tree.body:
                if isinstance(node, ast.FunctionDef) and node.name == "connect":
                    allowed |= {n.lineno for n in calls(node, "connect")}
        stray += [f"{path.relative_to(ROOT)}:{line}" for line in sorted(connects - allowed)]
    assert not stray, "a receiver wired outside receivers.connect(): " + ", ".join(stray)


def test_every_receivers_module_is_connected_by_its_apps_ready():
    for receivers in (p for p in SOURCES if p.name == "receivers.py"):
        apps = (receivers.parent / "apps.py").read_text(encoding="utf-8")
        assert "receivers.connect()" in apps, f"{receivers.relative_to(ROOT)} is never connected"


def test_the_receivers_are_connected_once_django_is_ready():
    from django.db.models.signals import post_save

    from games.models import Match
    from games.signals import match_finished, match_timed_out, match_viewed

    assert match_finished.has_listeners(Match)
    assert match_timed_out.has_listeners(Match)
    assert match_viewed.has_listeners(Match)
    assert post_save.has_listeners(Match)
