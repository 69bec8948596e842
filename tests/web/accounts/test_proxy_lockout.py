"""django-axes counts the real client behind a trusted proxy, and only then reads the header.

Behind the README's TLS proxy every request connects from the proxy's address; the client is
in X-Forwarded-For, which the proxy appends to. Without TRUSTED_PROXY_COUNT that header is the
client's own word and is never believed.
"""

from __future__ import annotations

import pytest
from axes.models import AccessAttempt
from django.test import RequestFactory
from django.urls import reverse

from cardclub.http import client_ip
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db

PROXY = "10.0.0.2"
ATTACKER = "203.0.113.7"
MEMBER = "198.51.100.20"


def login(client, password, **meta):
    return client.post(reverse("login"), {"username": "alice", "password": password}, **meta)


def via_proxy(forwarded: str) -> dict:
    return {"REMOTE_ADDR": PROXY, "HTTP_X_FORWARDED_FOR": forwarded}


def test_behind_a_trusted_proxy_five_failures_lock_only_the_attacking_client(
    client, alice, settings
):
    settings.TRUSTED_PROXY_COUNT = 1
    # The fifth failure is already answered with the lock-out page.
    codes = [login(client, "wrong", **via_proxy(ATTACKER)).status_code for _ in range(5)]
    assert codes == [200, 200, 200, 200, 429]
    assert login(client, PASSWORD, **via_proxy(ATTACKER)).status_code == 429
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {ATTACKER}

    # The member, through the same proxy, still logs in.
    response = login(client, PASSWORD, **via_proxy(MEMBER))
    assert response.status_code == 302
    assert client.session["_auth_user_id"] == str(alice.pk)
    client.post(reverse("logout"))

    # The attacker cannot pass as the member by writing the member's address to the left of
    # the one the proxy appends.
    assert login(client, PASSWORD, **via_proxy(f"{MEMBER}, {ATTACKER}")).status_code == 429


def test_without_the_setting_a_forged_header_does_not_change_the_counted_address(
    client, alice, settings
):
    settings.TRUSTED_PROXY_COUNT = 0
    codes = []
    for n in range(5):
        forged = {"REMOTE_ADDR": ATTACKER, "HTTP_X_FORWARDED_FOR": f"192.0.2.{n + 1}"}
        codes.append(login(client, "wrong", **forged).status_code)
    assert codes == [200, 200, 200, 200, 429]
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {ATTACKER}
    forged = {"REMOTE_ADDR": ATTACKER, "HTTP_X_FORWARDED_FOR": MEMBER}
    assert login(client, PASSWORD, **forged).status_code == 429


def test_the_default_trusts_no_proxy_and_axes_uses_the_rule(monkeypatch):
    import importlib

    import cardclub.settings as club_settings

    monkeypatch.delenv("TRUSTED_PROXY_COUNT", raising=False)
    assert importlib.reload(club_settings).TRUSTED_PROXY_COUNT == 0
    assert club_settings.AXES_CLIENT_IP_CALLABLE == "cardclub.http.client_ip"


@pytest.mark.parametrize(
    "count, remote, forwarded, expected",
    [
        (0, "10.0.0.2", "203.0.113.7", "10.0.0.2"),
        (1, "10.0.0.2", "203.0.113.7", "203.0.113.7"),
        (1, "10.0.0.2", "1.1.1.1, 203.0.113.7", "203.0.113.7"),
        (2, "10.0.0.3", "1.1.1.1, 203.0.113.7, 10.0.0.2", "203.0.113.7"),
        (2, "10.0.0.3", "203.0.113.7", "10.0.0.3"),  # fewer hops than proxies: not via them
        (1, "10.0.0.2", "", "10.0.0.2"),
        (1, "10.0.0.2", "not-an-address", "10.0.0.2"),
        (1, "10.0.0.2", " 2001:db8::1 ", "2001:db8::1"),
        (1, "10.0.0.2", "999.1.1.1", "10.0.0.2"),
        (1, "10.0.0.2", "1.2.3.4:80", "10.0.0.2"),
        (1, "10.0.0.2", "x" * 5000, "10.0.0.2"),
        # A connecting "address" that is none (a server that rewrote it from a header, a
        # Unix socket): one placeholder address, never the header's word nor an error.
        (0, "garbage", "203.0.113.7", "0.0.0.0"),
        (1, "garbage", "also garbage", "0.0.0.0"),
        (0, "", "", "0.0.0.0"),
    ],
)
def test_the_client_address_rule(settings, count, remote, forwarded, expected):
    settings.TRUSTED_PROXY_COUNT = count
    meta = {"REMOTE_ADDR": remote}
    if forwarded:
        meta["HTTP_X_FORWARDED_FOR"] = forwarded
    assert client_ip(RequestFactory().get("/", **meta)) == expected


def test_the_readme_says_how_to_set_the_proxy_count():
    from django.conf import settings

    readme = (settings.BASE_DIR / "README.md").read_text(encoding="utf-8")
    production = readme[readme.index("## Running in production") :]
    assert "TRUSTED_PROXY_COUNT" in production


@pytest.mark.parametrize("remote", ["garbage", "999.1.1.1", "x" * 5000])
def test_a_login_from_no_valid_address_is_counted_and_answered(client, alice, settings, remote):
    for count in (0, 1):
        settings.TRUSTED_PROXY_COUNT = count
        meta = {"REMOTE_ADDR": remote, "HTTP_X_FORWARDED_FOR": remote}
        assert login(client, "wrong", **meta).status_code == 200
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {"0.0.0.0"}


def test_runclub_tells_uvicorn_to_trust_no_forwarded_header():
    from cardclub.club.management.commands.runclub import WEB_COMMAND

    assert "--no-proxy-headers" in WEB_COMMAND


def test_the_readmes_production_command_trusts_no_forwarded_header_in_the_server():
    from django.conf import settings

    readme = (settings.BASE_DIR / "README.md").read_text(encoding="utf-8")
    production = readme[readme.index("## Running in production") :]
    command = production[production.index(".venv/bin/gunicorn") :].split("```")[0]
    assert '--forwarded-allow-ips ""' in command
