"""Each committed version of a match is read once per process and shown to each seat as its
own (issue 34): the kept match is the database's, and every seat's view is still its own."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from games import registry, versions, writes
from games.models import Match, Seat
from tests.web.table_helpers import engine_state, hidden_cards_in, post_move, start_match

HIDDEN_HANDS = ["escoba", "scout", "schotten_totten"]
# A form's CSRF token is masked afresh on every answer: the rest must be the same.
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="[^"]*"')


def fetch(client, match, shown_version):
    response = client.get(
        reverse("games:poll", args=[match.pk]), {"v": shown_version}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 200
    return CSRF.sub("csrf", response.content.decode())


def move_first_legal(match, players):
    state = engine_state(match)
    seat = match.engine.to_move(state)[0]
    client_move = match.engine.legal_moves(state, seat)[0].code
    writes.play_move(match.pk, players[seat], client_move, match.version)
    match.refresh_from_db()


@pytest.mark.parametrize("game", HIDDEN_HANDS)
def test_a_seat_fetching_a_version_another_seat_read_sees_exactly_its_own_table(
    game, alice, bob, client_for
):
    match = start_match(game, [alice, bob])
    move_first_legal(match, [alice, bob])
    shown = match.version - 1
    alice_first = fetch(client_for(alice), match, shown)  # read, and kept
    assert versions.kept(versions.key_of(match)) is not None
    bob_from_kept = fetch(client_for(bob), match, shown)
    versions.forget_all()
    bob_read_afresh = fetch(client_for(bob), match, shown)
    assert bob_from_kept == bob_read_afresh
    assert bob_from_kept != alice_first  # each seat its own hand


@pytest.mark.parametrize("game", HIDDEN_HANDS)
def test_no_card_of_one_seats_hand_reaches_the_other_seat_through_the_kept_match(
    game, alice, bob, client_for
):
    match = start_match(game, [alice, bob])
    fetch(client_for(alice), match, match.version - 1)
    state = engine_state(match)
    bob_page = fetch(client_for(bob), match, match.version - 1)
    alice_view, bob_view = match.engine.view(state, 0), match.engine.view(state, 1)
    assert alice_view != bob_view
    # What bob is sent is what the engine lets seat 1 see, whoever read the version first.
    versions.forget_all()
    assert fetch(client_for(bob), match, match.version - 1) == bob_page


def test_the_seat_fetching_after_another_gets_none_of_that_seats_hand_nor_the_deck(
    alice, bob, client_for
):
    match = start_match("escoba", [alice, bob])
    fetch(client_for(alice), match, match.version - 1)  # alice's fetch reads and keeps it
    data = match.engine.dump(engine_state(match))
    bob_page = fetch(client_for(bob), match, match.version - 1)
    assert hidden_cards_in(bob_page, data["hands"][0] + data["deck"]) == []
    assert hidden_cards_in(bob_page, data["hands"][1]) != []  # his own hand is there


def test_the_next_version_is_read_and_drawn_again(alice, bob, client_for):
    match = start_match("escoba", [alice, bob])
    client = client_for(bob)
    before = fetch(client, match, match.version - 1)
    move_first_legal(match, [alice, bob])
    after = fetch(client, match, match.version - 1)
    assert f'data-version="{match.version}"' in after
    assert f'data-version="{match.version}"' not in before
    assert Match.objects.get(pk=match.pk).version == match.version


def test_a_fetch_of_a_kept_version_reads_only_the_match_row(
    alice, bob, client_for, django_assert_num_queries
):
    match = start_match("escoba", [alice, bob])
    alice_client, bob_client = client_for(alice), client_for(bob)
    fetch(alice_client, match, 0)
    fetch(bob_client, match, 0)  # the session and member loaded once
    versions.forget_all()
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as afresh:
        fetch(bob_client, match, 0)
    with CaptureQueriesContext(connection) as kept:
        fetch(bob_client, match, 0)
    assert len(kept) == len(afresh) - 2  # neither the match with its variant nor its seats


def test_the_move_keeps_the_version_it_committed_for_the_other_pages(alice, bob, client_for):
    match = start_match("escoba", [alice, bob])
    state = engine_state(match)
    seat = match.engine.to_move(state)[0]
    mover = client_for([alice, bob][seat])
    assert post_move(mover, match, match.engine.legal_moves(state, seat)[0].code).status_code == 200
    match.refresh_from_db()
    assert versions.kept(versions.key_of(match)) is not None


def test_what_one_request_marks_on_its_copy_never_reaches_the_kept_match(alice, bob):
    match = start_match("escoba", [alice, bob])
    key = versions.current_key(match.pk)
    from games import access

    first = access.match_to_show(match.pk, key)
    first.seats.all()[0].clock = {"ms": 1}
    first.status = "finished"
    second = versions.kept(key)
    assert second.status == Match.Status.PLAYING
    assert not hasattr(second.seats.all()[0], "clock")
    # Its seats are its own and hold no reference back to it (no cycle per request, issue 34).
    seat = second.seats.all()[0]
    assert seat.match_id == second.pk and not Seat.match.field.is_cached(seat)


@pytest.fixture
def count_loads(monkeypatch):
    """From when it is called: the engine states ``game``'s engine loads from a row."""

    def count(game):
        engine, loads = registry.engine(game), []
        real_load = engine.load
        monkeypatch.setattr(engine, "load", lambda data: loads.append(1) or real_load(data))
        return loads

    return count


@pytest.mark.parametrize("game", HIDDEN_HANDS)
def test_the_other_seat_fetching_the_version_a_move_committed_loads_no_state(
    game, alice, bob, client_for, count_loads
):
    match = start_match(game, [alice, bob])
    state = engine_state(match)
    seat = match.engine.to_move(state)[0]
    players = [alice, bob]
    shown = match.version
    code = match.engine.legal_moves(state, seat)[0].code
    assert post_move(client_for(players[seat]), match, code).status_code == 200
    loads = count_loads(game)
    other_page = fetch(client_for(players[1 - seat]), match, shown)
    assert loads == []  # the move's own state, kept with its version
    versions.forget_all()
    assert fetch(client_for(players[1 - seat]), match, shown) == other_page
    assert loads == [1]


def test_a_version_read_afresh_is_loaded_once_for_every_seat_that_fetches_it(
    alice, bob, client_for, count_loads
):
    match = start_match("scout", [alice, bob])
    loads = count_loads("scout")
    alice_page = fetch(client_for(alice), match, match.version - 1)
    bob_page = fetch(client_for(bob), match, match.version - 1)
    assert loads == [1]
    assert alice_page != bob_page  # one state, each seat's own view of it


def test_held_seats_asked_afresh_are_the_matchs_own_in_the_order_of_their_index(alice, bob):
    match = start_match("escoba", [alice, bob])
    start_match("scout", [bob, alice])  # another match's seats, which no query may bring
    held = Match.read_with_rules(match.pk)
    held.read_seats()
    assert [s.index for s in held.seats.all()] == [0, 1]
    assert [s.user_id for s in held.seats.filter(index__gte=0)] == [alice.pk, bob.pk]
    assert held.seats.count() == 2
    assert [s.index for s in held.seats.order_by("-index")] == [1, 0]
    assert list(held.seats.filter(user=bob).values_list("index", flat=True)) == [1]
