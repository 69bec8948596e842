"""Challenges: from a profile, with house rules and seats; heard as a notification; accepted or
declined from it or the lobby; refused with a clear message when they may not be made."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.core import mail
from django.urls import reverse
from django.utils import timezone
from django_tasks import default_task_backend

from cardclub.accounts.models import Preferences
from cardclub.notifications.models import Choice, Kind, Notification, NotificationSetting
from cardclub.social.models import Challenge
from games.models import Match, RuleVariant, Seat
from tests.web.social.test_notifications import DUMMY, run_queued_mail
from tests.web.table_helpers import variant

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def queued(settings):
    settings.TASKS = DUMMY
    default_task_backend.clear()


def _challenge(client, name, game="scout", **data):
    rules = variant(game)
    form = {"game": game, "variant": rules.pk, "players": 2, **data}
    return client.post(reverse("social:challenge_new", args=[name]), form)


def _messages(client, response) -> str:
    return client.get(response["Location"]).content.decode()


def test_a_challenge_from_a_profile_reaches_the_member_who_accepts_it_into_a_table(
    alice, bob, client_for, django_capture_on_commit_callbacks
):
    alice_client, bob_client = client_for(alice), client_for(bob)
    profile = alice_client.get(reverse("member", args=["bob"])).content.decode()
    assert reverse("social:challenge_new", args=["bob"]) in profile
    # The game first, then its form with the seats after the two members'.
    page = alice_client.get(reverse("social:challenge_new", args=["bob"]) + "?game=scout")
    assert page.status_code == 200 and 'name="variant"' in page.content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        response = _challenge(alice_client, "bob", players=3, seat_2="easy")
    challenge = Challenge.objects.get()
    assert response["Location"] == challenge.get_absolute_url()
    assert (challenge.players, challenge.fillers) == (3, ["easy"])
    # Bob hears it on the site and by e-mail (the default for challenges).
    [note] = Notification.objects.filter(user=bob, kind=Kind.CHALLENGE)
    assert note.challenge == challenge
    assert run_queued_mail() == 1
    assert "alice" in mail.outbox[0].subject
    # The notification leads to the challenge, the lobby shows it with its answers.
    opened = bob_client.get(note.get_absolute_url())
    assert opened["Location"] == challenge.get_absolute_url()
    lobby = bob_client.get(reverse("games:lobby")).content.decode()
    assert reverse("social:challenge_accept", args=[challenge.pk]) in lobby
    response = bob_client.post(reverse("social:challenge_accept", args=[challenge.pk]))
    match = Match.objects.get()
    assert response["Location"] == match.get_absolute_url()
    seats = Seat.objects.filter(match=match).order_by("index")
    assert [(s.user_id, s.bot_level) for s in seats] == [
        (alice.pk, ""),
        (bob.pk, ""),
        (None, "easy"),
    ]
    assert match.status == Match.Status.PLAYING
    # Alice learns the answer.
    answer = Notification.objects.filter(user=alice, kind=Kind.CHALLENGE).get()
    assert "bob" in answer.text() and answer.target_url() == challenge.get_absolute_url()


def test_a_declined_challenge_tells_the_challenger_and_cannot_be_accepted(alice, bob, client_for):
    _challenge(client_for(alice), "bob")
    challenge = Challenge.objects.get()
    bob_client = client_for(bob)
    bob_client.post(reverse("social:challenge_decline", args=[challenge.pk]), {"next": "lobby"})
    assert Challenge.objects.get().status == Challenge.Status.DECLINED
    assert Notification.objects.filter(user=alice, kind=Kind.CHALLENGE).exists()
    response = bob_client.post(reverse("social:challenge_accept", args=[challenge.pk]))
    assert "Este reto fue rechazado." in _messages(bob_client, response)
    assert not Match.objects.exists()


def test_an_expired_or_withdrawn_challenge_cannot_be_accepted(alice, bob, client_for):
    _challenge(client_for(alice), "bob")
    challenge = Challenge.objects.get()
    Challenge.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    bob_client = client_for(bob)
    response = bob_client.post(reverse("social:challenge_accept", args=[challenge.pk]))
    assert "caducado" in _messages(bob_client, response)
    assert not Match.objects.exists()
    # Expired, it no longer counts as waiting: a new one can be sent, and withdrawn.
    alice_client = client_for(alice)
    _challenge(alice_client, "bob")
    second = Challenge.objects.order_by("-pk").first()
    alice_client.post(reverse("social:challenge_decline", args=[second.pk]))
    assert Challenge.objects.get(pk=second.pk).status == Challenge.Status.WITHDRAWN
    response = bob_client.post(reverse("social:challenge_accept", args=[second.pk]))
    assert "retirado" in _messages(bob_client, response)
    assert not Match.objects.exists()


def test_a_challenge_to_oneself_or_to_a_member_who_refuses_is_refused_with_a_message(
    alice, bob, client_for
):
    alice_client = client_for(alice)
    page = alice_client.get(reverse("social:challenge_new", args=["alice"])).content.decode()
    assert "No puedes retarte a ti" in page
    assert _challenge(alice_client, "alice").status_code == 200
    Preferences.objects.filter(user=bob).update(refuse_challenges=True)
    response = _challenge(alice_client, "bob")
    assert response.status_code == 200 and "no acepta retos" in response.content.decode()
    profile = alice_client.get(reverse("member", args=["bob"])).content.decode()
    assert reverse("social:challenge_new", args=["bob"]) not in profile
    assert not Challenge.objects.exists()
    assert alice_client.get(reverse("social:challenge_new", args=["nobody"])).status_code == 404


def test_house_rules_no_longer_offered_are_refused_and_bad_seats_too(alice, bob, client_for):
    alice_client = client_for(alice)
    RuleVariant.objects.filter(pk=variant("scout").pk).update(active=False)
    response = _challenge(alice_client, "bob")
    assert response.status_code == 200 and response.context["form"].errors
    response = _challenge(alice_client, "bob", game="schotten_totten", players=2, seat_2="hard")
    assert not Challenge.objects.exists() or Challenge.objects.get().fillers == []
    response = _challenge(alice_client, "bob", game="escoba", players=3, seat_2="queen")
    assert response.status_code == 200 and response.context["form"].errors


def test_one_member_cannot_flood_another(alice, bob, client_for, settings):
    settings.CHALLENGE_RATE_LIMITS = ((2, 3600),)
    alice_client = client_for(alice)
    _challenge(alice_client, "bob")
    response = _challenge(alice_client, "bob")
    assert "esperando respuesta" in response.content.decode()
    Challenge.objects.update(status=Challenge.Status.WITHDRAWN)
    _challenge(alice_client, "bob")
    Challenge.objects.update(status=Challenge.Status.WITHDRAWN)
    response = _challenge(alice_client, "bob")
    page = response.content.decode()
    assert response.status_code == 200 and "podrás de nuevo dentro de 60 minutos" in page
    assert Challenge.objects.count() == 2


def test_strangers_see_no_challenge_and_the_challenger_cannot_accept_their_own(
    alice, bob, charlie, client_for
):
    _challenge(client_for(alice), "bob")
    challenge = Challenge.objects.get()
    assert client_for(charlie).get(challenge.get_absolute_url()).status_code == 404
    url = reverse("social:challenge_accept", args=[challenge.pk])
    assert client_for(charlie).post(url).status_code == 404
    client_for(alice).post(url)
    assert not Match.objects.exists()


def test_a_member_who_turned_challenges_off_in_notifications_still_sees_them_in_the_lobby(
    alice, bob, client_for
):
    NotificationSetting.set_choice(bob, Kind.CHALLENGE, Choice.OFF)
    _challenge(client_for(alice), "bob")
    assert not Notification.objects.exists()
    lobby = client_for(bob).get(reverse("games:lobby")).content.decode()
    assert "alice" in lobby and "social/challenges/" in lobby


def test_refusing_challenges_is_a_profile_preference(alice, client_for):
    client = client_for(alice)
    form = client.get(reverse("profile_edit")).content.decode()
    assert 'name="refuse_challenges"' in form
    client.post(reverse("profile_edit"), {"email": "a@example.com", "refuse_challenges": "on"})
    assert Preferences.refuses_challenges(alice)


def test_the_lobby_asks_first_whether_any_challenge_is_open_and_shows_them_while_one_is(
    alice, bob, make_member, client_for
):
    carol = make_member("carol")
    alice_client, bob_client = client_for(alice), client_for(bob)
    _challenge(alice_client, "bob")
    challenge = Challenge.objects.get()
    # To and from: both members are concerned, a third member is not.
    assert Challenge.any_open_concerning(alice) and Challenge.any_open_concerning(bob)
    assert not Challenge.any_open_concerning(carol)
    lobby = bob_client.get(reverse("games:lobby")).content.decode()
    assert reverse("social:challenge_accept", args=[challenge.pk]) in lobby
    # Expired, it is open no longer: the lobby draws no challenge at all.
    Challenge.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    assert not Challenge.any_open_concerning(bob)
    lobby = bob_client.get(reverse("games:lobby")).content.decode()
    assert reverse("social:challenge_accept", args=[challenge.pk]) not in lobby
    # Withdrawn likewise.
    _challenge(alice_client, "bob")
    second = Challenge.objects.order_by("-pk").first()
    assert Challenge.any_open_concerning(bob)
    alice_client.post(reverse("social:challenge_decline", args=[second.pk]))
    assert not Challenge.any_open_concerning(bob) and not Challenge.any_open_concerning(alice)


@pytest.mark.parametrize(
    ("language", "said"),
    [("es", "Abierto hasta el 09/12/2099 a las 00:29."), ("en", "Open until 12/09/2099 at 00:29.")],
)
def test_an_open_challenge_says_until_when_in_one_sentence(
    language, said, alice, bob, client_for, settings
):
    settings.TIME_ZONE = "Europe/Madrid"
    _challenge(client_for(alice), "bob")
    challenge = Challenge.objects.get()
    Challenge.objects.filter(pk=challenge.pk).update(
        expires_at=datetime(2099, 12, 8, 23, 29, tzinfo=UTC)
    )
    page = client_for(bob).get(challenge.get_absolute_url(), HTTP_ACCEPT_LANGUAGE=language)
    assert said in page.content.decode()
