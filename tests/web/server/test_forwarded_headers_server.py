"""Client addresses and the scheme under the real production command (issue 29).

gunicorn with uvicorn workers, DEBUG off and a production SECRET_KEY, as the README serves the
club (tests/bench/bench_capacity.py keeps that command). uvicorn used to rewrite the connecting
address from X-Forwarded-For for connections from 127.0.0.1, so a login POST with
``X-Forwarded-For: garbage`` handed django-axes a non-address and answered 500, whatever
TRUSTED_PROXY_COUNT said. Here real login POSTs carry malformed, forged and well-formed headers,
with no proxy declared and with one: no answer is a 5xx, every attempt axes records is under a
valid address (the forwarded one only behind the declared proxy), and X-Forwarded-Proto makes a
request secure only behind it. django-axes' admin action, which answered 500 under ASGI, is
refused to a view-only staff member and works for the superuser.
"""

from __future__ import annotations

import ipaddress
import re
from datetime import timedelta

import httpx
import pytest
from axes.models import AccessAttempt
from django.contrib.auth.models import Permission
from django.utils import timezone

from tests.bench.bench_capacity import Server, collect_static, production_env
from tests.servers import bound_socket, database_env, session_cookie

pytestmark = pytest.mark.django_db(transaction=True)

SECRET_KEY = "forwarded-headers-test-only-secret-key-0123456789-abcdefghijklmnop"
MALFORMED = ["garbage", "999.1.1.1", "x" * 5000, "1.2.3.4:80", ",,,", "203.0.113.9, garbage"]
CLIENT = "203.0.113.9"
TOKEN = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


@pytest.fixture(scope="module")
def static_files(tmp_path_factory):
    """Production serves hashed static files: collected once for these tests."""
    collect_static(tmp_path_factory.mktemp("collect"))


@pytest.fixture
def serve(settings, static_files, tmp_path):
    """Start the production server with ``TRUSTED_PROXY_COUNT`` = ``proxies``; its base URL."""
    # The server checks the sessions signed here.
    settings.SECRET_KEY = SECRET_KEY
    started = []

    def start(proxies: int) -> str:
        # Bound here and inherited by gunicorn (fd://): held until the server serves on it.
        listening = bound_socket()
        port = listening.getsockname()[1]
        env = production_env(
            **database_env(),
            SECRET_KEY=SECRET_KEY,
            TRUSTED_PROXY_COUNT=str(proxies),
            PUSH_BACKEND="off",
        )
        server = Server(port, 1, env, tmp_path / f"server-{proxies}.log", listening=listening)
        with listening:  # the server has its own copy once started
            started.append(server.__enter__())
        return f"http://127.0.0.1:{port}"

    yield start
    for server in started:
        server.__exit__(None, None, None)


def form_token(client: httpx.Client, url: str, cookies: dict) -> tuple[str, dict]:
    """The form's CSRF token and the cookies to send with it (the secure cookies production
    sets are sent by hand: this is plain HTTP on the loopback)."""
    page = client.get(url, headers={"Cookie": cookie_header(cookies)})
    assert page.status_code == 200, (url, page.status_code)
    cookies = {**cookies, **dict(page.cookies)}
    return TOKEN.search(page.text).group(1), cookies


def cookie_header(cookies: dict) -> str:
    return "; ".join(f"{name}={value}" for name, value in cookies.items())


def login(base: str, username: str, **headers) -> int:
    with httpx.Client(base_url=base, timeout=30) as client:
        token, cookies = form_token(client, "/accounts/login/", {})
        response = client.post(
            "/accounts/login/",
            data={"username": username, "password": "wrong", "csrfmiddlewaretoken": token},
            headers={"Cookie": cookie_header(cookies), **headers},
        )
    return response.status_code


def recorded(username: str) -> str:
    [address] = AccessAttempt.objects.filter(username=username).values_list("ip_address", flat=True)
    ipaddress.ip_address(address)  # a valid address, or this raises
    return address


@pytest.mark.parametrize("proxies", [0, 1])
def test_no_forwarded_header_makes_the_login_fail_and_axes_counts_a_valid_address(serve, proxies):
    base = serve(proxies)
    statuses = []
    for n, forwarded in enumerate(MALFORMED):
        statuses.append(login(base, f"malformed{n}", **{"X-Forwarded-For": forwarded}))
        # Malformed: the connecting address counts.
        assert recorded(f"malformed{n}") == "127.0.0.1", forwarded
    statuses.append(login(base, "forwarded", **{"X-Forwarded-For": CLIENT}))
    statuses.append(login(base, "forged", **{"X-Forwarded-For": f"{CLIENT}, 198.51.100.1"}))
    assert [s for s in statuses if s >= 500] == []
    assert set(statuses) == {200}, "each is a failed login, answered with the form"
    # A well-formed address is believed only from the declared proxy, and only the one it
    # appended (the last), never what the client wrote to its left.
    assert recorded("forwarded") == (CLIENT if proxies else "127.0.0.1")
    assert recorded("forged") == ("198.51.100.1" if proxies else "127.0.0.1")


@pytest.mark.parametrize("proxies", [0, 1])
def test_x_forwarded_proto_marks_a_request_secure_only_behind_the_declared_proxy(serve, proxies):
    """A secure request's POST needs a same-origin Referer (Django's CSRF check), so a POST
    claiming HTTPS without one shows whether the claim was believed."""
    base = serve(proxies)
    status = login(base, "scheme", **{"X-Forwarded-Proto": "https"})
    assert status == (403 if proxies else 200)
    referer = f"https://{base.removeprefix('http://')}/accounts/login/"
    assert login(base, "scheme2", **{"X-Forwarded-Proto": "https", "Referer": referer}) == 200


def test_axes_clean_up_is_refused_to_view_only_staff_and_works_for_the_superuser_under_asgi(
    serve, django_user_model
):
    viewer = django_user_model.objects.create_user("viewer", password="x", is_staff=True)
    viewer.user_permissions.set(Permission.objects.filter(codename__startswith="view_"))
    boss = django_user_model.objects.create_superuser("boss", "boss@example.com", "x")
    cookies = {user.username: session_cookie(user) for user in (viewer, boss)}
    attempt = AccessAttempt.objects.create(
        username="alice", ip_address="10.0.0.1", failures_since_start=3, user_agent="x"
    )
    AccessAttempt.objects.filter(pk=attempt.pk).update(
        attempt_time=timezone.now() - timedelta(days=2)
    )
    base = serve(0)
    url = "/admin/axes/accessattempt/"
    # The viewer is offered no action at all, so the admin answers the post with the list.
    for username, status, remains in (("viewer", 200, True), ("boss", 302, False)):
        with httpx.Client(base_url=base, timeout=30) as client:
            token, jar = form_token(client, url, cookies[username])
            response = client.post(
                url,
                data={
                    "action": "cleanup_expired_attempts",
                    "_selected_action": [str(attempt.pk)],
                    "index": "0",
                    "csrfmiddlewaretoken": token,
                },
                headers={"Cookie": cookie_header(jar)},
            )
        assert response.status_code == status, username
        assert AccessAttempt.objects.filter(pk=attempt.pk).exists() is remains, username
