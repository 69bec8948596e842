"""Who is online: the lobby lists the members seen in the last few minutes with what they play;
a profile says "online" or "last seen"; a member who hides it shows as nothing."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from cardclub.accounts.models import Preferences
from tests.web.table_helpers import start_match

pytestmark = pytest.mark.django_db


def seen(user, seconds_ago):
    Preferences.objects.filter(user=user).update(
        last_seen=timezone.now() - timedelta(seconds=seconds_ago)
    )


def _online_section(html: str) -> str:
    start = html.index('id="online-h"')
    return html[start : html.index("</section>", start)]


def test_the_lobby_lists_who_is_online_with_what_they_play(alice, bob, charlie, client_for):
    match = start_match("escoba", [bob, charlie])
    seen(alice, 5)
    seen(bob, 10)
    seen(charlie, 60 * 60)  # an hour ago: not online
    section = _online_section(client_for(alice).get(reverse("games:lobby")).content.decode())
    assert ">bob</a>" in section and "charlie" not in section
    assert f'href="{match.get_absolute_url()}"' in section
    assert reverse("social:challenge_new", args=["bob"]) in section
    # Alice is online herself, with no link to challenge herself.
    assert ">alice</a>" in section
    assert reverse("social:challenge_new", args=["alice"]) not in section


def test_a_member_who_hides_their_presence_shows_as_nothing(alice, bob, client_for):
    seen(bob, 10)
    Preferences.objects.filter(user=bob).update(hide_presence=True)
    alice_client = client_for(alice)
    section = _online_section(alice_client.get(reverse("games:lobby")).content.decode())
    assert "bob" not in section
    profile = alice_client.get(reverse("member", args=["bob"])).content.decode()
    assert "en línea" not in profile and "Visto por última vez" not in profile


def test_a_profile_says_online_or_when_last_seen(alice, bob, client_for):
    client = client_for(alice)
    seen(bob, 10)
    assert "en línea" in client.get(reverse("member", args=["bob"])).content.decode()
    seen(bob, 3 * 3600)
    profile = client.get(reverse("member", args=["bob"])).content.decode()
    assert "Visto por última vez hace 3" in profile


def test_hiding_presence_is_a_profile_preference(alice, client_for):
    client = client_for(alice)
    client.post(reverse("profile_edit"), {"email": "a@example.com", "hide_presence": "on"})
    assert Preferences.objects.get(user=alice).hide_presence
    form = client.get(reverse("profile_edit")).content.decode()
    assert re.search(r'name="hide_presence"[^>]*checked', form)
