"""Rematch: "Play again" at a finished match, the answers, the new match, and what is refused."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from cardclub.social.models import Rematch
from games import writes
from games.models import Match, Seat

from .simultaneous import at_once
from .table_helpers import start_match, variant

pytestmark = pytest.mark.django_db


def _finished(game, users, fillers=None):
    match = start_match(game, users, fillers=fillers)
    writes.resign(match.pk, users[0])
    match.refresh_from_db()
    return match


def _again(client, match, offer=None):
    data = {} if offer is None else {"offer": offer}
    return client.post(reverse("social:play_again", args=[match.pk]), data)


def _members(match):
    return [
        (seat.user.username if seat.user_id else seat.bot_level)
        for seat in Seat.objects.filter(match=match).select_related("user").order_by("index")
    ]


def test_a_rematch_starts_when_every_member_said_yes_with_the_same_rules_and_seats_rotated(
    alice, bob, client_for
):
    old = _finished("schotten_totten", [alice, bob])
    response = _again(client_for(alice), old)
    assert response.status_code == 302 and response["Location"] == old.get_absolute_url()
    rematch = Rematch.objects.get(match=old)
    assert rematch.status == Rematch.Status.OPEN and rematch.accepted == [alice.pk]
    # Bob's page shows the offer with his answers.
    page = client_for(bob).get(old.get_absolute_url()).content.decode()
    assert "Accept the rematch" in page or "Aceptar la revancha" in page
    response = _again(client_for(bob), old, offer=rematch.offer)
    new = Match.objects.exclude(pk=old.pk).get()
    assert response["Location"] == new.get_absolute_url()
    assert new.status == Match.Status.PLAYING
    assert (new.variant_id, new.options, new.rated) == (old.variant_id, old.options, old.rated)
    # Schotten Totten's seat 0 plays first: Bob, who played second last time.
    assert _members(new) == ["bob", "alice"]
    assert new.engine.to_move(new.engine.load(new.state)) == (0,)
    # Alice's page of the old match now links to the new one.
    page = client_for(alice).get(old.get_absolute_url()).content.decode()
    assert new.get_absolute_url() in page


def test_bots_stay_bots_and_a_lone_member_starts_the_rematch_at_once(alice, client_for):
    old = _finished("scout", [alice], fillers=["easy", "hard"])
    _again(client_for(alice), old)
    new = Match.objects.exclude(pk=old.pk).get()
    assert _members(new) == ["easy", "hard", "alice"]
    assert new.status == Match.Status.PLAYING and not new.rated


def test_in_escoba_the_first_to_play_is_the_next_member_in_turn(alice, bob, client_for):
    old = start_match("escoba", [alice, bob])
    first = old.engine.to_move(old.engine.load(old.state))[0]
    state = old.engine.load(old.state)
    writes.play_move(
        old.pk, [alice, bob][first], old.engine.legal_moves(state, first)[0].code, old.version
    )
    writes.resign(old.pk, alice)
    _again(client_for(alice), old)
    _again(client_for(bob), old, offer=1)
    new = Match.objects.exclude(pk=old.pk).get()
    mover = new.engine.to_move(new.engine.load(new.state))[0]
    old_first_member = [alice, bob][first]
    new_first_member = Seat.objects.get(match=new, index=mover).user
    assert new_first_member != old_first_member


def test_a_declined_offer_ends_for_everyone_and_a_late_yes_is_refused(alice, bob, client_for):
    old = _finished("schotten_totten", [alice, bob])
    _again(client_for(alice), old)
    response = client_for(bob).post(reverse("social:rematch_no", args=[old.pk]), {"offer": 1})
    assert response.status_code == 302
    assert Rematch.objects.get(match=old).status == Rematch.Status.DECLINED
    page = client_for(alice).get(old.get_absolute_url()).content.decode()
    assert "bob" in page and ("declined" in page or "rechazó" in page)
    bob_client = client_for(bob)
    response = _again(bob_client, old, offer=1)
    assert Match.objects.count() == 1
    page = bob_client.get(response["Location"]).content.decode()
    assert "was declined" in page or "fue rechazada" in page


def test_a_yes_to_an_expired_or_withdrawn_offer_is_refused_and_changes_nothing(
    alice, bob, client_for
):
    old = _finished("schotten_totten", [alice, bob])
    _again(client_for(alice), old)
    Rematch.objects.filter(match=old).update(expires_at=timezone.now() - timedelta(seconds=1))
    bob_client = client_for(bob)
    response = _again(bob_client, old, offer=1)
    page = bob_client.get(response["Location"]).content.decode()
    assert "expired" in page or "caducado" in page
    assert Match.objects.count() == 1
    # A fresh "Play again" makes a second offer; its maker withdraws it; a yes to it is refused.
    _again(bob_client, old)
    rematch = Rematch.objects.get(match=old)
    assert (rematch.offer, rematch.accepted) == (2, [bob.pk])
    bob_client.post(reverse("social:rematch_no", args=[old.pk]), {"offer": 2})
    assert Rematch.objects.get(match=old).status == Rematch.Status.WITHDRAWN
    alice_client = client_for(alice)
    response = _again(alice_client, old, offer=2)
    page = alice_client.get(response["Location"]).content.decode()
    assert "withdrawn" in page or "retirada" in page
    assert Match.objects.count() == 1


def test_garbage_and_strangers_change_nothing(alice, bob, charlie, client_for):
    old = _finished("schotten_totten", [alice, bob])
    response = _again(client_for(charlie), old)
    assert response.status_code == 302
    assert not Rematch.objects.exists()
    _again(client_for(alice), old, offer="not-a-number")
    assert not Rematch.objects.exists()
    assert client_for(alice).post(reverse("social:play_again", args=[999999])).status_code == 404


def test_a_league_fixture_offers_no_rematch(alice, bob, client_for):
    match = writes.start_match_for([alice, bob], variant("schotten_totten"))
    writes.resign(match.pk, alice)
    page = client_for(alice).get(match.get_absolute_url()).content.decode()
    assert reverse("social:play_again", args=[match.pk]) not in page
    _again(client_for(alice), match)
    assert not Rematch.objects.exists()


def test_house_rules_no_longer_offered_make_no_rematch(alice, bob, client_for):
    old = _finished("schotten_totten", [alice, bob])
    old.variant.__class__.objects.filter(pk=old.variant_id).update(active=False)
    _again(client_for(alice), old)
    assert not Rematch.objects.exists()


def test_play_again_is_offered_only_for_a_while_after_the_end(alice, bob, client_for, settings):
    old = _finished("schotten_totten", [alice, bob])
    url = reverse("social:play_again", args=[old.pk])
    assert url in client_for(alice).get(old.get_absolute_url()).content.decode()
    settings.REMATCH_WITHIN = 0
    assert url not in client_for(alice).get(old.get_absolute_url()).content.decode()
    _again(client_for(alice), old)
    assert not Rematch.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_two_members_pressing_play_again_at_the_same_instant_start_exactly_one_match(
    alice, bob, client_for
):
    old = _finished("schotten_totten", [alice, bob])
    url = reverse("social:play_again", args=[old.pk])
    responses = at_once(client_for, [alice, bob], lambda client, _member: client.post(url))

    assert [r.status_code for r in responses] == [302, 302]
    assert Match.objects.count() == 2
    new = Match.objects.exclude(pk=old.pk).get()
    assert Rematch.objects.get(match=old).new_match_id == new.pk
    # The second one in started it; the first, told to wait, finds the link on the old page.
    assert new.get_absolute_url() in [r["Location"] for r in responses]


@pytest.mark.django_db(transaction=True)
def test_the_last_two_members_saying_yes_to_one_offer_at_the_same_instant_start_one_match(
    alice, bob, charlie, client_for
):
    old = _finished("scout", [alice, bob, charlie])
    assert old.status == Match.Status.FINISHED
    _again(client_for(alice), old)
    offer = Rematch.objects.get(match=old).offer
    responses = at_once(client_for, [bob, charlie], lambda client, _m: _again(client, old, offer))

    assert [r.status_code for r in responses] == [302, 302]
    assert Match.objects.exclude(pk=old.pk).count() == 1
    rematch = Rematch.objects.get(match=old)
    assert rematch.status == Rematch.Status.STARTED
    assert sorted(rematch.accepted) == sorted([alice.pk, bob.pk, charlie.pk])
