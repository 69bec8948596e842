"""The README is the project's own truth: every command it shows exists (make targets,
``manage.py`` commands, benchmark modules) and every file of the project it names is there."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

from django.core.management import get_commands

ROOT = Path(__file__).resolve().parents[3]
README = (ROOT / "README.md").read_text()
MAKEFILE = (ROOT / "Makefile").read_text()


def shown(pattern: str) -> set[str]:
    found = set(re.findall(pattern, README, re.M))
    assert found, f"the README shows no {pattern!r}: the check would check nothing"
    return found


def test_every_make_target_the_readme_shows_exists():
    targets = set(re.findall(r"^([\w.-]+):", MAKEFILE, re.M))
    # As commands: at the start of a line of a code block, or opening an inline one.
    assert shown(r"(?:^|`)make ([a-z][\w-]*)") <= targets


def test_every_manage_py_command_the_readme_shows_exists():
    commands = shown(r"(?:python |`)manage\.py ([a-z][\w-]*)")
    # django-rq's worker belongs to the other queue the README describes, installed by then.
    assert commands - {"rqworker"} <= set(get_commands())


def test_every_module_the_readme_runs_with_python_m_exists():
    for module in shown(r"python -m ([\w.]+)"):
        if module.startswith("tests."):
            assert importlib.util.find_spec(module) is not None, module


def test_every_project_file_the_readme_names_exists():
    paths = shown(r"`((?:tests|games|cardclub|static|templates|docs|\.ci)/[\w./-]+)`")
    missing = [p for p in paths if "<" not in p and "*" not in p and not (ROOT / p).exists()]
    assert not missing


def test_the_readme_points_to_no_file_outside_the_repository():
    assert not re.search(r"\.\./[\w/]+\.md", README)


def test_make_run_takes_the_port_it_is_given():
    assert "PORT ?= 8000" in MAKEFILE
    assert "runclub $(HOST):$(PORT)" in MAKEFILE
    assert "make run PORT=8080" in README
