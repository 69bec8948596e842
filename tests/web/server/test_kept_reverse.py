"""The table's URLs reversed once per process (cardclub/reversing.py) are the URLs Django would
reverse, under whatever script prefix and URL configuration the request has."""

from __future__ import annotations

from django.test import override_settings
from django.urls import clear_script_prefix, reverse, set_script_prefix

from cardclub.reversing import kept_reverse


def test_a_kept_url_is_the_one_django_reverses():
    assert kept_reverse("games:move", 41) == reverse("games:move", args=[41]) == "/play/m/41/move/"
    assert kept_reverse("member", "ana") == reverse("member", args=["ana"])


def test_a_kept_url_follows_the_script_prefix_the_club_is_served_under():
    kept_reverse("games:poll", 7)  # kept under the usual prefix first
    set_script_prefix("/club/")
    try:
        assert kept_reverse("games:poll", 7) == "/club/play/m/7/poll/"
    finally:
        clear_script_prefix()
    assert kept_reverse("games:poll", 7) == "/play/m/7/poll/"


def test_a_kept_url_follows_the_url_configuration_of_the_settings():
    assert kept_reverse("games:live", 3) == "/play/m/3/live/"
    with override_settings(ROOT_URLCONF="tests.web.server.urls_mounted"):
        assert kept_reverse("games:live", 3) == "/mounted/play/m/3/live/"
