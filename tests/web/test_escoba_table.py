"""Escoba's table as every poll and move answer carries it (issue 22): compact cards, the
captures of a crowded table offered in a fragment's share, the last round of moves."""

from __future__ import annotations

import re

import pytest

from games.escoba import engine, present
from games.escoba.templatetags.escoba_tags import FRAGMENT_CAPTURES

from .table_helpers import engine_state, post_move, start_match

pytestmark = pytest.mark.django_db

# Ten small cards on the table: every card in Alice's hand can take them in many ways.
CROWDED_TABLE = ["1o", "1c", "1e", "1b", "2o", "2c", "2e", "2b", "3o", "3c"]
ALICE_HAND = ["5o", "6o", "7c"]
BOB_HAND = ["10o", "10c", "10e"]


def set_table(match, table, hands, turn=0):
    """Write a hand-made position into ``match`` (the rest of the cards form the deck)."""
    data = match.engine.dump(engine_state(match))
    used = table + [c for h in hands for c in h]
    data["table"], data["hands"], data["turn"] = list(table), [list(h) for h in hands], turn
    data["deck"] = [c for c in engine.DECK if c not in used]
    data["history"] = []
    match.state = match.engine.dump(match.engine.load(data))
    match.save()
    return match


@pytest.fixture
def crowded(alice, bob):
    return set_table(start_match("escoba", [alice, bob]), CROWDED_TABLE, [ALICE_HAND, BOB_HAND])


def capture_buttons(html: str) -> list[str]:
    return re.findall(r'<button type="submit" name="code" value="(c:[^"]+)"', html)


def test_a_fragment_offers_a_share_of_many_captures_and_the_page_offers_them_all(
    crowded, alice, client_for
):
    client = client_for(alice)
    every = {m.code for m in engine.legal_moves(engine_state(crowded), 0) if m.take}
    page = client.get(crowded.get_absolute_url()).content.decode()
    assert set(capture_buttons(page)) == every
    fragment = client.get(crowded.get_absolute_url(), HTTP_HX_REQUEST="true").content.decode()
    offered = capture_buttons(fragment)
    assert len(offered) == FRAGMENT_CAPTURES // len(ALICE_HAND) * len(ALICE_HAND) < len(every)
    assert set(offered) <= every
    # Each card whose captures were cut links to the page, which offers them all.
    assert fragment.count(f'href="{crowded.get_absolute_url()}#hand-h"') == len(ALICE_HAND)
    assert len(fragment.encode()) < 10 * 1024


def capture_code(match, card, taken):
    """The code of the capture of ``taken`` with ``card`` (as the engine writes it)."""
    for move in engine.legal_moves(engine_state(match), 0):
        if move.card == card and set(move.take or ()) == set(taken):
            return move.code
    raise AssertionError("no such capture")


def test_a_capture_is_a_button_named_by_its_cards_in_words(crowded, alice, client_for):
    code = capture_code(crowded, "7c", ["3o", "3c", "2o"])
    page = client_for(alice).get(crowded.get_absolute_url()).content.decode()
    button = re.search(
        rf'<button type="submit" name="code" value="{re.escape(code)}">(.*?)</button>', page
    )
    assert button.group(1).startswith("Llevarse ")
    assert sorted(button.group(1).removeprefix("Llevarse ").split(", ")) == [
        "2 de oros",
        "3 de copas",
        "3 de oros",
    ]


def test_cards_beside_words_are_small_and_carry_no_name_of_their_own(
    crowded, alice, bob, client_for
):
    response = post_move(
        client_for(alice), crowded, capture_code(crowded, "7c", ["3o", "3c", "2o"])
    )
    assert not response.context["error"]
    html = client_for(bob).get(crowded.get_absolute_url(), HTTP_HX_REQUEST="true").content.decode()
    moves = re.search(r'<ul class="last-moves">(.*?)</ul>', html, re.S).group(1)
    assert '<i class="ek c">7</i>' in moves and "role=" not in moves and "aria-label" not in moves
    # The cards on the table are named once, for screen readers, and carry no title besides.
    assert 'role="img" aria-label="2 de copas" data-card="2c"' in html
    assert "title=" not in html


def event(kind, seat, hand=1):
    return {"kind": kind, "seat": seat, "hand": hand, "card": "1o", "cards": [], "escobas": 0}


def test_the_last_moves_are_the_last_round_with_what_followed_from_it():
    events = [event("lay", s % 4) for s in range(6)] + [event("last_take", 1)]
    view = {"last_moves": events, "hand_sizes": [0, 0, 0, 0]}
    assert present.recent_events(view) == events[2:]
    assert present.recent_events({**view, "last_moves": events[:2]}) == events[:2]


def test_the_scoring_of_a_hand_stays_for_the_first_round_of_the_next():
    last_hand = {"hand": 1, "sides": []}
    view = {
        "table": [],
        "sides": [],
        "hand_sizes": [3, 3],
        "last_hand": last_hand,
        "last_moves": [event("lay", 0), event("last_take", 0), event("lay", 1, hand=2)],
    }
    assert present.table_context(view, [], 0)["last_hand"] == last_hand
    view["last_moves"] += [event("lay", 0, hand=2), event("lay", 1, hand=2)]
    assert present.table_context(view, [], 0)["last_hand"] is None
