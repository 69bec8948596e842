"""Takebacks, where the house rules allow them: a member asks to take back their last move
until the next move; the others accept (the move is undone) or decline. Never in rated matches,
never for a move that showed the member something new."""

from __future__ import annotations

import threading

import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.urls import reverse

from cardclub.social.models import Takeback
from games import writes
from games.models import Clock, MoveRecord, RuleVariant
from tests.web.table_helpers import engine_state, start_match, variant

pytestmark = pytest.mark.django_db


def allow(game="escoba"):
    RuleVariant.objects.filter(pk=variant(game).pk).update(takebacks=True, rated=False)


def first_move(match, users):
    """The seat to move plays a move that reveals nothing; returns (member, other)."""
    state = engine_state(match)
    seat = match.engine.to_move(state)[0]
    move = next(
        m
        for m in match.engine.legal_moves(state, seat)
        if match.engine.reveals_nothing(state, seat, m)
    )
    writes.play_move(match.pk, users[seat], move.code, match.version)
    match.refresh_from_db()
    return users[seat], users[1 - seat]


def ask(client, match):
    match.refresh_from_db()
    return client.post(reverse("social:takeback", args=[match.pk]), {"v": match.version})


def answer(client, match, yes=True):
    return client.post(
        reverse("social:takeback_answer", args=[match.pk]), {"answer": "yes" if yes else "no"}
    )


def _page(client, response) -> str:
    return client.get(response["Location"]).content.decode()


def test_an_accepted_takeback_undoes_the_move_and_the_mover_moves_again(alice, bob, client_for):
    allow()
    match = start_match("escoba", [alice, bob])
    assert match.takebacks and not match.rated
    fresh = match.state
    mover, other = first_move(match, [alice, bob])
    mover_client, other_client = client_for(mover), client_for(other)
    page = mover_client.get(match.get_absolute_url()).content.decode()
    assert reverse("social:takeback", args=[match.pk]) in page
    assert (
        reverse("social:takeback", args=[match.pk])
        not in other_client.get(match.get_absolute_url()).content.decode()
    )
    ask(mover_client, match)
    page = other_client.get(match.get_absolute_url()).content.decode()
    assert reverse("social:takeback_answer", args=[match.pk]) in page
    answer(other_client, match)
    match.refresh_from_db()
    assert MoveRecord.objects.filter(match=match).count() == 0
    assert match.moves_played == 0 and match.state == fresh
    # The log stays the truth: the stored state is the replay of what is left of it.
    assert match.engine.dump(match.replay()) == match.state
    assert Takeback.objects.get().status == Takeback.Status.ACCEPTED


def test_a_declined_takeback_leaves_the_move_and_ends_the_request(alice, bob, client_for):
    allow()
    match = start_match("escoba", [alice, bob])
    mover, other = first_move(match, [alice, bob])
    ask(client_for(mover), match)
    other_client = client_for(other)
    answer(other_client, match, yes=False)
    assert MoveRecord.objects.filter(match=match).count() == 1
    response = answer(other_client, match)
    assert "No hay ninguna vuelta atrás" in _page(other_client, response)


def test_after_the_next_move_a_takeback_is_refused_and_an_open_one_lapses(alice, bob, client_for):
    allow()
    match = start_match("escoba", [alice, bob])
    mover, other = first_move(match, [alice, bob])
    mover_client = client_for(mover)
    ask(mover_client, match)
    # The other member moves instead of answering: the request is over.
    first_move(match, [alice, bob])
    response = answer(client_for(other), match)
    assert MoveRecord.objects.filter(match=match).count() == 2
    response = ask(mover_client, match)
    assert "Solo tu propia última jugada" in _page(mover_client, response)
    assert MoveRecord.objects.filter(match=match).count() == 2


def test_rated_matches_and_house_rules_without_takebacks_never_offer_one(alice, bob, client_for):
    match = start_match("escoba", [alice, bob])  # standard house rules: rated, no takebacks
    mover, _other = first_move(match, [alice, bob])
    client = client_for(mover)
    assert (
        reverse("social:takeback", args=[match.pk])
        not in client.get(match.get_absolute_url()).content.decode()
    )
    response = ask(client, match)
    assert "no permiten deshacer" in _page(client, response)
    RuleVariant.objects.filter(pk=variant("escoba").pk).update(takebacks=True)  # still rated
    assert not start_match("escoba", [alice, bob]).takebacks


def test_a_move_that_showed_a_new_card_cannot_be_taken_back(alice, client_for):
    allow("schotten_totten")
    match = start_match("schotten_totten", [alice], fillers=["easy"])
    # Play until alice's last move drew her a card (the end of her turn).
    engine = match.engine
    while True:
        state = engine_state(match)
        if 0 not in engine.to_move(state):
            break
        move = engine.legal_moves(state, 0)[-1]
        revealing = not engine.reveals_nothing(state, 0, move)
        writes.play_move(match.pk, alice, move.code, match.version)
        match.refresh_from_db()
        if revealing:
            break
    assert revealing
    client = client_for(alice)
    response = ask(client, match)
    assert "te mostró algo nuevo" in _page(client, response)


def test_takebacks_with_a_clock_are_refused_by_the_house_rules_form():
    rules = variant("escoba")
    rules.takebacks, rules.clock, rules.clock_minutes = True, Clock.LIVE, 5
    with pytest.raises(ValidationError):
        rules.full_clean()


@pytest.mark.django_db(transaction=True)
def test_an_answer_and_the_next_move_at_the_same_instant_leave_one_consistent_match(
    alice, bob, client_for
):
    allow()
    match = start_match("escoba", [alice, bob])
    mover, other = first_move(match, [alice, bob])
    ask(client_for(mover), match)
    match.refresh_from_db()
    state = engine_state(match)
    seat = match.engine.to_move(state)[0]
    code = match.engine.legal_moves(state, seat)[0].code
    barrier = threading.Barrier(2)

    def run(job):
        barrier.wait()
        try:
            job()
        finally:
            connection.close()

    jobs = [
        lambda: answer(client_for(other), match),
        lambda: client_for(other).post(
            reverse("games:move", args=[match.pk]), {"code": code, "v": match.version}
        ),
    ]
    threads = [threading.Thread(target=run, args=(job,)) for job in jobs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    match.refresh_from_db()
    # Either the move was undone (and the other move refused as stale) or the other member's
    # move went first (and the takeback lapsed): the log and the state agree either way.
    assert match.moves_played in (0, 2)
    assert MoveRecord.objects.filter(match=match).count() == match.moves_played
    assert match.engine.dump(match.replay()) == match.state


def test_a_league_fixtures_match_never_allows_a_takeback_even_under_house_rules_that_do(
    alice, bob, client_for
):
    allow()  # unrated house rules with takebacks on: still none for a league fixture
    match = writes.start_match_for([alice, bob], variant("escoba"))
    assert match.for_fixture and not match.takebacks
    mover, _other = first_move(match, [alice, bob])
    client = client_for(mover)
    response = ask(client, match)
    assert "no permiten deshacer" in _page(client, response)
    assert not Takeback.objects.exists()
    assert MoveRecord.objects.filter(match=match).count() == 1
