"""Challenges naming further members (issue 30: "with chosen house rules and seats (more
members, bots)"): each named member is challenged too and must say yes, the match starts with the
last yes, a no from anyone calls it off and everyone hears it; every rule of a lone challenge
holds for each of them."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from django_tasks import default_task_backend

from cardclub.accounts.models import Preferences
from cardclub.notifications.models import Kind, Notification
from cardclub.social.models import Challenge
from games.models import Match, RuleVariant, Seat
from tests.web.simultaneous import at_once
from tests.web.social.test_notifications import DUMMY
from tests.web.table_helpers import variant

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def queued(settings):
    settings.TASKS = DUMMY
    default_task_backend.clear()


@pytest.fixture
def dora(make_member):
    return make_member("dora")


def _challenge(client, name, game="scout", **data):
    form = {"game": game, "variant": variant(game).pk, **data}
    return client.post(reverse("social:challenge_new", args=[name]), form)


def _party(client, game="scout", players=4, **seats):
    """Alice's usual party: Bob at seat 2, Charlie named at seat 3, an easy bot at seat 4."""
    data = {"players": players, "seat_2": "member", "member_2": "charlie", "seat_3": "easy"}
    data.update(seats)
    return _challenge(client, "bob", game=game, **data)


def _accept(client, challenge):
    return client.post(reverse("social:challenge_accept", args=[challenge.pk]))


def _followed(client, response) -> str:
    return client.get(response["Location"]).content.decode()


def test_a_challenge_names_a_third_member_and_starts_when_both_have_said_yes(
    alice, bob, charlie, client_for, django_capture_on_commit_callbacks
):
    alice_client, bob_client, charlie_client = (client_for(u) for u in (alice, bob, charlie))
    form = alice_client.get(reverse("social:challenge_new", args=["bob"]) + "?game=scout&players=4")
    page = form.content.decode()
    assert 'name="member_2"' in page and 'value="member"' in page
    with django_capture_on_commit_callbacks(execute=True):
        response = _party(alice_client)
    lead = Challenge.objects.get(challenged=bob)
    third = Challenge.objects.get(challenged=charlie)
    assert response["Location"] == lead.get_absolute_url()
    assert "bob, charlie" in _followed(alice_client, response)
    assert (third.lead, third.seat, lead.seat) == (lead, 2, 1)
    # Both are told, each of their own row, and each sees it in the lobby.
    for member, row in ((bob, lead), (charlie, third)):
        [note] = Notification.objects.filter(user=member, kind=Kind.CHALLENGE)
        assert note.challenge == row and "otros miembros" in note.text()
    charlie_lobby = charlie_client.get(reverse("games:lobby")).content.decode()
    assert reverse("social:challenge_accept", args=[third.pk]) in charlie_lobby
    assert "bob aún tiene que responder" in charlie_lobby
    # Bob's yes alone starts nothing; his lobby says he waits, Charlie's that Bob said yes.
    response = _accept(bob_client, lead)
    assert not Match.objects.exists()
    assert "Has dicho que sí: esperando a los demás." in _followed(bob_client, response)
    bob_lobby = bob_client.get(reverse("games:lobby")).content.decode()
    assert "Has dicho que sí: esperando a los demás." in bob_lobby
    assert reverse("social:challenge_accept", args=[lead.pk]) not in bob_lobby
    assert "bob ha dicho que sí" in charlie_client.get(reverse("games:lobby")).content.decode()
    again = _accept(bob_client, lead)
    assert "Ya has dicho que sí" in _followed(bob_client, again)
    # The challenger sees the party once in the lobby, with who answered.
    alice_lobby = alice_client.get(reverse("games:lobby")).content.decode()
    assert alice_lobby.count("Has retado a bob") == 1 and "charlie aún tiene" in alice_lobby
    # Charlie's yes, the last, starts the match with everyone at their seat.
    response = _accept(charlie_client, third)
    match = Match.objects.get()
    assert response["Location"] == match.get_absolute_url()
    seats = Seat.objects.filter(match=match).order_by("index")
    assert [(s.user_id, s.bot_level) for s in seats] == [
        (alice.pk, ""),
        (bob.pk, ""),
        (charlie.pk, ""),
        (None, "easy"),
    ]
    assert match.status == Match.Status.PLAYING
    assert set(Challenge.objects.values_list("status", "match")) == {("accepted", match.pk)}
    # Alice and Bob hear it; Charlie, who is at the table already, is not told again.
    assert "Todos han aceptado tu reto" in (
        Notification.objects.filter(user=alice, kind=Kind.CHALLENGE).get().text()
    )
    assert Notification.objects.filter(user=bob, kind=Kind.CHALLENGE).count() == 2
    assert Notification.objects.filter(user=charlie, kind=Kind.CHALLENGE).count() == 1
    page = alice_client.get(lead.get_absolute_url()).content.decode()
    assert "Asiento 3: charlie" in page and match.get_absolute_url() in page


def test_a_no_from_any_named_member_calls_it_off_and_everyone_is_told(
    alice, bob, charlie, client_for
):
    alice_client, bob_client, charlie_client = (client_for(u) for u in (alice, bob, charlie))
    _party(alice_client)
    lead, third = Challenge.objects.get(challenged=bob), Challenge.objects.get(challenged=charlie)
    _accept(bob_client, lead)
    charlie_client.post(reverse("social:challenge_decline", args=[third.pk]))
    assert set(Challenge.objects.values_list("status", flat=True)) == {"declined"}
    assert not Match.objects.exists()
    to_alice = Notification.objects.filter(user=alice, kind=Kind.CHALLENGE).get()
    assert to_alice.text() == "charlie rechazó tu reto a Scout."
    to_bob = Notification.objects.filter(user=bob, kind=Kind.CHALLENGE).order_by("-pk").first()
    assert "charlie rechazó el reto de alice a Scout" in to_bob.text()
    # Bob's earlier yes cannot bring it back; the page says who declined.
    response = _accept(bob_client, lead)
    assert "Este reto fue rechazado." in _followed(bob_client, response)
    page = bob_client.get(lead.get_absolute_url()).content.decode()
    assert "charlie rechazó: el reto queda anulado." in page
    assert not Match.objects.exists()


def test_the_challenger_withdrawing_ends_every_members_challenge(alice, bob, charlie, client_for):
    alice_client = client_for(alice)
    _party(alice_client)
    lead, third = Challenge.objects.get(challenged=bob), Challenge.objects.get(challenged=charlie)
    alice_client.post(reverse("social:challenge_decline", args=[lead.pk]), {"next": "lobby"})
    assert set(Challenge.objects.values_list("status", flat=True)) == {"withdrawn"}
    charlie_client = client_for(charlie)
    response = _accept(charlie_client, third)
    assert "retirado" in _followed(charlie_client, response)
    assert not Match.objects.exists()


def test_an_expired_party_cannot_be_accepted_by_its_last_member(alice, bob, charlie, client_for):
    _party(client_for(alice))
    lead, third = Challenge.objects.get(challenged=bob), Challenge.objects.get(challenged=charlie)
    _accept(client_for(bob), lead)
    Challenge.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    charlie_client = client_for(charlie)
    response = _accept(charlie_client, third)
    assert "caducado" in _followed(charlie_client, response)
    assert not Match.objects.exists()


@pytest.mark.parametrize(
    ("seats", "error"),
    [
        ({"member_2": "alice"}, "No puedes retarte a ti"),
        ({"member_2": "bob"}, "bob ya tiene asiento en esta mesa"),
        ({"member_2": "nobody"}, "No hay ningún socio con ese nombre"),
        ({"member_2": ""}, "Di qué miembro se sienta aquí"),
        ({"seat_2": "open", "member_2": "charlie"}, "Elige «Un miembro que nombro»"),
        ({"seat_3": "member", "member_3": "Charlie"}, "charlie ya tiene asiento"),
    ],
)
def test_a_named_seat_that_cannot_be_taken_is_said_by_its_field_and_sends_nothing(
    alice, bob, charlie, client_for, seats, error
):
    response = _party(client_for(alice), **seats)
    assert response.status_code == 200
    assert error in response.content.decode()
    assert not Challenge.objects.exists() and not Notification.objects.exists()


def test_a_named_member_who_refuses_challenges_is_refused_and_nobody_is_challenged(
    alice, bob, charlie, client_for
):
    Preferences.objects.filter(user=charlie).update(refuse_challenges=True)
    response = _party(client_for(alice))
    assert "charlie no acepta retos" in response.content.decode()
    assert not Challenge.objects.exists()


def test_the_rate_limit_and_one_open_challenge_per_pair_hold_for_each_named_member(
    alice, bob, charlie, dora, client_for, settings
):
    settings.CHALLENGE_RATE_LIMITS = ((2, 3600),)
    alice_client = client_for(alice)
    _challenge(alice_client, "charlie", players=2)
    # Charlie has an open challenge from Alice already: a party naming him is refused whole.
    response = _party(alice_client)
    assert "Tu reto a charlie sigue esperando respuesta" in response.content.decode()
    assert Challenge.objects.count() == 1
    Challenge.objects.update(status=Challenge.Status.WITHDRAWN)
    _challenge(alice_client, "charlie", players=2)
    Challenge.objects.update(status=Challenge.Status.WITHDRAWN)
    # Twice in the hour: Charlie may not be challenged again, not even as a third member.
    response = _challenge(alice_client, "dora", players=3, seat_2="member", member_2="charlie")
    assert "Ya has retado a charlie bastantes veces" in response.content.decode()
    assert not Challenge.objects.filter(challenged=dora).exists()


def test_house_rules_no_longer_offered_when_the_last_member_says_yes_start_nothing(
    alice, bob, charlie, client_for
):
    _party(client_for(alice))
    lead, third = Challenge.objects.get(challenged=bob), Challenge.objects.get(challenged=charlie)
    _accept(client_for(bob), lead)
    RuleVariant.objects.filter(pk=lead.variant_id).update(active=False)
    charlie_client = client_for(charlie)
    response = _accept(charlie_client, third)
    assert "ya no se ofrecen" in _followed(charlie_client, response)
    assert not Match.objects.exists()


def test_escoba_by_pairs_seats_the_named_partner_across_the_table(
    alice, bob, charlie, dora, client_for
):
    pairs = variant("escoba", "por-parejas")
    data = {
        "game": "escoba",
        "variant": pairs.pk,
        "players": 4,
        "seat_2": "member",
        "member_2": "charlie",
        "seat_3": "member",
        "member_3": "dora",
    }
    client_for(alice).post(reverse("social:challenge_new", args=["bob"]), data)
    for member in (bob, charlie, dora):
        row = Challenge.objects.get(challenged=member)
        _accept(client_for(member), row)
    match = Match.objects.get()
    seats = Seat.objects.filter(match=match).order_by("index")
    assert [s.user_id for s in seats] == [alice.pk, bob.pk, charlie.pk, dora.pk]
    # Seats 1 and 3 play together: the table names Charlie as Alice's partner.
    assert "con charlie" in client_for(alice).get(match.get_absolute_url()).content.decode()


def test_more_players_keeps_the_house_rules_and_the_named_member_already_chosen(
    alice, bob, client_for
):
    chosen = RuleVariant.objects.create(
        game="scout", slug="club", name_es="Del club", name_en="The club's", options={}
    ).pk
    page = client_for(alice).get(
        reverse("social:challenge_new", args=["bob"]),
        {"game": "scout", "variant": chosen, "players": 4, "seat_2": "member", "member_2": "dora"},
        HTTP_HX_REQUEST="true",
    )
    form = page.context["form"]
    assert [f.name for f, _member in form.seat_rows()] == ["seat_2", "seat_3"]
    assert str(form["variant"].value()) == str(chosen)
    assert (form["seat_2"].value(), form["member_2"].value()) == ("member", "dora")
    assert 'name="member_2" value="dora"' in page.content.decode()


def test_the_form_speaks_english_too(alice, bob, english_client_for):
    page = english_client_for(alice).get(
        reverse("social:challenge_new", args=["bob"]) + "?game=scout&players=3"
    )
    text = page.content.decode()
    assert "A member I name" in text and "Member at seat 3" in text
    response = english_client_for(alice).post(
        reverse("social:challenge_new", args=["bob"]),
        {"game": "scout", "variant": variant("scout").pk, "players": 3, "seat_2": "member"},
    )
    assert "Say which member sits here." in response.content.decode()


@pytest.mark.django_db(transaction=True)
def test_the_last_two_members_saying_yes_at_the_same_instant_start_one_match(
    alice, bob, charlie, dora, client_for
):
    """Real simultaneous requests: two threads, each its own connection, released together."""
    _party(client_for(alice), seat_3="member", member_3="dora")
    rows = {row.challenged_id: row for row in Challenge.objects.all()}
    Challenge.objects.filter(challenged=bob).update(agreed_at=timezone.now())
    responses = at_once(client_for, [charlie, dora], lambda client, m: _accept(client, rows[m.pk]))
    codes = [r.status_code for r in responses]
    assert codes == [302, 302]
    assert Match.objects.count() == 1
    assert set(Challenge.objects.values_list("status", flat=True)) == {"accepted"}
