"""Helpers for driving matches through the web client in tests."""

from __future__ import annotations

import re

from django.urls import reverse

from games import bot_moves, writes
from games.models import Match, RuleVariant


def variant(game: str, slug: str = "standard") -> RuleVariant:
    return RuleVariant.objects.get(game=game, slug=slug)


def start_match(game: str, users, slug: str = "standard", fillers=None, deal=None) -> Match:
    """A started match with ``users`` in seats 0.. and, optionally, bots after them. ``deal``:
    the match's seed, for a given deal (with two members or more: the cards are dealt when the
    last one sits down)."""
    fillers = list(fillers or [])
    players = len(users) + len(fillers)
    match = writes.create_match(
        users[0], variant(game, slug), players, ["open"] * (len(users) - 1) + fillers
    )
    if deal is not None:
        assert len(users) > 1, "a table of one member is dealt at once"
        Match.objects.filter(pk=match.pk).update(seed=deal)
    for user in users[1:]:
        writes.join_match(match.pk, user)
    run_bots(match)
    match.refresh_from_db()
    return match


def run_bots(match: Match) -> int:
    """Play the bot moves the worker would, until a member is to move; how many were played.

    Inside a test's transaction nothing commits, so the bot task queued on commit never runs;
    tests that need the bots to reply call this (or capture the on-commit callbacks).
    """
    played = 0
    while True:
        version = Match.objects.values_list("version", flat=True).get(pk=match.pk)
        if not bot_moves.play_bot_move(match.pk, version):
            return played
        played += 1


def engine_state(match: Match):
    match.refresh_from_db()
    return match.engine.load(match.state)


def post_move(client, match: Match, code: str, version: int | None = None, htmx: bool = True):
    data = {"code": code, "v": match.version if version is None else version}
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    return client.post(reverse("games:move", args=[match.pk]), data, **headers)


def hidden_cards_in(html: str, cards) -> list[str]:
    """The card ids of ``cards`` that appear in the page as a token (a move code, an id, a
    label built from the id)."""
    found = []
    for card in cards:
        if re.search(rf"(?<![\w/-]){re.escape(card)}(?![\w/])", html):
            found.append(card)
    return found


def fragment_sizes(clients: dict, match: Match, seed: int, moves: int) -> dict[str, list]:
    """Play ``moves`` random legal moves at ``match`` through the web, as htmx sends them, and
    the sizes in bytes of what came back: ``move`` (the mover's fragment) and ``poll`` (the
    fragment every other member's page fetches once the table has changed), each as
    ``(bytes, seat, version)``. ``clients`` maps seat index to that member's logged-in client.
    """
    import random

    rng = random.Random(seed)
    sizes: dict[str, list] = {"move": [], "poll": []}
    poll_url = reverse("games:poll", args=[match.pk])
    for _ in range(moves):
        match.refresh_from_db()
        if match.status != Match.Status.PLAYING:
            break
        state = match.engine.load(match.state)
        seat = match.engine.to_move(state)[0]
        code = rng.choice(match.engine.legal_moves(state, seat)).code
        was = match.version
        response = post_move(clients[seat], match, code)
        assert response.status_code == 200, response.content[:300]
        sizes["move"].append((len(response.content), seat, was))
        for other, client in clients.items():
            if other != seat:
                # As the page's own poll asks: the version and the status it shows.
                response = client.get(f"{poll_url}?v={was}&s=playing", HTTP_HX_REQUEST="true")
                assert response.status_code == 200
                sizes["poll"].append((len(response.content), other, was))
    return sizes


def league_fixture_match(game: str, members):
    """A one-fixture league season of ``members`` whose match has started (everyone ready):
    the fixture and its match."""
    from datetime import date

    from cardclub.leagues import actions as league_actions
    from cardclub.leagues.models import Fixture, League, Season

    league = League.objects.create(name="Liga", game=game, variant=variant(game))
    season = Season.objects.create(league=league, name="2026", starts_on=date.today())
    for member in members:
        season.add_player(member)
    season.generate_fixtures()
    fixture = Fixture.objects.get(round__season=season)
    for member in members:
        fixture = league_actions.say_ready(fixture.pk, member)
    return fixture, fixture.match


def set_escoba_table(match: Match, table, hands, turn=0) -> Match:
    """Write a hand-made Escoba position into ``match`` (the rest of the cards form the deck)."""
    from games.escoba.engine import DECK

    data = match.engine.dump(engine_state(match))
    used = table + [c for h in hands for c in h]
    data["table"], data["hands"], data["turn"] = list(table), [list(h) for h in hands], turn
    data["deck"] = [c for c in DECK if c not in used]
    data["last_moves"] = []
    match.state = match.engine.dump(match.engine.load(data))
    match.save()
    return match
