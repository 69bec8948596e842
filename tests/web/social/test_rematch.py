"""Rematch: "Play again" at a finished match, the answers, the new match, and what is refused."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.cache import cache
from django.urls import reverse
from django.utils import timezone

from cardclub.social.models import Rematch, Watcher
from games import writes
from games.models import Match, Seat
from tests.web.simultaneous import at_once
from tests.web.table_helpers import start_match, variant

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


# --- Leaving the table ----------------------------------------------------------------------


def _leave(client, match):
    return client.post(reverse("social:rematch_leave", args=[match.pk]))


def _said_left(page: str, name: str) -> bool:
    return f"{name} left the table." in page or f"{name} se levantó de la mesa." in page


def test_leaving_the_table_ends_the_offer_for_everyone_and_sends_the_member_to_the_lobby(
    alice, bob, client_for
):
    old = _finished("schotten_totten", [alice, bob])
    _again(client_for(alice), old)
    version = Match.objects.get(pk=old.pk).version
    bob_client = client_for(bob)
    page = bob_client.get(old.get_absolute_url()).content.decode()
    assert reverse("social:rematch_leave", args=[old.pk]) in page
    response = _leave(bob_client, old)
    assert response.status_code == 302 and response["Location"] == reverse("games:lobby")
    lobby = bob_client.get(response["Location"]).content.decode()
    assert "You have left the table." in lobby or "Te has levantado de la mesa." in lobby
    rematch = Rematch.objects.get(match=old)
    assert (rematch.status, rematch.ended_by_id) == (Rematch.Status.LEFT, bob.pk)
    # A new version: Alice's open page fetches its fragment through its stream and reads it.
    assert Match.objects.get(pk=old.pk).version == version + 1
    fragment = client_for(alice).get(
        reverse("games:poll", args=[old.pk]), {"v": version}, HTTP_HX_REQUEST="true"
    )
    assert fragment.status_code == 200 and _said_left(fragment.content.decode(), "bob")
    assert reverse("social:play_again", args=[old.pk]) not in fragment.content.decode()


def test_a_late_yes_to_an_offer_someone_left_is_refused_and_changes_nothing(
    alice, bob, charlie, client_for
):
    old = _finished("scout", [alice, bob, charlie])
    _again(client_for(alice), old)
    _leave(client_for(charlie), old)
    bob_client = client_for(bob)
    response = _again(bob_client, old, offer=1)
    page = bob_client.get(response["Location"]).content.decode()
    assert "charlie left the table: there is no rematch." in page or (
        "charlie se levantó de la mesa: no hay revancha." in page
    )
    rematch = Rematch.objects.get(match=old)
    assert (rematch.status, rematch.accepted) == (Rematch.Status.LEFT, [alice.pk])
    # Nor does a fresh "Play again" make a new offer.
    _again(bob_client, old)
    assert Rematch.objects.get(match=old).offer == 1
    assert Match.objects.count() == 1


def test_leaving_before_any_offer_means_no_offer_can_be_made(alice, bob, client_for):
    old = _finished("schotten_totten", [alice, bob])
    _leave(client_for(bob), old)
    alice_client = client_for(alice)
    page = alice_client.get(old.get_absolute_url()).content.decode()
    assert _said_left(page, "bob")
    assert reverse("social:play_again", args=[old.pk]) not in page
    _again(alice_client, old)
    assert Rematch.objects.get(match=old).status == Rematch.Status.LEFT
    assert Match.objects.count() == 1


def test_a_stranger_cannot_leave_a_table_for_its_members(alice, bob, charlie, client_for):
    old = _finished("schotten_totten", [alice, bob])
    _again(client_for(alice), old)
    response = _leave(client_for(charlie), old)
    assert response["Location"] == old.get_absolute_url()
    assert Rematch.objects.get(match=old).status == Rematch.Status.OPEN
    assert _leave(client_for(alice), Match(pk=999999)).status_code == 404


def test_a_match_being_played_is_not_left_by_the_rematch_form(alice, bob, client_for):
    match = start_match("schotten_totten", [alice, bob])
    response = _leave(client_for(alice), match)
    assert response["Location"] == match.get_absolute_url()
    assert not Rematch.objects.exists()
    assert Match.objects.get(pk=match.pk).status == Match.Status.PLAYING


def _long_ago(match, settings):
    """The match ended longer ago than the presence window."""
    Match.objects.filter(pk=match.pk).update(
        finished_at=timezone.now() - timedelta(seconds=settings.WATCHING_WITHIN + 60)
    )


def test_a_member_whose_page_was_closed_longer_than_the_window_has_left(
    alice, bob, client_for, settings
):
    old = _finished("schotten_totten", [alice, bob])
    client_for(bob).get(old.get_absolute_url())  # Bob saw the end, then closed the page.
    assert Watcher.objects.filter(match=old, user=bob).exists()
    _long_ago(old, settings)
    Watcher.objects.filter(match=old, user=bob).update(
        seen_at=timezone.now() - timedelta(seconds=settings.WATCHING_WITHIN + 1)
    )
    alice_client = client_for(alice)
    response = _again(alice_client, old)
    page = alice_client.get(response["Location"]).content.decode()
    assert "bob left the table: there is no rematch." in page or (
        "bob se levantó de la mesa: no hay revancha." in page
    )
    rematch = Rematch.objects.get(match=old)
    assert (rematch.status, rematch.ended_by_id) == (Rematch.Status.LEFT, bob.pk)
    assert _said_left(page, "bob") and Match.objects.count() == 1


def test_an_open_offer_ends_when_it_is_drawn_after_a_member_went_away(
    alice, bob, client_for, settings
):
    old = _finished("schotten_totten", [alice, bob])
    client_for(bob).get(old.get_absolute_url())
    _again(client_for(alice), old)
    _long_ago(old, settings)
    Watcher.objects.filter(match=old, user=bob).update(
        seen_at=timezone.now() - timedelta(seconds=settings.WATCHING_WITHIN + 1)
    )
    version = Match.objects.get(pk=old.pk).version
    page = client_for(alice).get(old.get_absolute_url()).content.decode()
    assert _said_left(page, "bob")
    assert Rematch.objects.get(match=old).status == Rematch.Status.LEFT
    assert Match.objects.get(pk=old.pk).version == version + 1  # the other pages hear of it


def test_a_member_whose_idle_page_is_still_open_has_not_left(alice, bob, client_for, settings):
    old = _finished("schotten_totten", [alice, bob])
    bob_client = client_for(bob)
    bob_client.get(old.get_absolute_url())
    _long_ago(old, settings)
    Watcher.objects.filter(match=old, user=bob).update(
        seen_at=timezone.now() - timedelta(seconds=settings.WATCHING_WITHIN + 1)
    )
    # His page sits idle: its poll (as its stream's keep-alive) says it is still open.
    cache.clear()
    version = Match.objects.get(pk=old.pk).version
    poll = bob_client.get(reverse("games:poll", args=[old.pk]), {"v": version})
    assert poll.status_code == 204
    _again(client_for(alice), old)
    rematch = Rematch.objects.get(match=old)
    assert (rematch.status, rematch.accepted) == (Rematch.Status.OPEN, [alice.pk])
    page = bob_client.get(old.get_absolute_url()).content.decode()
    assert "Accept the rematch" in page or "Aceptar la revancha" in page


def test_nobody_is_taken_for_gone_while_the_match_ended_within_the_window(alice, bob, client_for):
    old = _finished("schotten_totten", [alice, bob])
    # Bob never drew the finished page (no row), but the match ended a moment ago.
    assert not Watcher.objects.filter(match=old, user=bob).exists()
    _again(client_for(alice), old)
    assert Rematch.objects.get(match=old).status == Rematch.Status.OPEN


def test_the_member_whose_move_ended_the_match_is_kept_at_the_table_by_their_idle_page(
    alice, bob, client_for
):
    old = _finished("schotten_totten", [alice, bob])
    # No draw of the finished page yet (the ending move's own response writes none).
    assert not Watcher.objects.filter(match=old, user=bob).exists()
    cache.clear()
    poll = client_for(bob).get(reverse("games:poll", args=[old.pk]), {"v": old.version})
    assert poll.status_code == 204
    assert Watcher.objects.filter(match=old, user=bob).exists()


def test_a_poll_of_a_match_being_played_makes_no_spectator_of_its_member(alice, bob, client_for):
    match = start_match("schotten_totten", [alice, bob])
    cache.clear()
    client_for(bob).get(reverse("games:poll", args=[match.pk]), {"v": match.version})
    assert not Watcher.objects.filter(match=match).exists()
