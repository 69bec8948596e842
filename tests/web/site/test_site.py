from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse

pytestmark = pytest.mark.django_db
ROOT = Path(settings.BASE_DIR)


def test_the_site_speaks_spanish_by_default(client):
    page = client.get(reverse("home")).content.decode()
    assert '<html lang="es">' in page
    assert "Iniciar sesión" in page


def test_the_language_switch_changes_the_page_language(client):
    response = client.post(reverse("set_language"), {"language": "en", "next": "/"})
    assert response.status_code == 302
    page = client.get(reverse("home")).content.decode()
    assert '<html lang="en">' in page
    assert "Log in" in page
    client.post(reverse("set_language"), {"language": "es", "next": "/"})
    assert "Iniciar sesión" in client.get(reverse("home")).content.decode()


def test_the_body_carries_the_csrf_token_for_htmx_and_htmx_is_served_locally(client, alice_client):
    page = alice_client.get(reverse("home")).content.decode()
    assert 'hx-headers=\'{"X-CSRFToken": "' in page
    assert re.search(r'<script src="/static/django_htmx/htmx-2\.min\.js"', page)


def test_static_files_are_served(client):
    response = client.get("/static/css/club.css")
    assert response.status_code == 200
    assert b"--accent" in b"".join(response.streaming_content)
    assert client.get("/static/django_htmx/htmx-2.min.js").status_code == 200


def test_no_template_loads_anything_from_the_network():
    external = re.compile(r"""(src|href|url)\s*[=(]\s*["']?(https?:)?//""", re.IGNORECASE)
    offenders = []
    for folder in (ROOT / "templates", ROOT / "static"):
        for path in folder.rglob("*"):
            if path.suffix in {".html", ".css", ".js", ".svg"}:
                text = path.read_text(encoding="utf-8")
                # The SVG namespace is an identifier, not a download.
                text = text.replace('xmlns="http://www.w3.org/2000/svg"', "")
                if external.search(text):
                    offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []


def test_rendered_pages_reference_no_other_host(client):
    for name in ("home", "login", "signup"):
        page = client.get(reverse(name)).content.decode()
        assert not re.search(r"""(src|href)=["']?(https?:)?//""", page), name


def test_demo_data_is_idempotent_and_documented(db, django_user_model, settings):
    from django.core.management import call_command

    settings.DEBUG = True
    call_command("seed_demo")
    call_command("seed_demo")
    assert django_user_model.objects.filter(username__in=["alice", "bob", "carmen"]).count() == 3
    assert django_user_model.objects.get(username="admin").is_superuser
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    from cardclub.club.management.commands.seed_demo import DEMO_PASSWORD

    assert DEMO_PASSWORD in readme


def test_an_admin_can_log_in_to_the_admin(client, django_user_model):
    django_user_model.objects.create_superuser("boss", "boss@example.com", "boss-long-pass-1")
    response = client.post(
        reverse("admin:login"),
        {"username": "boss", "password": "boss-long-pass-1", "next": "/admin/"},
    )
    assert response.status_code == 302
    assert client.get("/admin/").status_code == 200


def test_demo_data_is_refused_without_debug(db, settings, django_user_model):
    from django.core.management import CommandError, call_command

    settings.DEBUG = False
    with pytest.raises(CommandError):
        call_command("seed_demo")
    assert not django_user_model.objects.exists()


def test_every_message_of_the_site_has_a_spanish_translation():
    # A .po entry is blocks of lines; an untranslated one ends with an empty msgstr.
    catalogue = (ROOT / "locale/es/LC_MESSAGES/django.po").read_text(encoding="utf-8")
    untranslated = []
    for block in catalogue.split("\n\n")[1:]:
        lines = [line for line in block.splitlines() if not line.startswith("#")]
        if "#, fuzzy" in block or (lines and lines[-1] in ('msgstr ""', 'msgstr[0] ""')):
            untranslated.append(lines[0] if lines else block)
    assert untranslated == []
    compiled = ROOT / "locale/es/LC_MESSAGES/django.mo"
    assert compiled.stat().st_mtime >= 0 and compiled.stat().st_size > 10_000


def test_the_tables_speak_spanish(alice_client):
    page = alice_client.get(reverse("games:lobby")).content.decode()
    assert "Mesas abiertas" in page and "Mis partidas" in page
