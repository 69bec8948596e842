"""Issue 30: the site's frame keeps what is the same for a language and a member
(cardclub/frame.py's ``{% kept %}``) and draws afresh what changes per request."""

from __future__ import annotations

import re
from unittest import mock

import pytest
from django.template import Context, Template
from django.urls import reverse

from cardclub import frame
from cardclub.notifications.models import Notification

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def nothing_kept():
    frame.forget()
    yield
    frame.forget()


def _csrf_values(html: str) -> list[str]:
    return re.findall(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)


def test_each_member_sees_their_own_name_and_only_staff_see_the_admin_link(client_for, alice, bob):
    alice.is_staff = True
    alice.save()
    first = client_for(alice).get(reverse("home")).content.decode()
    second = client_for(bob).get(reverse("home")).content.decode()
    assert reverse("member", args=["alice"]) in first and reverse("admin:index") in first
    assert reverse("member", args=["bob"]) in second
    assert reverse("member", args=["alice"]) not in second
    assert reverse("admin:index") not in second


def test_the_kept_frame_still_carries_this_requests_csrf_token_path_and_bell(client_for, alice):
    client = client_for(alice)
    home = client.get(reverse("home")).content.decode()
    Notification.objects.create(user=alice, kind="result")
    lobby = client.get(reverse("games:lobby")).content.decode()
    # The request's own masked token in both of the frame's forms, a new one on the next page.
    assert len(_csrf_values(home)) == len(_csrf_values(lobby)) == 2
    assert len(set(_csrf_values(home))) == len(set(_csrf_values(lobby))) == 1
    assert _csrf_values(home)[0] != _csrf_values(lobby)[0]
    assert f'name="next" value="{reverse("home")}"' in home
    assert f'name="next" value="{reverse("games:lobby")}"' in lobby
    assert '<span class="bell-count">0</span>' in home
    assert '<span class="bell-count">1</span>' in lobby


def test_the_frame_follows_the_language_and_whether_one_is_logged_in(client_for, alice):
    from django.test import Client

    anonymous = Client()
    anonymous.post(reverse("set_language"), {"language": "en", "next": "/"})
    english = anonymous.get(reverse("home")).content.decode()
    spanish = client_for(alice).get(reverse("home"), headers={"accept-language": "es"})
    spanish = spanish.content.decode()
    assert "Log in" in english and "Skip to content" in english and "bell.js" not in english
    assert "Cerrar sesión" in spanish and "Iniciar sesión" not in spanish
    assert "bell.js" in spanish


def test_a_kept_part_is_drawn_once_and_its_fresh_parts_every_time():
    template = Template(
        "{% load frame %}{% kept lang %}<a>{{ lang }} {{ count }}</a>"
        "{% fresh %}[{{ count }}]{% endfresh %}<b>{% endkept %}"
    )
    assert template.render(Context({"lang": "en", "count": 1})) == "<a>en 1</a>[1]<b>"
    # The kept text is the first drawing's (the count is not part of the key)…
    assert template.render(Context({"lang": "en", "count": 2})) == "<a>en 1</a>[2]<b>"
    # …and another key is another part.
    assert template.render(Context({"lang": "es", "count": 3})) == "<a>es 3</a>[3]<b>"
    with mock.patch.object(frame.KeptNode, "render", side_effect=AssertionError):
        # Outside a kept part a fresh part is just its content.
        assert Template("{% load frame %}{% fresh %}x{% endfresh %}").render(Context()) == "x"


def test_a_changed_setting_forgets_every_kept_part(settings):
    template = Template("{% load frame %}{% kept %}{% url 'home' %}{% endkept %}")
    assert template.render(Context()) == "/"
    settings.ROOT_URLCONF = "tests.bench.bench_server_urls"
    assert frame._kept == {}
