"""The Schotten Totten table through the web client: every phase, move kind and house rule.

Positions are set up by writing an engine dump into the match (the engine's own format), so
that each test starts exactly where the phase it checks begins.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import translation

from games import registry, writes
from games.models import Match
from games.schotten_totten import engine, present
from games.schotten_totten.templatetags.schotten_totten_tags import st_card_html
from tests.web.table_helpers import engine_state, post_move, start_match

pytestmark = pytest.mark.django_db

KEY = "schotten_totten"
STATIC = Path(registry.get(KEY).path) / "static" / KEY

# A position in the middle of a round, seat 0 (alice) to play; the tuple per stone is
# (seat 0's cards, seat 1's cards, seat that completed first).
POSITION = {
    0: (["R9", "R8"], ["G1"], None),  # R7 from alice's hand makes a colour run nobody can beat
    1: (["O1", "O2", "Y4"], ["B5"], 0),  # full, but three 5s would still beat it
    4: (["O3", "Y5", "G8"], ["B9", "B8", "B7"], 0),  # bob's colour run beats alice's sum
    5: (["R1", "G2", "B4"], ["P1", "Y2", "R4"], 1),  # a tie of kind and sum: bob completed first
    6: (["R6"], ["O6", "Y7", "P9"], 1),  # bob's full stone that R5 R7 could still beat
}
ALICE_HAND = ["R7", "Y1", "Y3", "P2", "P3", "G9"]
BOB_HAND = ["B1", "B2", "B3", "G3", "G4", "G5"]


def set_position(
    match,
    stones,
    hands,
    turn=0,
    phase="play",
    owners=None,
    round_index=None,
    scores=None,
    results=None,
):
    """Write a hand-made position into ``match`` (the rest of the cards form the deck)."""
    data = match.engine.dump(engine_state(match))
    owners = owners or {}
    used = [c for h in hands for c in h]
    data["stones"] = []
    for s in range(engine.STONES):
        mine, theirs, first = stones.get(s, ([], [], None))
        used += mine + theirs
        data["stones"].append(
            {"cards": [list(mine), list(theirs)], "owner": owners.get(s), "completed_first": first}
        )
    assert len(set(used)) == len(used), "a card is placed twice"
    data["hands"] = [list(h) for h in hands]
    data["deck"] = [c for c in engine.DECK if c not in used]
    data["turn"], data["phase"] = turn, phase
    if round_index is not None:
        data["round"] = round_index
    if scores is not None:
        data["scores"] = scores
    if results is not None:
        data["round_results"] = results
    data["last_moves"] = []
    match.state = engine.dump(engine.load(data))
    match.save()
    return match


@pytest.fixture
def match(alice, bob):
    m = start_match(KEY, [alice, bob])
    return set_position(m, POSITION, [ALICE_HAND, BOB_HAND])


def page(client, match, htmx=False):
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    response = client.get(match.get_absolute_url(), **headers)
    assert response.status_code == 200
    return response.content.decode()


def stone_column(html, index):
    """The HTML of one stone's column (stone ``index`` 0-8), from just after its ``<li``."""
    board = re.search(r'<ol class="st-board[^"]*"[^>]*>(.*?)</ol>', html, re.S).group(1)
    return re.split(r"<li\b", board)[1:][index]


def column_classes(column):
    """The classes of a stone's column (claimable, winning, owned-me, owned-opp)."""
    found = re.match(r' class="([^"]*)"', column)
    return set(found.group(1).split()) if found else set()


def codes_in(html):
    return re.findall(r'name="code" value="([^"]+)"', html)


def card_name(html, card):
    """What a screen reader reads of the card ``card`` in ``html``: its value and the words
    around it (the card is text, not an image)."""
    inner = re.search(rf'<i[^>]* data-card="{card}">(.*?)</i>', html).group(1)
    return re.sub(r"<[^>]+>", "", inner)


def picks_in(html):
    """The cards the member may pick (the radios "pick"), in hand order."""
    return re.findall(r'name="pick" value="([^"]+)"', html)


def offered(html):
    """Every move the page lets the member make: a code with "*" once per card to pick."""
    moves = set()
    for code in codes_in(html):
        moves |= {code.replace("*", card) for card in picks_in(html)} if "*" in code else {code}
    return moves


def test_the_member_to_play_picks_a_card_then_a_stone_among_those_that_take_it(
    match, alice, client_for
):
    html = page(client_for(alice), match)
    state = engine_state(match)
    legal = {m.code for m in engine.legal_moves(state, 0)}
    # Every legal play, and nothing else, is a card to pick times a stone's button.
    assert offered(html) == legal
    # One radio per hand card, each named by its label, which shows the card.
    assert picks_in(html) == ALICE_HAND
    for i, card in enumerate(ALICE_HAND):
        assert re.search(rf'<input type="radio" name="pick" value="{card}" id="pk{i}"', html)
        label = re.search(rf'<label for="pk{i}"[^>]*>(.*?)</label>', html).group(1)
        assert card_name(label, card) == present.card(card)["name"]
    # One "play here" button per stone that takes a card: the open ones on alice's side.
    open_stones = {s for s in range(9) if len(state.sides[s][0]) < 3}
    for s in range(9):
        column = stone_column(html, s)
        plays = [c for c in codes_in(column) if c.startswith("p:")]
        assert plays == ([f"p:*:{s}"] if s in open_stones else [])
        if s in open_stones:
            assert f'aria-label="Jugar la carta elegida en el mojón {s + 1}"' in column
    assert 'class="badge turn"' in html


def test_the_waiting_member_sees_the_table_and_no_move(match, bob, client_for):
    html = page(client_for(bob), match)
    assert codes_in(html) == []
    assert picks_in(html) == []
    # Bob sits below: his cards are in his side of each stone, alice's above.
    column = stone_column(html, 4)
    mine = column.split('class="mine"')[1]
    assert all(f'data-card="{c}"' in mine for c in ["B9", "B8", "B7"])
    assert 'data-hand-size="6"' in html


def test_cards_of_each_side_are_shown_in_the_order_played_with_formation_names(
    match, alice, client_for
):
    html = page(client_for(alice), match)
    column = stone_column(html, 4)
    opp, mine = column.split('class="mine"')
    assert re.findall(r'data-card="(\w+)"', opp) == ["B9", "B8", "B7"]
    assert re.findall(r'data-card="(\w+)"', mine) == ["O3", "Y5", "G8"]
    # Every complete side shows its formation and total; incomplete ones none.
    assert len(re.findall(r"<small", html)) == 6
    assert re.search(r"<b>24</b>", column)  # B7 B8 B9
    assert re.search(r"<b>16</b>", column)  # O3 Y5 G8
    tie = stone_column(html, 5)
    assert '<small class="first">' in tie.split('class="mine"')[0]


def test_every_card_has_a_symbol_and_a_name_for_screen_readers_and_no_english_letter(
    match, alice, client_for
):
    html = page(client_for(alice), match)
    for card in ALICE_HAND + ["B9", "O3"]:
        assert card_name(html, card) == present.card(card)["name"]
    # The words are for screen readers (hidden by table.css); the value is all the card shows:
    # no colour letter (English initials in a Spanish page, and Spanish ones would clash).
    assert re.search(r'data-card="R7">7<b> rojo</b></i>', html)
    # In English the words come before the value.
    with translation.override("en"):
        assert st_card_html("R7") == '<i data-card="R7"><b>Red </b>7</i>'
    css = (STATIC / "table.css").read_text()
    assert re.search(r"\[data-card\] b \{[^}]*clip: rect\(0 0 0 0\)", css)
    # The card's id gives it its colour and its symbol (table.css), each colour its own drawing.
    drawn = dict(re.findall(r'\[data-card\^="(\w)"\][^{]*\{[^}]*--sym: url\(([^)]+)\)', css))
    assert set(drawn) == set(present.COLOURS) and len(set(drawn.values())) == 6
    assert all((STATIC / path).is_file() for path in drawn.values())
    assert len({symbol for _name, _card, symbol in present.COLOURS.values()}) == 6


def test_a_play_opens_the_claim_phase_with_a_claim_button_and_the_end_of_turn(
    match, alice, client_for
):
    client = client_for(alice)
    response = post_move(client, match, "p:R7:0")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="table"' in html and "<html" not in html
    state = engine_state(match)
    assert state.phase == "claim"
    assert set(codes_in(html)) == {"c:0", "end"}
    assert column_classes(stone_column(html, 0)) == {"claimable"}
    assert 'data-stone="0"' in html
    # Nothing to pick or play any more: the card has been played.
    assert picks_in(html) == [] and not any(c.startswith("p:") for c in codes_in(html))


def test_claiming_a_stone_moves_it_to_the_member_and_ends_the_turn(match, alice, client_for):
    client = client_for(alice)
    post_move(client, match, "p:R7:0")
    match.refresh_from_db()
    html = post_move(client, match, "c:0").content.decode()
    state = engine_state(match)
    assert state.owners[0] == 0
    # Nothing more to claim: the turn ended by itself and alice drew.
    assert state.turn == 1 and len(state.hands[0]) == 6
    column = stone_column(html, 0)
    # The stone moves to the side of who holds it (table.css places it by that class).
    assert column_classes(column) == {"owned-me"}
    bob_view = page(client_for(match.seats.get(index=1).user), match)
    assert column_classes(stone_column(bob_view, 0)) == {"owned-opp"}


def test_ending_the_turn_without_claiming_draws_a_card(match, alice, client_for):
    client = client_for(alice)
    post_move(client, match, "p:R7:0")
    match.refresh_from_db()
    deck = len(engine_state(match).deck)
    post_move(client, match, "end")
    state = engine_state(match)
    assert state.owners[0] is None and state.turn == 1
    assert len(state.deck) == deck - 1


def test_a_full_stone_that_cannot_be_claimed_shows_the_engines_counter_example(
    match, alice, client_for
):
    html = page(client_for(alice), match)
    state = engine_state(match)
    view = engine.view(state, 0)
    counters = {c["stone"]: c["cards"] for c in view["counter_examples"]}
    assert set(counters) == {1, 4, 5}
    reason = re.search(r'<li id="st-why-2">(.*?)</li>', html, re.S).group(1)
    assert ", ".join(present.card(c)["name"] for c in counters[1]) in reason
    # Stones lost to a full, stronger side say so, without cards.
    for number in (5, 6):
        lost = re.search(rf'<li id="st-why-{number}">(.*?)</li>', html, re.S).group(1)
        assert not any(present.card(c)["name"] in lost for c in engine.DECK)
        assert "La combinación de tu rival gana a la tuya." in lost
    # The stone's "?" leads to its reason, which also names it for screen readers.
    assert re.search(r'href="#st-why-2" aria-labelledby="st-why-2">\?</a>', stone_column(html, 1))


def test_the_waiting_member_also_sees_why_a_full_stone_is_not_yet_theirs(match, bob, client_for):
    html = page(client_for(bob), match)
    state = engine_state(match)
    table = [c for pair in state.sides for side in pair for c in side]
    others = [c for c in table if c not in state.sides[6][0] + state.sides[6][1]]
    expected = engine.counter_example(state.sides[6][1], state.sides[6][0], others)
    assert expected
    reason = re.search(r'<li id="st-why-7">(.*?)</li>', html, re.S).group(1)
    assert ", ".join(present.card(c)["name"] for c in expected) in reason
    # Bob's stones 5 and 6 are won; he may claim them on his turn.
    assert 'class="st-sure"' in stone_column(html, 4)
    assert 'class="st-sure"' in stone_column(html, 5)


def test_1999_rules_offer_claims_before_the_play_and_playing_ends_the_turn(alice, bob, client_for):
    m = start_match(KEY, [alice, bob], slug="reglas-1999")
    stones = dict(POSITION)
    stones[0] = (["R9", "R8", "R7"], ["G1"], 0)
    hand = [c for c in ALICE_HAND if c != "R7"] + ["O9"]
    set_position(m, stones, [hand, BOB_HAND])
    client = client_for(alice)
    html = page(client, m)
    assert "c:0" in codes_in(html) and any(c.startswith("p:") for c in codes_in(html))
    assert "end" not in codes_in(html)
    html = post_move(client, m, "c:0").content.decode()
    state = engine_state(m)
    assert state.owners[0] == 0 and state.turn == 0 and state.phase == "play"
    assert any(c.startswith("p:") for c in codes_in(html))
    m.refresh_from_db()
    post_move(client, m, "p:Y1:2")
    state = engine_state(m)
    assert state.turn == 1 and state.phase == "play"


def test_a_member_who_cannot_play_passes(alice, bob, client_for):
    m = start_match(KEY, [alice, bob])
    stones = {
        5: (["R1", "R2", "R3"], ["B1"], 0),
        7: (["O1", "O2", "O3"], ["B2"], 0),
        8: (["Y1", "Y2", "Y4"], ["B3"], 0),
    }
    owners = {0: 1, 1: 0, 2: 1, 3: 0, 4: 1, 6: 1}
    set_position(m, stones, [["G1", "G2"], ["P1", "P2", "P3"]], owners=owners)
    client = client_for(alice)
    html = page(client, m)
    assert codes_in(html) == ["pass"]
    assert picks_in(html) == []
    post_move(client, m, "pass")
    state = engine_state(m)
    assert state.turn == 1 or state.phase == "claim"


def test_the_winning_claim_ends_the_match_and_marks_the_winning_stones(
    alice, bob, client_for, settings
):
    # No rematch offered (cardclub/social): the finished page then stops listening.
    settings.REMATCH_WITHIN = 0
    m = start_match(KEY, [alice, bob])
    stones = {
        0: (["R1", "R2", "R3"], ["B1"], 0),
        1: (["O1", "O2", "O3"], ["B2"], 0),
        2: (["R9", "R8"], ["G1"], None),
    }
    set_position(m, stones, [["R7", "Y1"], ["P1", "P2"]], owners={0: 0, 1: 0})
    client = client_for(alice)
    post_move(client, m, "p:R7:2")
    m.refresh_from_db()
    html = post_move(client, m, "c:2").content.decode()
    m.refresh_from_db()
    assert m.status == Match.Status.FINISHED
    assert 'class="panel st-win mine"' in html
    winning = [s for s in range(9) if "winning" in column_classes(stone_column(html, s))]
    assert winning == [0, 1, 2]
    assert "1, 2, 3" in html
    assert codes_in(html) == []
    assert "hx-trigger" not in html
    # Bob sees the same win, from his side.
    bob_html = page(client_for(bob), m)
    assert 'class="panel st-win"' in bob_html


def test_three_rounds_show_the_scores_and_a_summary_between_rounds(alice, bob, client_for):
    m = start_match(KEY, [alice, bob], slug="a-3-rondas")
    stones = {
        0: (["R1", "R2", "R3"], ["B1"], 0),
        1: (["O1", "O2", "O3"], ["B2"], 0),
        2: (["R9", "R8"], ["G1"], None),
        6: (["Y1"], ["P7", "P8", "P9"], 1),
    }
    set_position(m, stones, [["R7", "Y2"], ["P1", "P2"]], owners={0: 0, 1: 0, 6: 1})
    client = client_for(alice)
    html = page(client, m)
    assert "st-rounds" in html and "st-summary" not in html
    post_move(client, m, "p:R7:2")
    m.refresh_from_db()
    html = post_move(client, m, "c:2").content.decode()
    m.refresh_from_db()
    state = engine_state(m)
    assert m.status == Match.Status.PLAYING and state.round == 1 and state.turn == 1
    assert state.scores == (5, 1)
    for client_html in (html, page(client_for(bob), m)):
        summary = re.search(r'class="panel st-summary".*?</div>', client_html, re.S).group(0)
        assert "1, 2, 3" in summary
        assert summary.count('class="st-mini') == 9
        assert summary.count("winning") == 3
        rounds = re.search(r'class="panel st-rounds".*?</section>', client_html, re.S).group(0)
        assert re.search(r"<td><strong>5</strong></td>", rounds)
        assert re.search(r"<td><strong>1</strong></td>", rounds)
    # Once the member has played in the new round, the summary gives way to the table.
    bob_client = client_for(bob)
    code = next(c for c in sorted(offered(page(bob_client, m))) if c.startswith("p:"))
    post_move(bob_client, m, code)
    assert "st-summary" not in page(bob_client, m)
    assert "st-summary" in page(client, m)


def test_a_move_without_htmx_redirects_back_to_the_table(match, alice, client_for):
    # What the page's form sends without JavaScript: the picked card and the stone's button.
    data = {"code": "p:*:0", "pick": "R7", "v": match.version}
    response = client_for(alice).post(reverse("games:move", args=[match.pk]), data)
    assert response.status_code == 302
    assert response["Location"] == match.get_absolute_url()
    assert "R7" in engine_state(match).sides[0][0]


def test_a_refused_claim_explains_itself_and_changes_nothing(match, alice, client_for):
    client = client_for(alice)
    post_move(client, match, "p:R7:0")
    match.refresh_from_db()
    before = (match.version, match.state)
    response = post_move(client, match, "c:1")
    assert response.status_code == 200
    assert response.context["error"]
    assert 'role="alert"' in response.content.decode()
    match.refresh_from_db()
    assert (match.version, match.state) == before


def test_a_spectator_sees_the_stones_without_hands_or_forms(match, charlie, client_for):
    html = page(client_for(charlie), match)
    assert codes_in(html) == []
    assert "st-hand" not in html
    assert all(f'data-card="{c}"' not in html for c in ALICE_HAND + BOB_HAND)
    assert "st-why" not in html


def test_the_replay_draws_the_table_and_every_hand(alice, bob, client_for):
    m = start_match(KEY, [alice, bob])
    writes.resign(m.pk, alice)
    response = client_for(alice).get(reverse("games:replay", args=[m.pk]), {"step": 0})
    assert response.status_code == 200
    html = response.content.decode()
    assert 'class="st-board' in html
    assert codes_in(html) == []
    data = engine.dump(engine.new_game(2, m.options, m.seed))
    for card in data["hands"][0] + data["hands"][1]:
        assert f'data-card="{card}"' in html


def test_the_poll_fragment_carries_the_table(match, alice, client_for):
    client = client_for(alice)
    response = client.get(
        reverse("games:poll", args=[match.pk]), {"v": match.version - 1}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 200
    assert b'class="schotten' in response.content and b"<html" not in response.content


@pytest.mark.parametrize("language", ["es", "en"])
def test_the_rules_page_explains_the_game_and_the_house_rule_in_play(client, language):
    from games.models import RuleVariant

    variant = RuleVariant.objects.get(game=KEY, slug="reglas-1999")
    response = client.get(
        reverse("games:rules", args=[KEY]),
        {"variant": variant.pk},
        HTTP_ACCEPT_LANGUAGE=language,
    )
    assert response.status_code == 200
    names = [t.name for t in response.templates]
    assert f"schotten_totten/rules_{language}.html" in names
    assert response.context["variant"] == variant
    html = response.content.decode()
    # The formations are explained with cards named as the table names them, not with ids.
    # A word of its own: the page's random CSRF token may hold the letters "R7" by chance.
    assert "1999" in html and not re.search(r"\bR7\b", html)
    assert {"es": "7, 8 y 9 rojos", "en": "red 7, red 8, red 9"}[language] in html


def test_win_stones_name_adjacent_runs_five_stones_or_more_stones():
    assert present.win_stones([0, 0, 0, None, 1, None, None, None, None], 0) == (
        [0, 1, 2],
        "adjacent",
    )
    assert present.win_stones([0, 1, 0, 1, 0, None, 0, None, 0], 0) == ([0, 2, 4, 6, 8], "five")
    # Both met a condition (only at the automatic end): the winner had more stones.
    both = [0, 0, 0, 1, 1, 1, None, None, 0]
    assert present.win_stones(both, 0) == ([0, 1, 2, 8], "more")
