"""No Schotten Totten page or fragment shows a card its reader may not see, nor the seed.

Seeded matches under each house rule are played through the web client by two members with
random legal moves; at regular steps each seat's page and htmx fragment, and a spectator's page,
are searched for the other hand's cards and the deck's.

One thing is allowed: the cards of a counter-example ("R7 R8 would still beat you"). They are
computed from the cards on the table alone (every card not on a stone is a candidate, wherever it
is), so they tell nothing about where a hidden card lies; the page may name them only in the
list of reasons, and they must be exactly the ones the table context derives from the view.
"""

from __future__ import annotations

import random
import re

import pytest

from games.models import Match
from games.schotten_totten import present
from tests.web.table_helpers import hidden_cards_in, post_move, start_match

pytestmark = pytest.mark.django_db

CASES = [("standard", 1), ("reglas-1999", 2), ("a-3-rondas", 3)]


def counter_cards(engine, state, seat):
    view = engine.view(state, seat)
    moves = engine.legal_moves(state, seat)
    context = present.table_context(view, moves, seat)
    return {c for reason in context["st"]["blocked"] for c in reason["cards"]}


def without_reasons(html):
    return re.sub(r'<section class="panel st-reasons".*?</section>', "", html, flags=re.S)


def assert_nothing_hidden_leaks(match, engine, state, clients):
    data = engine.dump(state)
    for seat, client in enumerate(clients):
        hidden = data["hands"][1 - seat] + data["deck"]
        allowed = counter_cards(engine, state, seat)
        for htmx in (False, True):
            headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
            html = client.get(match.get_absolute_url(), **headers).content.decode()
            assert set(hidden_cards_in(html, hidden)) <= allowed, f"seat {seat} sees hidden cards"
            assert hidden_cards_in(without_reasons(html), hidden) == []
            assert str(match.seed) not in html


@pytest.mark.parametrize(("slug", "seed"), CASES)
def test_no_schotten_totten_page_shows_the_other_hand_or_the_deck(
    slug, seed, make_member, client_for
):
    users = [make_member(f"player{i}") for i in range(2)]
    clients = [client_for(user) for user in users]
    match = start_match("schotten_totten", users, slug=slug)
    spectator = client_for(make_member("watcher"))
    rng = random.Random(seed)
    for step in range(2000):
        match.refresh_from_db()
        if match.status != Match.Status.PLAYING:
            break
        engine = match.engine
        state = engine.load(match.state)
        if step % 20 == 0:
            assert_nothing_hidden_leaks(match, engine, state, clients)
            data = engine.dump(state)
            html = spectator.get(match.get_absolute_url()).content.decode()
            assert hidden_cards_in(html, data["hands"][0] + data["hands"][1] + data["deck"]) == []
        seat = engine.to_move(state)[0]
        moves = engine.legal_moves(state, seat)
        # Claims first, as a member would: the claim phase and its reasons get rendered too.
        claims = [m for m in moves if m.code.startswith("c:")]
        move = claims[0] if claims and rng.random() < 0.7 else rng.choice(moves)
        response = post_move(clients[seat], match, move.code)
        assert response.status_code == 200
        after = engine.load(Match.objects.get(pk=match.pk).state)
        dumped = engine.dump(after)
        leaked = dumped["hands"][1 - seat] + dumped["deck"]
        fragment = without_reasons(response.content.decode())
        assert hidden_cards_in(fragment, leaked) == []
    else:
        raise AssertionError("the match did not end")
    assert match.status == Match.Status.FINISHED
