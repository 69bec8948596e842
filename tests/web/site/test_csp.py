"""Every page carries the Content-Security-Policy, and no template needs it loosened.

The policy: everything from the site itself, no inline script, handler or style, no framing.
The browser tests (tests/browser/conftest.py) fail on any violation the policy reports.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from tests.web.table_helpers import start_match

pytestmark = pytest.mark.django_db

ROOT = Path(settings.BASE_DIR)
HEADER = "Content-Security-Policy"


def policy(response) -> dict[str, list[str]]:
    directives = {}
    for part in response[HEADER].split(";"):
        name, *values = part.split()
        directives[name] = values
    return directives


def site_paths(sample: dict[str, str]) -> list[str]:
    """Every URL of the site (the admin's are listed separately), with parameters filled in."""
    paths = []

    def walk(patterns, prefix):
        for entry in patterns:
            route = prefix + str(entry.pattern)
            if isinstance(entry, URLResolver):
                if getattr(entry, "app_name", None) != "admin":
                    walk(entry.url_patterns, route)
            elif isinstance(entry, URLPattern):
                paths.append("/" + re.sub(r"<(?:\w+:)?(\w+)>", lambda m: sample[m.group(1)], route))

    walk(get_resolver().url_patterns, "")
    return paths


@pytest.fixture
def sample(alice, bob):
    match = start_match("scout", [alice, bob])
    return {
        "pk": str(match.pk),
        "game": "scout",
        "username": "alice",
        "token": match.invite_token,
        "uidb64": "MQ",
        # A season's pair (cardclub/leagues): no such pair, so its page answers 404 or 405, with
        # the policy all the same.
        "pair_id": "1",
    }


def test_every_page_carries_the_policy_for_visitors_members_and_staff(
    client, client_for, alice, sample, django_user_model
):
    boss = django_user_model.objects.create_superuser("boss", "boss@example.com", "x")
    paths = site_paths(sample)
    assert len(paths) > 20
    admin_paths = [
        "/admin/",
        reverse("admin:games_match_changelist"),
        reverse("admin:games_match_change", args=[sample["pk"]]),
        "/admin/no-such-page/",
    ]
    seen = set()
    for who in (client, client_for(alice)):
        for path in paths + ["/no-such-page/", "/static/js/club.js"]:
            for response in (who.get(path), who.get(path, HTTP_HX_REQUEST="true")):
                assert HEADER in response, (path, response.status_code)
                seen.add(response.status_code)
    staff = client_for(boss)
    for path in admin_paths:
        response = staff.get(path)
        assert HEADER in response, path
        seen.add(response.status_code)
    # Pages, redirects, refusals and missing pages alike.
    assert {200, 302, 404} <= seen
    response = staff.post(reverse("games:move", args=[sample["pk"]]), {"code": "nonsense"})
    assert HEADER in response


def test_the_policy_allows_only_the_site_itself_and_no_framing(client):
    directives = policy(client.get(reverse("login")))
    assert directives["default-src"] == ["'self'"]
    assert directives["frame-ancestors"] == ["'none'"]
    assert directives["object-src"] == ["'none'"]
    for name in ("script-src", "style-src", "img-src", "connect-src", "form-action"):
        assert directives[name] == ["'self'"], name
    loose = [v for values in directives.values() for v in values if "unsafe" in v or "*" in v]
    assert loose == []


INLINE = [
    (re.compile(r"<script(?![^>]*\bsrc=)[^>]*>", re.I), "inline <script>"),
    (re.compile(r"\son[a-z]+\s*=", re.I), "inline event handler"),
    (re.compile(r"\sstyle\s*=", re.I), "style attribute"),
    (re.compile(r"<style", re.I), "<style> element"),
    (re.compile(r"\shx-on", re.I), "hx-on handler"),
    (re.compile(r"javascript:", re.I), "javascript: URL"),
    (re.compile(r"""hx-vals\s*=\s*['"]\s*js:""", re.I), "hx-vals evaluated as JS"),
]


def test_no_template_has_inline_script_handlers_or_styles():
    offenders = []
    for path in sorted((ROOT / "templates").rglob("*.html")) + sorted(
        (ROOT / "games").rglob("templates/**/*.html")
    ):
        text = path.read_text(encoding="utf-8")
        for pattern, what in INLINE:
            for found in pattern.finditer(text):
                offenders.append(f"{path.relative_to(ROOT)}: {what}: {found.group(0)}")
    assert offenders == []


def test_htmx_is_told_not_to_inject_styles_or_evaluate_strings(alice_client):
    page = alice_client.get(reverse("games:lobby")).content.decode()
    meta = re.search(r"""<meta name="htmx-config" content='([^']*)'>""", page)
    assert meta is not None
    import json

    config = json.loads(meta.group(1))
    assert config["includeIndicatorStyles"] is False
    assert config["allowEval"] is False
    # It must come before htmx reads it.
    assert page.index("htmx-config") < page.index("htmx-2.min.js")
    css = (ROOT / "static/css/club.css").read_text(encoding="utf-8")
    assert ".htmx-indicator" in css


def test_the_resign_button_confirms_through_the_static_script(client_for, alice, bob):
    match = start_match("scout", [alice, bob])
    page = client_for(alice).get(reverse("games:match", args=[match.pk])).content.decode()
    button = re.search(
        r"<button[^>]*>\s*[^<]*</button>\s*</form>", page[page.index("resign-form") :]
    )
    assert button and "data-confirm=" in button.group(0) and "onclick" not in button.group(0)
    js = (ROOT / "static/js/club.js").read_text(encoding="utf-8")
    assert "dataset.confirm" in js


def test_the_kept_policy_is_the_one_django_csp_builds(client):
    from csp.utils import build_policy

    assert client.get(reverse("login"))[HEADER] == build_policy()


def test_a_changed_policy_setting_is_sent_from_the_next_response(client, settings):
    before = client.get(reverse("login"))[HEADER]
    settings.CONTENT_SECURITY_POLICY = {"DIRECTIVES": {"default-src": ["'none'"]}}
    after = client.get(reverse("login"))[HEADER]
    assert after != before and "default-src 'none'" in after


def test_a_view_with_a_policy_of_its_own_gets_it_and_an_exempt_one_gets_none():
    from csp.decorators import csp_exempt, csp_update
    from django.http import HttpResponse
    from django.test import RequestFactory

    from cardclub.csp_policy import CSPMiddleware

    def answer(_request):
        return HttpResponse("ok")

    def through(view):
        return CSPMiddleware(view)(RequestFactory().get("/x/"))

    updated = through(csp_update({"img-src": ["https://example.com"]})(answer))
    assert "https://example.com" in updated[HEADER]
    assert HEADER not in through(csp_exempt()(answer))
    assert "img-src 'self'" in through(answer)[HEADER]


def test_a_nonce_asked_for_after_the_header_is_written_is_an_error():
    from csp.exceptions import CSPNonceError
    from django.http import HttpResponse
    from django.test import RequestFactory

    from cardclub.csp_policy import CSPMiddleware

    request = RequestFactory().get("/x/")
    CSPMiddleware(lambda _request: HttpResponse("ok"))(request)
    with pytest.raises(CSPNonceError):
        str(request.csp_nonce)
