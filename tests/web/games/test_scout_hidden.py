"""No Scout page or fragment shows a seat a card it may not see, nor the seed.

Seeded matches of 2, 3 and 5 members are played through the web client, move by move; at
regular steps every seat's page (and its htmx fragment, and the second step of a scout & show
when it has one), a spectator's page and the fragment answering each move are searched for the
cards of the other hands, the cards out of play and the cards set aside — in both orientations
and by id, so that neither the card nor its hidden other end leaks.
"""

from __future__ import annotations

import random
import re

import pytest

from games.models import Match
from games.scout import engine
from tests.web.table_helpers import hidden_cards_in, post_move, start_match

pytestmark = pytest.mark.django_db

CASES = [(2, 1), (3, 2), (5, 3)]
MAX_MOVES = 150


def card_id(card: str) -> str:
    low, high = sorted(int(v) for v in card.split("/"))
    return f"{low}-{high}"


def forms(card: str) -> list[str]:
    """A card as it may be written: ``7/3``, ``3/7`` and its id ``3-7``."""
    up, down = card.split("/")
    low, high = sorted((int(up), int(down)))
    return [f"{up}/{down}", f"{down}/{up}", f"{low}-{high}"]


def public_cards(data: dict) -> set[str]:
    """Ids of the cards the table shows face up now: the active set, the taken piles and the
    cards of the recent moves (a scouted card is named there, though it is in a hand now)."""
    cards = list(data["active"]) + [c for pile in data["taken"] for c in pile]
    for entry in data["last_moves"]:
        cards += entry["cards"] + ([entry["scouted"]] if entry["scouted"] else [])
    return {card_id(c) for c in cards}


def hidden_from(data: dict, seat: int | None, public: set[str]) -> list[str]:
    """What ``seat`` must not see: the other hands, except a card the recent moves show being
    scouted into one; the cards out of play or set aside that were never face up."""
    now = public_cards(data)
    others = [
        c
        for i, hand in enumerate(data["hands"])
        if i != seat
        for c in hand
        if card_id(c) not in now
    ]
    away = [c for c in data["deck"] + data["set_aside"] if card_id(c) not in public]
    return [form for card in others + away for form in forms(card)]


def assert_nothing_hidden_leaks(match, clients, spectator, data, state, public):
    for seat, client in enumerate(clients):
        hidden = hidden_from(data, seat, public)
        pages = [client.get(match.get_absolute_url())]
        if seat == match.version % len(clients):  # the htmx fragment, for one seat in turn
            pages.append(client.get(match.get_absolute_url(), HTTP_HX_REQUEST="true"))
        if any(isinstance(m, engine.ScoutShow) for m in engine.legal_moves(state, seat)):
            first = pages[0].content.decode()
            key = re.search(r'href="\?ss=([^"]+)"', first).group(1)
            pages.append(client.get(match.get_absolute_url(), {"ss": key}))
        for response in pages:
            html = response.content.decode()
            assert hidden_cards_in(html, hidden) == [], f"seat {seat} sees hidden cards"
            assert str(match.seed) not in html
    html = spectator.get(match.get_absolute_url()).content.decode()
    assert hidden_cards_in(html, hidden_from(data, None, public)) == []
    assert str(match.seed) not in html


@pytest.mark.parametrize(("players", "seed"), CASES)
def test_no_scout_page_shows_another_seats_cards_or_those_out_of_play(
    players, seed, make_member, client_for
):
    users = [make_member(f"player{i}") for i in range(players)]
    clients = [client_for(user) for user in users]
    spectator = client_for(make_member("watcher"))
    match = start_match("scout", users)
    rng = random.Random(seed)
    phases = set()
    public: set[str] = set()
    for step in range(MAX_MOVES):
        match.refresh_from_db()
        if match.status != Match.Status.PLAYING:
            break
        state = engine.load(match.state)
        if state.round == 3:  # two deals are enough; the 2-player match plays to its end
            break
        data = engine.dump(state)
        new_phase = (state.round, state.phase) not in phases
        phases.add((state.round, state.phase))
        public |= public_cards(data)
        if step % 12 == 0 or new_phase:
            assert_nothing_hidden_leaks(match, clients, spectator, data, state, public)
        seat = engine.to_move(state)[0]
        moves = engine.legal_moves(state, seat)
        shows = [m for m in moves if isinstance(m, engine.Show)]
        # Mostly long shows, so that rounds end and the next deals are checked too.
        if shows and rng.random() < 0.75:
            move = max(shows, key=lambda m: (m.length, rng.random()))
        else:
            move = rng.choice(moves)
        response = post_move(clients[seat], match, move.code)
        assert response.status_code == 200
        after = engine.dump(engine.load(Match.objects.get(pk=match.pk).state))
        public |= public_cards(after)
        fragment = response.content.decode()
        assert hidden_cards_in(fragment, hidden_from(after, seat, public)) == []
    assert (2, engine.DECIDE) in phases, "a second deal was checked too"


def test_the_pages_around_the_table_carry_nothing_that_reads_as_a_scout_card(alice, alice_client):
    # The leak checks above look for card ids ("5-6") as tokens in the whole page, so the
    # header, the bell's drawing and the lobby must not contain one by chance (an SVG path
    # once did: "…0 0 0-5.5-6.84").
    every_card = [f"{low}-{high}" for low in range(1, 11) for high in range(low + 1, 11)]
    for url in ("/", "/play/", "/notifications/", "/rules/"):
        html = alice_client.get(url, follow=True).content.decode()
        assert hidden_cards_in(html, every_card) == [], url
