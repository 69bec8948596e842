"""The links in e-mails follow the address being served when SITE_URL is unset: `runclub`
(make run) passes the address it serves to its children, whose settings take it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from cardclub.club.management.commands.runclub import SERVED_URL_VARIABLE, served_environment

ROOT = Path(__file__).resolve().parents[3]


def site_url_in_a_child(env: dict[str, str]) -> str:
    code = (
        "import django; django.setup(); from django.conf import settings; print(settings.SITE_URL)"
    )
    env = {**env, "DJANGO_SETTINGS_MODULE": "cardclub.settings", "DEBUG": "1"}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True, check=True
    )
    return out.stdout.strip()


def without_site_url() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("SITE_URL", SERVED_URL_VARIABLE)}


def test_without_site_url_the_children_link_to_the_port_make_run_serves():
    env = served_environment("127.0.0.1", "8080", without_site_url())
    assert site_url_in_a_child(env) == "http://127.0.0.1:8080"


def test_site_url_when_set_wins_over_the_address_served():
    env = served_environment("127.0.0.1", "8080", {**without_site_url(), "SITE_URL": "https://a.b"})
    assert SERVED_URL_VARIABLE not in env
    assert site_url_in_a_child(env) == "https://a.b"


def test_a_wildcard_host_links_to_the_machines_name_not_to_0_0_0_0():
    env = served_environment("0.0.0.0", "8080", without_site_url())
    assert "0.0.0.0" not in env[SERVED_URL_VARIABLE]
    assert env[SERVED_URL_VARIABLE].endswith(":8080")
