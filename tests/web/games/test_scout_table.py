"""Scout's table, played through the web client: every move kind, both round ends, 2 and 5
players, the end of the match."""

from __future__ import annotations

import random
import re

import pytest
from django.urls import reverse

from games import writes
from games.models import Match
from games.scout import engine, present
from tests.web.table_helpers import engine_state, post_move, start_match

pytestmark = pytest.mark.django_db

CODE = re.compile(r'name="code" value="([^"]+)"')
PICK = re.compile(r'name="pick" value="([^"]+)"')
SS_LINK = re.compile(r'href="\?ss=([^"]+)"')


def seated(make_member, client_for, players):
    users = [make_member(f"player{i}") for i in range(players)]
    match = start_match("scout", users)
    return match, users, [client_for(user) for user in users]


def page(client, match, **params) -> str:
    response = client.get(match.get_absolute_url(), params)
    assert response.status_code == 200
    return response.content.decode()


def codes(html: str, prefix: str) -> set[str]:
    """The move codes the page offers, with a button's "*" filled in by each radio "pick" (the
    card and way up of a scout, chosen before its gap)."""
    found = set()
    for code in CODE.findall(html):
        if code.split(":")[0] == prefix:
            found |= {code.replace("*", p) for p in PICK.findall(html)} if "*" in code else {code}
    return found


def cards_in(html: str, css_class: str) -> list[str]:
    """The cards drawn inside the first ``<ol class="… css_class …">`` of the page."""
    found = re.search(rf'<ol class="[^"]*\b{css_class}\b[^"]*">(.*?)</ol>', html, re.S)
    assert found, f"no row {css_class}"
    return re.findall(r'data-card="([^"]+)"', found.group(1))


def play(client, match, code: str):
    match.refresh_from_db()
    response = post_move(client, match, code)
    assert response.status_code == 200
    assert not response.context["error"], response.context["error"]
    match.refresh_from_db()
    return response


def decide_all(match, clients, code="k"):
    for client in clients:
        play(client, match, code)
    assert engine_state(match).phase == engine.PLAY


def on_turn(match):
    state = engine_state(match)
    return engine.to_move(state)[0], state


def longest_show(moves):
    shows = [m for m in moves if isinstance(m, engine.Show)]
    return max(shows, key=lambda m: (m.length, -m.start), default=None)


@pytest.mark.parametrize("players", [2, 5])
def test_every_seat_decides_at_once_seeing_its_hand_and_its_rotation(
    players, make_member, client_for
):
    match, _users, clients = seated(make_member, client_for, players)
    data = engine.dump(engine_state(match))
    first = page(clients[0], match)
    assert codes(first, "k") == {"k"} and codes(first, "r") == {"r"}
    hand = data["hands"][0]
    rows = re.findall(r'<ol class="sc-row">(.*?)</ol>', first, re.S)
    dealt, rotated = (re.findall(r'data-card="([^"]+)"', row) for row in rows[:2])
    assert dealt == hand
    assert rotated == ["/".join(reversed(c.split("/"))) for c in reversed(hand)]
    assert first.count('<tr class="sc-player') == players

    response = play(clients[0], match, "k")
    fragment = response.content.decode()
    assert codes(fragment, "k") == set()
    assert re.search(r'class="sc-decision done" data-seat="0"', fragment)
    assert 'class="sc-decision" data-seat="1"' in fragment
    # The others see that seat 0 decided, not what; they still decide.
    other = page(clients[1], match)
    assert re.search(r'class="sc-decision done" data-seat="0"', other)
    assert codes(other, "r") == {"r"}
    assert 'class="ev-decide"' in other

    play(clients[1], match, "r")
    assert engine.dump(engine_state(match))["hands"][1] == rotated_hand(data["hands"][1])
    for client in clients[2:]:
        play(client, match, "k")
    state = engine_state(match)
    assert state.phase == engine.PLAY
    mover = page(clients[state.turn], match)
    assert 'class="badge turn"' in mover and "sc-mode-show" in mover


def rotated_hand(hand):
    return ["/".join(reversed(c.split("/"))) for c in reversed(hand)]


def test_the_show_choices_are_exactly_the_legal_shows_grouped_by_first_card(
    make_member, client_for
):
    match, _users, clients = seated(make_member, client_for, 3)
    decide_all(match, clients)
    seat, state = on_turn(match)
    html = page(clients[seat], match)
    legal = engine.legal_moves(state, seat)
    assert codes(html, "s") == {m.code for m in legal if isinstance(m, engine.Show)}
    starts = {m.start for m in legal if isinstance(m, engine.Show)}
    assert set(map(int, re.findall(r'for="sf(\d+)"', html))) == starts
    assert set(map(int, re.findall(r'class="wg-(\d+)"', html))) == starts

    move = longest_show(legal)
    hand = engine.dump(state)["hands"][seat]
    shown = hand[move.start : move.start + move.length]
    fragment = play(clients[seat], match, move.code).content.decode()
    for html in (fragment, page(clients[(seat + 1) % 3], match)):
        assert cards_in(html, "active-row") == shown
        assert re.search(rf'class="sc-player[^"]* owner" data-seat="{seat}"', html), (
            "the owner of the active set is marked"
        )
        assert 'class="ev-show"' in html


def test_a_scout_is_chosen_by_end_orientation_and_gap(make_member, client_for):
    match, _users, clients = seated(make_member, client_for, 3)
    decide_all(match, clients)
    owner, state = on_turn(match)
    play(clients[owner], match, longest_show(engine.legal_moves(state, owner)).code)
    seat, state = on_turn(match)
    active = engine.dump(state)["active"]
    html = page(clients[seat], match)
    scouts = {m.code for m in engine.legal_moves(state, seat) if isinstance(m, engine.Scout)}
    assert codes(html, "c") == scouts
    ends = set(re.findall(r'id="se-([LR][01])"', html))
    assert ends == ({"L0", "L1"} if len(active) == 1 else {"L0", "L1", "R0", "R1"})
    hand_size = len(engine.dump(state)["hands"][seat])
    # One button per gap, whatever the card and way up: the radio "pick" says those.
    gaps = re.findall(r'name="code" value="c:\*:(\d+)"', html)
    assert sorted(map(int, gaps)) == list(range(hand_size + 1))

    code = "c:L:1:0" if len(active) == 1 else "c:R:1:0"
    fragment = play(clients[seat], match, code).content.decode()
    taken = active[0] if len(active) == 1 else active[-1]
    after = engine.dump(engine_state(match))
    assert after["hands"][seat][0] == "/".join(reversed(taken.split("/")))
    assert after["tokens"][owner] == 1, "the owner received a scout token"
    assert 'class="ev-scout"' in fragment


def a_seed_whose_first_show_can_be_scouted_twice() -> int:
    """A 2-player deal whose first player, after both keep their hands, holds a set of two or
    more cards: about one deal in 25 has none, and then nothing is left after one scout."""
    for seed in range(100):
        state = engine.new_game(2, seed=seed)
        for seat in (0, 1):
            state = engine.apply(state, seat, engine.parse_move("k"))
        first = engine.to_move(state)[0]
        if longest_show(engine.legal_moves(state, first)).length >= 2:
            return seed
    raise AssertionError("no such deal among the first 100 seeds")


def test_two_players_pay_a_token_to_scout_keep_the_turn_and_may_pass(make_member, client_for):
    match, _users, clients = seated(make_member, client_for, 2)
    # Deal again from a chosen seed before anyone has moved (the match's own seed is random).
    seed = a_seed_whose_first_show_can_be_scouted_twice()
    fresh = engine.dump(engine.new_game(2, options=match.options, seed=seed))
    Match.objects.filter(pk=match.pk).update(seed=seed, state=fresh)
    match.refresh_from_db()
    decide_all(match, clients)
    owner, state = on_turn(match)
    html = page(clients[owner], match)
    assert codes(html, "p") == set(), "no pass without an active set"
    assert codes(html, "cs") == set() and "sc-mode-ss" not in html
    play(clients[owner], match, longest_show(engine.legal_moves(state, owner)).code)

    seat, _state = on_turn(match)
    html = page(clients[seat], match)
    assert codes(html, "p") == {"p"}
    assert 'class="tab t-scout"' in html and "<small>" in html, "the token cost is shown"
    assert "S&amp;S" not in html, "no scout & show chip in the 2-player game"
    play(clients[seat], match, "c:L:0:0")
    after = engine_state(match)
    assert after.turn == seat and after.tokens[seat] == 2
    html = page(clients[seat], match)
    assert 'class="badge turn"' in html and codes(html, "c")

    fragment = play(clients[seat], match, "p").content.decode()
    state = engine_state(match)
    assert (state.round, state.phase) == (2, engine.DECIDE)
    assert 'class="panel sc-round-end"' in fragment
    assert 'class="ev-pass"' in fragment
    # The fragment fetches the score sheet only when it is opened; the page has it.
    assert 'hx-get="?sheet=1"' in fragment and 'class="data sc-sheet"' not in fragment
    html = page(clients[seat], match)
    # The owner of the active set ended the round: marked in the scores, exempt.
    assert "sc-ender" in breakdown_cell(html, 1, owner)
    points = state.summaries[0].points
    assert points[owner] == 3, "three tokens held, no penalty for the hand"
    assert points[seat] == 2 - 12, "two tokens held, twelve cards in hand"
    # The sheet says that the owner's cards cost nothing.
    assert breakdown_row(html, 1, owner)[2].startswith('<span class="sc-exempt"')
    assert breakdown_row(html, 1, seat)[1:3] == ["+2", "\u221212"]
    opened = clients[seat].get(match.get_absolute_url(), {"sheet": 1}, HTTP_HX_REQUEST="true")
    assert breakdown_row(opened.content.decode(), 1, seat)[1:3] == ["+2", "\u221212"]


def sheet_row(html: str, seat: int) -> list[str]:
    """``seat``'s cells of the score sheet: one per finished round, then the total."""
    table = re.search(r'<table class="data sc-sheet">(.*?)</table>', html, re.S)
    assert table, "no score sheet"
    row = re.search(rf'<tr data-seat="{seat}"[^>]*>(.*?)</tr>', table.group(1), re.S)
    assert row, f"no row for seat {seat}"
    return re.findall(r"<td[^>]*>(.*?)</td>", row.group(1), re.S)


def breakdown_row(html: str, number: int, seat: int) -> list[str]:
    """What ``seat`` scored in round ``number``, as the sheet writes it: cards taken, tokens,
    cards in hand, points, then the total so far (as the page writes them)."""
    cell = sheet_row(html, seat)[number - 1]
    points = cell.split("<", 1)[0].strip()
    taken, tokens, hand = re.search(r"<small>(.*?)</small>", cell, re.S).group(1).split(" ", 2)
    return [taken, tokens, hand, points]


def breakdown_cell(html: str, number: int, seat: int) -> str:
    """The whole cell of ``seat`` in round ``number``'s column, with its marks."""
    table = re.search(r'<table class="data sc-sheet">(.*?)</table>', html, re.S).group(1)
    row = re.search(rf'<tr data-seat="{seat}"[^>]*>(.*?)</tr>', table, re.S).group(1)
    return re.findall(r"<td[^>]*>.*?</td>", row, re.S)[number - 1]


def deal_a_run_of_three(match, seat):
    """Rearrange the dealt hands (cards and orientations only) so that ``seat`` starts with a
    run of three: a show that two scouts cannot empty."""
    data = engine.dump(engine_state(match))
    where = {c: (i, k) for i, hand in enumerate(data["hands"]) for k, c in enumerate(hand)}
    options = [(c, int(up)) for c in where for up in c.split("/")]
    for low in range(1, 9):
        picked = []
        for value in (low, low + 1, low + 2):
            card = next((c for c, v in options if v == value and c not in picked), None)
            picked.append(card)
        if None not in picked:
            break
    for k, card in enumerate(picked):
        i, j = where[card]
        mine = data["hands"][seat][k]
        data["hands"][i][j], data["hands"][seat][k] = mine, card
        where[mine], where[card] = (i, j), (seat, k)
    for k, value in enumerate(range(low, low + 3)):
        up, down = data["hands"][seat][k].split("/")
        if int(up) != value:
            data["hands"][seat][k] = f"{down}/{up}"
    match.state = data
    match.save(update_fields=["state"])
    return "s:0:3"


def end_the_round_by_scouting(match, clients):
    """Three players: the seat on turn shows a run of three that the two others only scout,
    which ends the round; return that seat (the owner of the set, who ended it)."""
    owner, _state = on_turn(match)
    play(clients[owner], match, deal_a_run_of_three(match, owner))
    for _ in range(2):
        seat, _state = on_turn(match)
        play(clients[seat], match, "c:L:0:0")
    return owner


def test_a_round_ends_when_every_other_player_only_scouted(make_member, client_for):
    match, _users, clients = seated(make_member, client_for, 3)
    decide_all(match, clients)
    owner = end_the_round_by_scouting(match, clients)
    state = engine_state(match)
    assert (state.round, state.phase) == (2, engine.DECIDE)
    points = state.summaries[0].points
    assert points[owner] == 2, "two tokens, no penalty for the hand: the ender is exempt"
    html = page(clients[0], match)
    assert 'class="panel sc-round-end"' in html
    assert "sc-ender" in breakdown_cell(html, 1, owner)
    assert 'class="ev-round_end"' in html


def leave_one_card_to_the_seat_on_turn(match):
    """Put all but one card of the seat on turn out of play, so that its show empties its
    hand; return that seat."""
    seat, state = on_turn(match)
    data = engine.dump(state)
    data["deck"] += data["hands"][seat][1:]
    data["hands"][seat] = data["hands"][seat][:1]
    match.state = data
    match.save(update_fields=["state"])
    return seat


@pytest.mark.parametrize("players", [2, 5])
def test_a_round_ends_when_a_show_empties_a_hand(players, make_member, client_for):
    match, _users, clients = seated(make_member, client_for, players)
    decide_all(match, clients)
    seat = leave_one_card_to_the_seat_on_turn(match)
    html = page(clients[seat], match)
    assert codes(html, "s") == {"s:0:1"}
    fragment = play(clients[seat], match, "s:0:1").content.decode()
    state = engine_state(match)
    assert (state.round, state.phase) == (2, engine.DECIDE)
    held = 3 if players == 2 else 0  # with two players the tokens still held count
    points = state.summaries[0].points
    assert points[seat] == held, "no cards taken, and the hand is exempt"
    assert all(p < 0 for i, p in enumerate(points) if i != seat)
    assert 'class="panel sc-round-end"' in fragment
    assert "sc-ender" in breakdown_cell(page(clients[seat], match), 1, seat)


def advance_to_scout_show(match, clients, rng):
    """Play (mostly shows) until the seat on turn may scout & show."""
    for _ in range(200):
        seat, state = on_turn(match)
        moves = engine.legal_moves(state, seat)
        if any(isinstance(m, engine.ScoutShow) for m in moves):
            return seat, state, moves
        plain = [m for m in moves if not isinstance(m, engine.ScoutShow)]
        show = longest_show(plain)
        move = show if show and rng.random() < 0.7 else rng.choice(plain)
        play(clients[seat], match, move.code)
        if engine_state(match).phase == engine.DECIDE:
            decide_all(match, clients)
    raise AssertionError("no scout & show came up")


def scout_show_pages(client, match) -> dict[str, str]:
    """Every page of a scout & show's steps that the table links to, by its address (?ss=…):
    the table links to the first step, which card and which way up; each of those to the
    gaps after which a show is possible; each gap to the shows of the hand it makes."""
    pages, todo = {}, SS_LINK.findall(page(client, match))
    while todo:
        key = todo.pop()
        if key not in pages:
            pages[key] = page(client, match, ss=key)
            todo += [k for k in SS_LINK.findall(pages[key]) if k not in pages]
    return pages


def test_scout_and_show_is_chosen_in_steps_and_played_as_one_move(make_member, client_for):
    match, _users, clients = seated(make_member, client_for, 3)
    decide_all(match, clients)
    seat, state, moves = advance_to_scout_show(match, clients, random.Random(3))
    legal = {m.code for m in moves if isinstance(m, engine.ScoutShow)}
    html = page(clients[seat], match)
    # The table only links to the first step: a scout & show is played once a round.
    assert SS_LINK.findall(html) == [present.SS_START] and codes(html, "cs") == set()

    # Every scout & show is reachable through the steps, and only those are offered.
    pages = scout_show_pages(clients[seat], match)
    reached = set()
    for key, html in pages.items():
        offered = codes(html, "cs")
        assert offered or SS_LINK.findall(html), f"{key} was offered but leads nowhere"
        reached |= {engine.parse_move(c).code for c in offered}
        if offered:
            assert "sc-ss-back" in html and "marked" in html
    assert reached == legal

    second = next(html for html in pages.values() if codes(html, "cs"))
    fragment = play(clients[seat], match, sorted(codes(second, "cs"))[0]).content.decode()
    assert 'class="ev-scout_show"' in fragment
    assert engine_state(match).chips[seat] is True
    player = re.search(rf'<tr class="sc-player[^"]*" data-seat="{seat}">(.*?)</tr>', fragment, re.S)
    assert 'class="chip spent"' in player.group(1)


def test_a_bad_scout_and_show_address_shows_the_first_step_again(make_member, client_for):
    match, _users, clients = seated(make_member, client_for, 3)
    decide_all(match, clients)
    seat, _state, _moves = advance_to_scout_show(match, clients, random.Random(5))
    for garbage in ("Z9-1", "L0-99", "L0-x", "L2", "L0-" + "9" * 40):
        html = page(clients[seat], match, ss=garbage)
        assert codes(html, "cs") == set() and SS_LINK.findall(html) == [present.SS_START]
    # htmx asks for the same steps as fragments.
    key = next(k for k, html in scout_show_pages(clients[seat], match).items() if codes(html, "cs"))
    response = clients[seat].get(match.get_absolute_url(), {"ss": key}, HTTP_HX_REQUEST="true")
    assert b'id="table"' in response.content and b"<html" not in response.content
    assert codes(response.content.decode(), "cs")


def play_out(match, users, rng):
    for _ in range(2000):
        match.refresh_from_db()
        if match.status != Match.Status.PLAYING:
            return
        state = match.engine.load(match.state)
        seat = engine.to_move(state)[0]
        moves = engine.legal_moves(state, seat)
        show = longest_show(moves)
        move = show if show and rng.random() < 0.8 else rng.choice(moves)
        writes.play_move(match.pk, users[seat], move.code, match.version)
    raise AssertionError("the match did not end")


def test_the_last_round_ends_the_match_with_its_scoring_and_the_winners(
    make_member, client_for, settings
):
    # No rematch offered (cardclub/social): the finished page then stops listening.
    settings.REMATCH_WITHIN = 0
    match, users, clients = seated(make_member, client_for, 2)
    play_out(match, users, random.Random(11))
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    state = engine_state(match)
    html = page(clients[0], match)
    assert "hx-trigger" not in html and 'class="panel sc-over"' in html
    best = max(state.scores)
    winners = {int(s) for s in re.findall(r'class="sc-winner" data-seat="(\d+)"', html)}
    assert winners == {i for i, s in enumerate(state.scores) if s == best}
    standings = re.search(r'<table class="data sc-standings">(.*?)</table>', html, re.S).group(1)
    ranked = [int(s) for s in re.findall(r'<tr data-seat="(\d+)"', standings)]
    assert [state.scores[i] for i in ranked] == sorted(state.scores, reverse=True)
    assert len(re.findall(r'<tr data-seat="\d+" class="winner', standings)) == len(winners)
    totals = re.findall(r'<td class="num"><strong>([^<]+)</strong></td>', standings)
    assert totals == [present.number(state.scores[i]) for i in ranked]
    for summary in state.summaries:
        for i in range(2):
            assert breakdown_row(html, summary.round, i)[3] == present.signed(summary.points[i])
        if summary.hand[summary.ender]:  # the ender's cards in hand cost nothing
            cell = breakdown_cell(html, summary.round, summary.ender)
            assert cell.startswith('<td class="exempt">') and "sc-ender" in cell
    for i in range(2):
        assert sheet_row(html, i)[-1] == f"<strong>{present.number(state.scores[i])}</strong>"
    sheet = re.search(r'<table class="data sc-sheet">.*?</table>', html, re.S).group(0)
    head = re.search(r"<thead>(.*?)</thead>", sheet, re.S).group(1)
    assert head.count('<th scope="col"') == 4, "the player, two rounds and the total"
    assert codes(html, "s") == set() and codes(html, "c") == set()
    replay = client_for(users[0]).get(reverse("games:replay", args=[match.pk]))
    assert replay.status_code == 200 and b"scard" in replay.content


def test_after_two_rounds_the_page_breaks_down_the_first_round_not_only_its_points(
    make_member, client_for, charlie
):
    match, _users, clients = seated(make_member, client_for, 3)
    decide_all(match, clients)
    # Round 1: a run of three that both others only scout, so its owner ends the round with
    # nine cards in hand, exempt.
    owner = end_the_round_by_scouting(match, clients)
    decide_all(match, clients)
    # Round 2: the seat on turn is left one card and shows it.
    seat = leave_one_card_to_the_seat_on_turn(match)
    play(clients[seat], match, "s:0:1")
    state = engine_state(match)
    assert (state.round, len(state.summaries)) == (3, 2)

    for html in (page(clients[(owner + 1) % 3], match), page(client_for(charlie), match)):
        # Round 1, player by player: cards taken, tokens, cards in hand, points.
        exempt = breakdown_row(html, 1, owner)
        assert exempt[:2] == ["+0", "+2"]
        assert re.fullmatch(r'<span class="sc-exempt">[^<]*\b9\b[^<]*</span>', exempt[2])
        assert exempt[3] == "+2"
        cell = breakdown_cell(html, 1, owner)
        assert cell.startswith('<td class="exempt">')
        assert re.search(r'class="sc-ender" role="img" aria-label="[^"]+"', cell), (
            "the exemption is explained in words"
        )
        for other in {0, 1, 2} - {owner}:
            assert breakdown_row(html, 1, other) == ["+0", "+0", "\u221213", "\u221213"]
        assert '<th scope="row">' in html
        # Round 2: ended by emptying a hand, so nothing to exempt; the totals add both rounds.
        ender = breakdown_row(html, 2, seat)
        assert ender[2] == "0"
        assert not any("sc-exempt" in breakdown_cell(html, 2, i) for i in range(3))
        for i in range(3):
            total = present.number(state.scores[i])
            assert sheet_row(html, i)[-1] == f"<strong>{total}</strong>"
        assert 'href="?sheet=1#sc-round-2"' in html, "the round-end notice links to the scoring"


def test_a_spectator_sees_the_table_but_no_hand_and_no_move(make_member, client_for, charlie):
    match, _users, clients = seated(make_member, client_for, 3)
    decide_all(match, clients)
    html = page(client_for(charlie), match)
    assert "sc-hand" not in html and not CODE.findall(html)
    assert html.count('<tr class="sc-player') == 3


def test_the_rules_page_exists_in_spanish_and_english(client):
    url = reverse("games:rules", args=["scout"])
    spanish = client.get(url, HTTP_ACCEPT_LANGUAGE="es")
    english = client.get(url, HTTP_ACCEPT_LANGUAGE="en")
    assert spanish.status_code == english.status_code == 200
    assert "scout/rules_es.html" in [t.name for t in spanish.templates]
    assert "scout/rules_en.html" in [t.name for t in english.templates]


def test_the_card_template_takes_a_card_string_or_an_id():
    assert present.card("7/3")["up"] == 7 and present.card("7/3")["down"] == 3
    assert present.card("3-7")["text"] == "3/7"
    assert present.describe_set(["4/1", "5/2", "6/9"])["kind"] == "run"
    assert present.describe_set(["6/1", "5/2", "4/9"])["low"] == 4
    assert present.describe_set(["4/1", "4/2"])["kind"] == "group"
    assert present.describe_set(["4/1", "6/2"]) is None


def test_the_migration_rebuilds_a_scout_state_saved_in_the_old_form_from_the_move_log(
    alice, bob, charlie
):
    import importlib

    from django.apps import apps

    match = start_match("scout", [alice, bob, charlie])
    # A state saved in the old form was also played before issue 23's fix of the round's end:
    # these moves follow that rule, as 0002 replays such logs (see engine.LEGACY_MOVES_OPTION).
    legacy = {engine.LEGACY_MOVES_OPTION: 40}
    first = engine.new_game(3, options=legacy, seed=match.seed)
    Match.objects.filter(pk=match.pk).update(options=legacy, state=engine.dump(first))
    rng = random.Random(5)
    for _ in range(40):
        match.refresh_from_db()
        state = engine_state(match)
        seat = engine.to_move(state)[0]
        move = rng.choice(engine.legal_moves(state, seat))
        writes.play_move(match.pk, [alice, bob, charlie][seat], move.code, match.version)
    match.refresh_from_db()
    current = match.state
    # What a state saved before round summaries looked like: points per round only.
    old = {k: v for k, v in current.items() if k != "round_summaries"}
    old["round_scores"] = [
        [seat["points"] for seat in summary["seats"]] for summary in current["round_summaries"]
    ]
    Match.objects.filter(pk=match.pk).update(state=old)
    with pytest.raises(KeyError):
        engine.load(old)
    migration = importlib.import_module("games.scout.migrations.0002_rebuild_states")
    migration.rebuild(apps, None)
    match.refresh_from_db()
    assert match.state == current
    assert engine.load(match.state) == engine_state(match)


def test_the_tables_last_moves_name_the_cards_in_words_and_the_log_still_draws_them(
    make_member, client_for
):
    match, _users, clients = seated(make_member, client_for, 3)
    decide_all(match, clients)
    seat, state = on_turn(match)
    play(clients[seat], match, longest_show(engine.legal_moves(state, seat)).code)
    html = page(clients[(seat + 1) % 3], match)
    last = re.search(r'<ul class="last-moves">(.*?)</ul>', html, re.S).group(1)
    assert "ev-show" in last and "move-cards" not in last
    # The newest move's cards are drawn in the "Last move" strip, and in the log.
    assert re.search(r'class="just-cards"[^>]*>.*?data-card=', html, re.S)
    log = clients[0].get(reverse("games:log", args=[match.pk])).content.decode()
    assert "move-cards" in log
