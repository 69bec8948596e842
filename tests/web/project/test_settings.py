"""Settings a club can read: every environment variable the settings read is in the README's
tables (and nothing there is read by no one), and a bad value stops the start with a message
naming the variable instead of a traceback or a quiet default."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from cardclub.env import env_bool, env_float, env_int
from tests.source import parse

ROOT = Path(__file__).resolve().parents[3]
SETTINGS = ROOT / "cardclub/settings.py"
README = (ROOT / "README.md").read_text(encoding="utf-8")
# The settings' own readers: each takes the variable's name first.
READERS = {"env_bool", "env_int", "env_float", "env_list", "env_value"}


def variables_read(path: Path) -> set[str]:
    """The names ``path`` reads from the environment: ``os.environ.get("X")``,
    ``os.environ["X"]``, ``os.getenv("X")`` and the settings' ``env_*("X", …)``."""
    names = set()
    for node in ast.walk(parse(path)):
        name = None
        if isinstance(node, ast.Call) and node.args:
            func = node.func
            reader = isinstance(func, ast.Name) and func.id in READERS
            environ_get = (
                isinstance(func, ast.Attribute)
                and func.attr in {"get", "getenv"}
                and ast.unparse(func.value) in {"os.environ", "os"}
            )
            if reader or environ_get:
                name = node.args[0]
        elif isinstance(node, ast.Subscript) and ast.unparse(node.value) == "os.environ":
            name = node.slice
        if isinstance(name, ast.Constant) and isinstance(name.value, str):
            names.add(name.value)
    return names


def readme_table_variables() -> set[str]:
    """The names in the first column of the README's tables of variables and settings."""
    names, in_table = set(), False
    for line in README.splitlines():
        if re.match(r"\|\s*(variable|setting)\s*\|", line):
            in_table = True
        elif not line.startswith("|"):
            in_table = False
        elif in_table:
            first = line.split("|")[1]
            names |= set(re.findall(r"`([A-Z][A-Z0-9_]+)`", first))
    return names


def test_the_reader_finds_what_the_settings_read():
    read = variables_read(SETTINGS)
    # One of each way of reading, so a reader that missed one would fail here first.
    assert {"SECRET_KEY", "DEBUG", "DB_POOL_MIN", "BOT_MOVE_PAUSE", "ALLOWED_HOSTS"} <= read


def test_every_variable_the_settings_read_is_in_a_readme_table():
    missing = variables_read(SETTINGS) - readme_table_variables()
    assert not missing, f"read by cardclub/settings.py but in no README table: {sorted(missing)}"


def test_every_variable_in_the_readme_tables_is_read_by_the_code():
    code = set().union(
        *(
            variables_read(path)
            for folder in ("cardclub", "games")
            for path in (ROOT / folder).rglob("*.py")
        )
    )
    unread = readme_table_variables() - code
    assert not unread, f"in a README table but read by no module: {sorted(unread)}"


@pytest.mark.parametrize(
    "word, meaning",
    [
        ("1", True),
        ("yes", True),
        ("On", True),
        ("off", False),
        ("0", False),
        ("FALSE", False),
        ("", True),
    ],
)
def test_a_yes_no_variable_takes_the_usual_words(monkeypatch, word, meaning):
    monkeypatch.setenv("CARDCLUB_TEST_FLAG", word)
    assert env_bool("CARDCLUB_TEST_FLAG", True) is meaning


@pytest.mark.parametrize(
    "reader, value",
    [
        (env_bool, "ture"),
        (env_bool, "2"),
        (env_int, "ten"),
        (env_int, "1.5"),
        (env_int, "-1"),
        (env_float, "soon"),
        (env_float, "nan"),
        (env_float, "-0.5"),
    ],
)
def test_a_bad_value_is_refused_naming_the_variable(monkeypatch, reader, value):
    monkeypatch.setenv("CARDCLUB_TEST_VALUE", value)
    with pytest.raises(
        ImproperlyConfigured, match=f"CARDCLUB_TEST_VALUE .*{re.escape(repr(value))}"
    ):
        reader("CARDCLUB_TEST_VALUE", 1)


def test_numbers_keep_their_defaults_and_read_their_values(monkeypatch):
    monkeypatch.delenv("CARDCLUB_TEST_VALUE", raising=False)
    assert env_int("CARDCLUB_TEST_VALUE", 7) == 7
    assert env_float("CARDCLUB_TEST_VALUE", 3) == 3.0
    monkeypatch.setenv("CARDCLUB_TEST_VALUE", " 12 ")
    assert env_int("CARDCLUB_TEST_VALUE", 7) == 12
    assert env_float("CARDCLUB_TEST_VALUE", 3) == 12.0


@pytest.mark.parametrize(
    "variable, value, module",
    [
        ("BOT_MOVE_PAUSE", "fast", "cardclub.settings"),
        ("EMAIL_USE_TLS", "maybe", "cardclub.settings"),
        ("DB_POOL_MAX", "lots", "cardclub.settings"),
        ("REQUEST_THREADS", "0", "cardclub.settings"),
        # Read by the server's protocol, which gunicorn and uvicorn load before the settings.
        ("HTTP_HEADER_TIMEOUT", "soon", "cardclub.server"),
    ],
)
def test_a_process_started_with_a_bad_value_stops_naming_it(variable, value, module):
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(ROOT), "DEBUG": "1"}
    env.update(EMAIL_HOST="mail.example.org", DATABASE_URL="postgres://u@127.0.0.1:1/x")
    env[variable] = value
    result = subprocess.run(
        [sys.executable, "-c", f"import {module}"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert f"{variable} must be" in result.stderr
