"""Production is the default: a process started without settings runs with DEBUG off and
refuses to start, saying why, unless a strong SECRET_KEY is set. Each case starts a real
``manage.py`` in a clean environment (nothing of the test run's DEBUG or keys)."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

from cardclub.settings import DEVELOPMENT_SECRET_KEY, weak_secret_key

ROOT = Path(__file__).resolve().parents[3]
STRONG_KEY = secrets.token_urlsafe(50)


def manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    clean = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(ROOT)}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_starting_without_any_settings_refuses_clearly():
    result = manage("check")
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert "SECRET_KEY is not set, and DEBUG is off" in result.stderr
    assert "DEBUG=1" in result.stderr  # it says how to ask for development mode


def test_debug_is_off_when_the_variable_is_unset():
    shown = "from django.conf import settings as s; print(s.DEBUG, s.SESSION_COOKIE_SECURE)"
    result = manage("shell", "-c", shown, SECRET_KEY=STRONG_KEY)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1].split() == ["False", "True"]


@pytest.mark.parametrize(
    "key, why",
    [
        (DEVELOPMENT_SECRET_KEY, "development key"),
        ("django-insecure-" + secrets.token_urlsafe(50), "development key"),
        ("short-but-varied-key", "too weak"),
        ("ab" * 40, "too weak"),
    ],
)
def test_a_weak_or_default_secret_key_with_debug_off_refuses_to_start(key, why):
    result = manage("check", DEBUG="0", SECRET_KEY=key)
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert why in result.stderr
    assert key not in result.stderr  # the message does not print the key


def test_weak_keys_are_the_ones_djangos_deploy_check_rejects():
    assert weak_secret_key("") and weak_secret_key("x" * 60)
    assert weak_secret_key(DEVELOPMENT_SECRET_KEY)
    assert weak_secret_key(STRONG_KEY) is None


def test_development_mode_is_asked_for_explicitly_and_then_starts():
    result = manage("check", DEBUG="1")
    assert result.returncode == 0, result.stderr


def test_the_deploy_check_is_clean_with_the_production_variables_of_ci():
    """The same variables as .ci/run's deploy check."""
    ci = (ROOT / ".ci/run").read_text(encoding="utf-8")
    assert "check --deploy --fail-level WARNING" in ci
    result = manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DEBUG="0",
        SECRET_KEY="ci-" + secrets.token_hex(32),
        ALLOWED_HOSTS="club.example.org",
        CSRF_TRUSTED_ORIGINS="https://club.example.org",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_make_run_asks_for_development_mode():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "run: export DEBUG := 1" in makefile
