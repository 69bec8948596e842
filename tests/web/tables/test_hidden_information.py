"""No page or fragment for a seat contains a card it may not see, nor the seed.

Seeded matches are played through the web client, move by move, by the members themselves; at
regular steps every seat's page, its htmx fragment and a spectator's page are searched for the
other hands' cards and the deck's.
"""

from __future__ import annotations

import random

import pytest

from games.models import Match, RuleVariant
from tests.web.table_helpers import hidden_cards_in, post_move, start_match, variant

pytestmark = pytest.mark.django_db

CASES = [
    ("escoba", "standard", 2, 1),
    ("escoba", "standard", 3, 2),
    ("escoba", "por-parejas", 4, 3),
    ("escoba", "renuncio", 2, 4),
]


def assert_nothing_hidden_leaks(match, clients, data):
    for seat, client in enumerate([*clients, None]):
        others = [card for i, hand in enumerate(data["hands"]) if i != seat for card in hand]
        hidden = others + data["deck"] + data.get("set_aside", [])
        for htmx in (False, True):
            if client is None:
                continue
            headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
            html = client.get(match.get_absolute_url(), **headers).content.decode()
            assert hidden_cards_in(html, hidden) == [], f"seat {seat} sees hidden cards"
            assert str(match.seed) not in html


@pytest.mark.parametrize(("game", "slug", "players", "seed"), CASES)
def test_no_page_shows_another_seats_cards_or_the_deck(
    game, slug, players, seed, make_member, client_for, client
):
    users = [make_member(f"player{i}") for i in range(players)]
    clients = [client_for(user) for user in users]
    # The house rules under test, to a lower target so a match spans a few hands, not dozens.
    rules = variant(game, slug)
    RuleVariant.objects.create(
        game=game,
        slug=f"short-{slug}",
        name_es="Corta",
        name_en="Short",
        options={**rules.options, "target": 5},
    )
    match = start_match(game, users, slug=f"short-{slug}")
    rng = random.Random(seed)
    spectator = client_for(make_member("watcher"))
    for step in range(1000):
        match.refresh_from_db()
        if match.status != Match.Status.PLAYING:
            break
        engine = match.engine
        state = engine.load(match.state)
        data = engine.dump(state)
        if step % 12 == 0:
            assert_nothing_hidden_leaks(match, clients, data)
            page = spectator.get(match.get_absolute_url()).content.decode()
            assert hidden_cards_in(page, [c for h in data["hands"] for c in h] + data["deck"]) == []
        seat = engine.to_move(state)[0]
        move = rng.choice(engine.legal_moves(state, seat))
        response = post_move(clients[seat], match, move.code)
        assert response.status_code == 200
        after = engine.dump(engine.load(Match.objects.get(pk=match.pk).state))
        mine_now = after["hands"][seat]
        leaked = [c for i, h in enumerate(after["hands"]) if i != seat for c in h] + after["deck"]
        fragment = response.content.decode()
        assert hidden_cards_in(fragment, [c for c in leaked if c not in mine_now]) == []
    else:
        raise AssertionError("the match did not end")
    assert match.status == Match.Status.FINISHED
