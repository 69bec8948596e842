"""Watching: the page of matches being played now with their spectators; a table names who is
watching; a private table is seen only by its seated and invited members, in lists and at its
address."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from cardclub.social.models import Watcher
from games import writes
from games.models import Match
from tests.web.table_helpers import start_match, variant

pytestmark = pytest.mark.django_db


def test_the_being_played_page_lists_live_matches_with_moves_and_spectators(
    alice, bob, charlie, client_for
):
    match = start_match("escoba", [alice, bob])
    over = start_match("schotten_totten", [alice, bob])
    writes.resign(over.pk, alice)
    charlie_client = client_for(charlie)
    # Charlie opens the table without a seat: he is watching it.
    page = charlie_client.get(match.get_absolute_url()).content.decode()
    assert "alice" in page
    listing = client_for(alice).get(reverse("social:watching")).content.decode()
    assert f'href="{match.get_absolute_url()}"' in listing
    assert f'href="{over.get_absolute_url()}"' not in listing
    assert "1 mirando" in listing and "0 jugadas" in listing
    # The table names its spectators (never the seated members).
    page = client_for(alice).get(match.get_absolute_url()).content.decode()
    assert "1 mirando: charlie" in page


def test_a_table_names_its_spectators_by_name_until_they_have_been_away_too_long(
    alice, bob, charlie, make_member, client_for, settings
):
    match = start_match("escoba", [alice, bob])
    ana = make_member("ana")
    for spectator in (charlie, ana):
        client_for(spectator).get(match.get_absolute_url())
    alice_client = client_for(alice)
    assert "2 mirando: ana, charlie" in alice_client.get(match.get_absolute_url()).content.decode()
    gone = timezone.now() - timedelta(seconds=settings.WATCHING_WITHIN + 1)
    Watcher.objects.filter(user=ana).update(seen_at=gone)
    assert "1 mirando: charlie" in alice_client.get(match.get_absolute_url()).content.decode()


def test_the_being_played_page_costs_a_fixed_number_of_queries(
    alice, bob, client_for, django_assert_max_num_queries
):
    for _ in range(5):
        start_match("escoba", [alice, bob])
    client = client_for(alice)
    client.get(reverse("social:watching"))
    with django_assert_max_num_queries(6):
        client.get(reverse("social:watching"))


def test_a_private_table_is_in_no_list_and_a_404_for_strangers(alice, bob, charlie, client_for):
    match = writes.create_match(alice, variant("escoba"), 2, ["open"], private=True)
    charlie_client = client_for(charlie)
    assert (
        match.get_absolute_url() not in charlie_client.get(reverse("games:lobby")).content.decode()
    )
    for url in (
        match.get_absolute_url(),
        reverse("games:log", args=[match.pk]),
        reverse("chat:messages", args=[match.pk]),
    ):
        assert charlie_client.get(url).status_code == 404
    assert charlie_client.post(reverse("games:join", args=[match.pk])).status_code == 404
    # Bob opens the invitation link: the table opens for him and he takes the seat.
    bob_client = client_for(bob)
    response = bob_client.get(reverse("games:invite", args=[match.invite_token]))
    assert response["Location"] == match.get_absolute_url()
    assert bob_client.get(match.get_absolute_url()).status_code == 200
    bob_client.post(reverse("games:join", args=[match.pk]))
    match.refresh_from_db()
    assert match.status == Match.Status.PLAYING
    assert charlie_client.get(match.get_absolute_url()).status_code == 404
    listing = charlie_client.get(reverse("social:watching")).content.decode()
    assert match.get_absolute_url() not in listing


def test_the_new_table_form_and_house_rules_make_a_table_private(alice, client_for):
    client = client_for(alice)
    rules = variant("escoba")
    response = client.post(
        reverse("games:new_table", args=["escoba"]),
        {"variant": rules.pk, "players": 2, "seat_1": "open", "private": "on"},
    )
    assert Match.objects.get().private
    rules.private = True
    rules.save()
    match = writes.create_match(alice, rules, 2, ["open"])
    assert match.private
    assert response.status_code == 302


def test_a_finished_private_table_is_in_no_members_recent_matches(alice, bob, charlie, client_for):
    shown = start_match("escoba", [alice, bob])
    hidden = start_match("escoba", [alice, bob])
    Match.objects.filter(pk=hidden.pk).update(private=True)
    for match in (shown, hidden):
        writes.resign(match.pk, alice)
    for viewer in (charlie, bob, alice):
        profile = client_for(viewer).get(reverse("member", args=[alice.username])).content.decode()
        assert reverse("games:replay", args=[shown.pk]) in profile
        assert reverse("games:replay", args=[hidden.pk]) not in profile
