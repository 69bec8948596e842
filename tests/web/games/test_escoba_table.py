"""Escoba's table as every poll and move answer carries it (issue 22): compact cards, the
captures of a crowded table offered in a fragment's share, the last round of moves."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from games.escoba import engine, present
from tests.web.table_helpers import engine_state, post_move, start_match
from tests.web.table_helpers import set_escoba_table as set_table

pytestmark = pytest.mark.django_db

# Ten small cards on the table: every card in Alice's hand can take them in many ways.
CROWDED_TABLE = ["1o", "1c", "1e", "1b", "2o", "2c", "2e", "2b", "3o", "3c"]
ALICE_HAND = ["5o", "6o", "7c"]
BOB_HAND = ["10o", "10c", "10e"]


@pytest.fixture
def crowded(alice, bob):
    return set_table(start_match("escoba", [alice, bob]), CROWDED_TABLE, [ALICE_HAND, BOB_HAND])


def test_the_table_cards_are_checkboxes_and_each_hand_card_that_captures_a_take_button(
    crowded, alice, bob, client_for
):
    html = client_for(alice).get(crowded.get_absolute_url(), HTTP_HX_REQUEST="true")
    html = html.content.decode()
    picks = re.findall(r'<input type="checkbox" name="pick" value="([^"]+)"', html)
    assert picks == CROWDED_TABLE
    takes = re.findall(r'name="code" value="(c:[^"]+)"', html)
    assert takes == [f"c:{card}:*" for card in ALICE_HAND]
    # Who is not to move sees the same cards, nothing to check.
    other = client_for(bob).get(crowded.get_absolute_url(), HTTP_HX_REQUEST="true")
    assert 'name="pick"' not in other.content.decode()


def test_a_capture_made_by_checking_table_cards_changes_the_match_as_its_code_would(
    crowded, alice, client_for
):
    expected = engine.dump(
        engine.apply(engine_state(crowded), 0, engine.parse_move("c:7c:2o+3o+3c"))
    )
    response = client_for(alice).post(
        reverse("games:move", args=[crowded.pk]),
        {"code": "c:7c:*", "pick": ["3o", "2o", "3c"], "v": crowded.version},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200 and not response.context["error"]
    assert engine.dump(engine_state(crowded)) == expected
    assert crowded.moves.get().code == "c:7c:2o+3o+3c"


@pytest.mark.parametrize(
    ("language", "message"),
    [
        ("en", "7 of cups and the table cards you picked make 13, not 15."),
        ("es", "7 de copas y las cartas de la mesa que has marcado suman 13, no 15."),
    ],
)
def test_a_pick_that_does_not_make_15_says_so_and_changes_nothing(
    crowded, alice, client_for, language, message
):
    before = (crowded.version, crowded.state)
    response = client_for(alice).post(
        reverse("games:move", args=[crowded.pk]),
        {"code": "c:7c:*", "pick": ["3o", "3c"], "v": crowded.version},
        HTTP_HX_REQUEST="true",
        HTTP_ACCEPT_LANGUAGE=language,
    )
    assert response.status_code == 200
    assert message in response.content.decode()
    crowded.refresh_from_db()
    assert (crowded.version, crowded.state) == before


def test_checking_every_card_of_a_crowded_table_is_told_its_sum_not_that_it_is_no_move(
    crowded, alice, client_for
):
    response = client_for(alice).post(
        reverse("games:move", args=[crowded.pk]),
        {"code": "c:7c:*", "pick": CROWDED_TABLE, "v": crowded.version},
        HTTP_HX_REQUEST="true",
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert "7 of cups and the table cards you picked make 25, not 15." in response.content.decode()


def test_a_hand_cards_captures_are_buttons_that_play_them_while_they_are_few(
    alice, bob, client_for
):
    hand = ["5o", "7o", "10o"]
    match = set_table(start_match("escoba", [alice, bob]), ["2o", "3e", "5b"], [hand, BOB_HAND])
    html = client_for(alice).get(match.get_absolute_url(), HTTP_HX_REQUEST="true")
    page = html.content.decode()
    ways = dict(
        re.findall(r'<button type="submit" name="code" value="(c:[^"*]+)">([^<]+)</button>', page)
    )
    assert ways == {
        "c:5o:2o+3e+5b": "2 de oros + 3 de espadas + 5 de bastos",
        "c:7o:3e+5b": "3 de espadas + 5 de bastos",
        "c:10o:5b": "5 de bastos",
        "c:10o:2o+3e": "2 de oros + 3 de espadas",
    }
    text = re.sub(r"<[^>]+>", "", page)
    assert "Suma 15 con (un toque y te las llevas): ¡Escoba! Llevarse todas las cartas" in text
    assert text.count("¡Escoba!") == 1
    # Each button plays its capture at once: the picked boxes are not needed.
    client_for(alice).post(
        reverse("games:move", args=[match.pk]), {"code": "c:7o:3e+5b", "v": match.version}
    )
    match.refresh_from_db()
    assert sorted(engine_state(match).table) == ["2o"]


def test_a_crowded_table_counts_the_captures_and_says_when_one_is_an_escoba(alice, bob, client_for):
    table = ["1o", "1c", "1e", "1b", "2o", "2c", "2e", "2b", "3o"]  # 15 in all
    match = set_table(start_match("escoba", [alice, bob]), table, [["4o", "6o", "7c"], BOB_HAND])
    html = client_for(alice).get(match.get_absolute_url(), HTTP_HX_REQUEST="true")
    text = re.sub(r"<[^>]+>", "", html.content.decode())
    counts = {card: len(engine.capture_options(card, table)) for card in ("4o", "6o", "7c")}
    for count in counts.values():
        assert f"{count} maneras de sumar 15 con la mesa." in text
    assert text.count("¡Escoba! Llevarse todas las cartas de la mesa es escoba.") == 0
    table.remove("3o")  # 12 in all: the 3 de oros makes an escoba
    match = set_table(match, table, [["3c", "6o", "7c"], BOB_HAND])
    html = client_for(alice).get(match.get_absolute_url(), HTTP_HX_REQUEST="true")
    text = re.sub(r"<[^>]+>", "", html.content.decode())
    assert text.count("¡Escoba! Llevarse todas las cartas de la mesa es escoba.") == 1


# The worst tables a fragment may carry, at four players with their last round of moves:
# eighteen small cards that the hand can take in hundreds of ways after a round of captures,
# and every card but the mover's last one, when nobody captured for a whole hand.
SMALL_CARDS = [c for c in engine.DECK if engine.VALUE[c] <= 4] + ["5o", "5c"]
WORST = {
    "many captures": (
        SMALL_CARDS,
        [["5e", "6o", "7o"], ["5b", "6c", "7c"], ["6e", "7e", "8o"], ["6b", "7b", "8c"]],
        [("capture", "10o", ["1o", "4o"]), ("capture", "9o", ["2o", "4c"])] * 2,
    ),
    "every card": (
        [c for c in engine.DECK if c != "7o"],
        [["7o"], [], [], []],
        [("lay", "10o", []), ("lay", "10c", []), ("lay", "10e", []), ("lay", "10b", [])],
    ),
}


@pytest.mark.parametrize("position", WORST)
def test_a_crowded_four_player_fragment_offers_every_capture_within_ten_kilobytes(
    position, make_member, client_for
):
    table, hands, events = WORST[position]
    members = [make_member(f"player{n}") for n in range(4)]
    match = set_table(start_match("escoba", members), table, hands)
    data = match.engine.dump(engine_state(match))
    data["last_moves"] = [
        [1, (seat + 1) % 4, kind, card, taken, 0, None]
        for seat, (kind, card, taken) in enumerate(events)
    ]
    match.state, match.moves_played = data, 20
    match.save()
    legal = [m for m in engine.legal_moves(engine_state(match), 0) if m.take]
    assert legal
    for n, member in enumerate(members):
        html = client_for(member).get(match.get_absolute_url(), HTTP_HX_REQUEST="true")
        html = html.content.decode()
        assert len(html.encode()) < 10 * 1024, (n, len(html.encode()))
        if n == 0:
            picks = set(re.findall(r'name="pick" value="([^"]+)"', html))
            takes = set(re.findall(r'name="code" value="(c:[^"]+):\*"', html))
            # Every capture the engine allows is a set of checkboxes and its card's button.
            assert all(set(m.take) <= picks and f"c:{m.card}" in takes for m in legal)


def test_cards_beside_words_are_small_and_carry_no_name_of_their_own(
    crowded, alice, bob, client_for
):
    response = post_move(client_for(alice), crowded, "c:7c:2o+3o+3c")
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
