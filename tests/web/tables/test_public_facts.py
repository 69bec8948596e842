"""Templates see only what may be shown: the seat's view and the match's public facts, never the
``Match`` (its state holds every hidden card, its seed every card to come) nor an object that
leads to it (a ``Seat`` knows its match, a member their seats)."""

from __future__ import annotations

import dataclasses
import types

import pytest
from django.db import models
from django.urls import reverse

from games.models import Match
from tests.web.club_night import play
from tests.web.table_helpers import post_move, start_match

pytestmark = pytest.mark.django_db

# What the site's context processors put in every page (the request and the member, the
# messages, the bell): not the table's own context.
SITE_WIDE = {"request", "user", "perms", "messages", "csrf_token", "DEFAULT_MESSAGE_LEVELS"}


def secrets_in(value, path: str, seen: set[int]) -> list[str]:
    """Where, under ``value``, an object with a ``state`` or a ``seed`` is, or a model instance
    (which reaches the match by its relations)."""
    if isinstance(value, str | bytes | int | float | bool | type(None)) or id(value) in seen:
        return []
    seen.add(id(value))
    found = []
    if isinstance(value, models.Model) or hasattr(value, "state") or hasattr(value, "seed"):
        found.append(f"{path}: {type(value).__name__}")
    if isinstance(value, dict):
        items = value.items()
    elif isinstance(value, list | tuple | set | frozenset):
        items = enumerate(value)
    elif isinstance(value, type | types.ModuleType | types.FunctionType):
        items = ()
    elif dataclasses.is_dataclass(value):
        items = ((f.name, getattr(value, f.name)) for f in dataclasses.fields(value))
    elif type(value).__module__.startswith(("games", "cardclub")) and hasattr(value, "__dict__"):
        items = vars(value).items()  # the club's own objects, attribute by attribute
    else:
        items = ()
    for key, item in items:
        found += secrets_in(item, f"{path}.{key}", seen)
    return found


def table_secrets(response) -> list[str]:
    """What the scan finds in the context of every template the response rendered."""
    assert response.status_code == 200
    contexts = response.context if isinstance(response.context, list) else [response.context]
    found = []
    for context in contexts:
        for name, value in context.flatten().items():
            if name not in SITE_WIDE:
                found += secrets_in(value, name, set())
    return sorted(set(found))


def test_the_scan_finds_a_match_a_seat_and_a_member_wherever_they_are(alice, bob):
    match = start_match("escoba", [alice, bob])
    seat = match.seats.first()
    assert secrets_in({"m": [match]}, "ctx", set()) == ["ctx.m.0: Match"]
    assert secrets_in({"s": (seat,)}, "ctx", set())[0] == "ctx.s.0: Seat"
    assert secrets_in({"u": alice}, "ctx", set())[0] == "ctx.u: User"


@pytest.mark.parametrize("game", ["escoba", "schotten_totten", "scout"])
def test_no_table_page_or_fragment_hands_a_template_the_match_or_its_seed(
    game, alice, bob, client_for
):
    fillers = ["easy"] if game == "scout" else []
    match = play(start_match(game, [alice, bob], fillers=fillers), [alice, bob], moves=2)
    client = client_for(alice)
    url = match.get_absolute_url()
    hx = {"HTTP_HX_REQUEST": "true"}
    pages = {
        "page": client.get(url),
        "fragment": client.get(url, **hx),
        "poll": client.get(reverse("games:poll", args=[match.pk]), {"v": 0}, **hx),
        "log": client.get(reverse("games:log", args=[match.pk])),
        "spectator": client_for(bob).get(url),
    }
    for name, response in pages.items():
        assert table_secrets(response) == [], name
        assert response.context["match"].pk == match.pk


def test_neither_a_move_nor_the_replay_hands_a_template_the_match(alice, bob, client_for):
    match = start_match("escoba", [alice, bob])
    clients = [client_for(alice), client_for(bob)]
    state = match.engine.load(match.state)
    seat = match.engine.to_move(state)[0]
    move = post_move(clients[seat], match, match.engine.legal_moves(state, seat)[0].code)
    assert table_secrets(move) == []
    match = play(match, [alice, bob])
    assert match.status == Match.Status.FINISHED
    for step in (0, 3, None):
        query = {} if step is None else {"step": step}
        replay = clients[0].get(reverse("games:replay", args=[match.pk]), query)
        assert table_secrets(replay) == [], step


def test_the_public_facts_read_as_the_match_does(alice, bob, client_for):
    match = start_match("escoba", [alice, bob])
    facts = client_for(alice).get(match.get_absolute_url()).context["match"]
    assert (facts.pk, facts.game, facts.status, facts.version) == (
        match.pk,
        match.game,
        match.status,
        match.version,
    )
    assert facts.get_game_display() == match.get_game_display()
    assert facts.get_absolute_url() == match.get_absolute_url()
    assert facts.variant.name == match.variant.name and facts.free_seats == []
    assert [s.display_name for s in facts.seats] == ["alice", "bob"]
    assert facts.for_fixture is match.for_fixture is False
    with pytest.raises(dataclasses.FrozenInstanceError):
        facts.status = "finished"
