"""The table machinery, played through the web client on Escoba."""

from __future__ import annotations

import random
import re

import pytest
from django.urls import reverse

from cardclub.ratings.models import Rating
from games import writes
from games.escoba import present
from games.locking import ActionError
from games.models import Match, MoveRecord, RuleVariant, Seat
from tests.web.table_helpers import (
    engine_state,
    hidden_cards_in,
    post_move,
    run_bots,
    start_match,
    variant,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def match(alice, bob):
    return start_match("escoba", [alice, bob])


def seat_to_move(match):
    state = engine_state(match)
    return match.engine.to_move(state)[0], state


def test_opening_a_table_with_an_open_seat_waits_for_a_second_member(alice_client, alice):
    response = alice_client.post(
        reverse("games:new_table", args=["escoba"]),
        {"variant": variant("escoba").pk, "players": 2, "seat_1": "open"},
    )
    match = Match.objects.get()
    assert response.status_code == 302
    assert response["Location"] == match.get_absolute_url()
    assert match.status == Match.Status.OPEN
    assert match.seats.get(index=0).user == alice
    assert match.state is None


def test_the_new_table_form_offers_a_seat_field_per_extra_player(alice_client):
    page = alice_client.get(reverse("games:new_table", args=["escoba"]), {"players": 4})
    assert page.status_code == 200
    form = page.context["form"]
    assert [f.name for f in form.seat_fields()] == ["seat_1", "seat_2", "seat_3"]
    partial = alice_client.get(
        reverse("games:new_table", args=["escoba"]), {"players": 3}, HTTP_HX_REQUEST="true"
    )
    assert b'id="table-form"' in partial.content
    assert b"<html" not in partial.content


def test_changing_the_number_of_players_keeps_the_house_rules_seats_and_privacy_chosen(
    alice_client,
):
    # htmx sends the whole form when the number of players changes, as the button without
    # JavaScript does; the form comes back with one more seat and the rest as it was.
    chosen = variant("escoba", "renuncio").pk
    partial = alice_client.get(
        reverse("games:new_table", args=["escoba"]),
        {"variant": chosen, "players": 3, "seat_1": "hard", "private": "on"},
        HTTP_HX_REQUEST="true",
    )
    form = partial.context["form"]
    assert [f.name for f in form.seat_fields()] == ["seat_1", "seat_2"]
    html = partial.content.decode()
    assert re.search(rf'<input type="radio" name="variant" value="{chosen}"[^>]* checked', html)
    assert len(re.findall(r'name="variant"[^>]* checked', html)) == 1
    assert re.search(r'<option value="hard" selected>', html)
    assert re.search(r'name="private"[^>]* checked', html)


def test_house_rules_for_pairs_refuse_two_players_with_a_message(alice_client):
    response = alice_client.post(
        reverse("games:new_table", args=["escoba"]),
        {"variant": variant("escoba", "por-parejas").pk, "players": 2, "seat_1": "open"},
    )
    assert response.status_code == 200
    assert response.context["form"].non_field_errors()
    assert not Match.objects.exists()


def test_an_unknown_game_is_a_404(alice_client):
    assert alice_client.get(reverse("games:new_table", args=["poker"])).status_code == 404


def test_a_member_joins_an_open_table_and_the_match_starts_by_itself(alice, bob, client_for):
    match = writes.create_match(alice, variant("escoba"), 2, ["open"])
    response = client_for(bob).post(reverse("games:join", args=[match.pk]))
    assert response.status_code == 302
    match.refresh_from_db()
    assert match.status == Match.Status.PLAYING
    assert match.state is not None
    assert match.seats.get(index=1).user == bob


def test_a_member_can_leave_before_the_start_and_the_last_one_closes_the_table(
    alice, bob, client_for
):
    match = writes.create_match(alice, variant("escoba"), 3, ["open", "open"])
    writes.join_match(match.pk, bob)
    client_for(bob).post(reverse("games:leave", args=[match.pk]))
    match.refresh_from_db()
    assert match.seats.filter(user=bob).count() == 0
    assert match.status == Match.Status.OPEN
    client_for(alice).post(reverse("games:leave", args=[match.pk]))
    match.refresh_from_db()
    assert match.status == Match.Status.ABANDONED


def test_joining_twice_or_a_full_table_is_refused(alice, bob, charlie):
    match = writes.create_match(alice, variant("escoba"), 2, ["open"])
    with pytest.raises(ActionError):
        writes.join_match(match.pk, alice)
    writes.join_match(match.pk, bob)
    with pytest.raises(ActionError):
        writes.join_match(match.pk, charlie)


def test_the_invite_link_leads_to_the_table(alice, bob, client_for):
    match = writes.create_match(alice, variant("escoba"), 2, ["open"])
    response = client_for(bob).get(reverse("games:invite", args=[match.invite_token]))
    assert response.status_code == 302
    assert response["Location"] == match.get_absolute_url()
    assert client_for(bob).get(reverse("games:invite", args=["nope"])).status_code == 404


def test_the_lobby_lists_open_tables_and_marks_my_turn(alice, bob, charlie, client_for):
    waiting = writes.create_match(charlie, variant("escoba"), 2, ["open"])
    playing = start_match("escoba", [alice, bob])
    mover, _ = seat_to_move(playing)
    member = alice if mover == 0 else bob
    page = client_for(member).get(reverse("games:lobby"))
    assert list(page.context["open_tables"]) == [waiting]
    mine = list(page.context["mine"])
    assert mine == [playing] and mine[0].my_turn == 1
    other = client_for(bob if member == alice else alice).get(reverse("games:lobby"))
    assert list(other.context["mine"])[0].my_turn == 0


def test_a_member_sees_their_own_hand_and_never_the_other(match, alice, client_for):
    state = engine_state(match)
    data = match.engine.dump(state)
    page = client_for(alice).get(match.get_absolute_url()).content.decode()
    for card in data["hands"][0]:
        assert f'aria-label="{present.card(card)["name"]}"' in page
    assert hidden_cards_in(page, data["hands"][1] + data["deck"]) == []
    assert str(match.seed) not in page


def test_game_pages_are_not_cached(match, alice, client_for):
    client = client_for(alice)
    for url in (match.get_absolute_url(), reverse("games:poll", args=[match.pk]) + "?v=0"):
        response = client.get(url)
        assert "no-store" in response["Cache-Control"]
        assert "private" in response["Cache-Control"]
    assert 'hx-history="false"' in client.get(match.get_absolute_url()).content.decode()


def test_a_legal_move_is_played_logged_and_the_table_re_rendered(match, alice, bob, client_for):
    seat, state = seat_to_move(match)
    client = client_for(alice if seat == 0 else bob)
    move = match.engine.legal_moves(state, seat)[0]
    response = post_move(client, match, move.code)
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="table"' in html and "<html" not in html
    assert 'id="seats"' in html and 'hx-swap-oob="true"' in html
    record = MoveRecord.objects.get(match=match)
    assert (record.seq, record.seat, record.code) == (1, seat, move.code)
    match.refresh_from_db()
    assert match.version == 2


def test_a_move_without_htmx_redirects_back_to_the_match(match, alice, bob, client_for):
    seat, state = seat_to_move(match)
    client = client_for(alice if seat == 0 else bob)
    move = match.engine.legal_moves(state, seat)[0]
    response = post_move(client, match, move.code, htmx=False)
    assert response.status_code == 302
    assert response["Location"] == match.get_absolute_url()
    assert MoveRecord.objects.count() == 1


@pytest.mark.parametrize(
    "case", ["stale", "out_of_turn", "illegal", "garbage", "no_version", "not_seated"]
)
def test_a_bad_move_gets_a_clear_message_and_changes_nothing(
    case, match, alice, bob, charlie, client_for
):
    seat, state = seat_to_move(match)
    mover, waiter = (alice, bob) if seat == 0 else (bob, alice)
    legal = match.engine.legal_moves(state, seat)[0].code
    before = (match.version, match.state)
    client, code, version = client_for(mover), legal, match.version
    if case == "stale":
        version = match.version - 1
    elif case == "out_of_turn":
        client = client_for(waiter)
    elif case == "illegal":
        code = "l:" + match.engine.dump(state)["hands"][1 - seat][0]
    elif case == "garbage":
        code = "drop table;"
    elif case == "not_seated":
        client = client_for(charlie)
    data = {"code": code}
    if case != "no_version":
        data["v"] = version
    response = client.post(reverse("games:move", args=[match.pk]), data, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert response.context["error"]
    assert 'role="alert"' in response.content.decode()
    match.refresh_from_db()
    assert (match.version, match.state) == before
    assert not MoveRecord.objects.exists()


def test_a_move_in_a_match_that_does_not_exist_is_a_404(alice_client):
    response = alice_client.post(reverse("games:move", args=[999]), {"code": "x", "v": 1})
    assert response.status_code == 404


def test_a_finished_match_refuses_moves(match, alice, client_for):
    writes.resign(match.pk, alice)
    match.refresh_from_db()
    response = post_move(client_for(alice), match, "l:1o")
    assert response.context["error"]
    assert not MoveRecord.objects.exists()


def test_resigning_ends_the_match_and_ranks_the_resigner_last(
    match, alice, bob, client_for, settings
):
    # A finished match listens for rematch answers for a while (cardclub/social): not here.
    settings.REMATCH_WITHIN = 0
    client_for(bob).post(reverse("games:resign", args=[match.pk]))
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    ranks = {s.user.username: (s.rank, s.resigned) for s in match.seats.all()}
    assert ranks == {"alice": (1, False), "bob": (2, True)}
    page = client_for(alice).get(match.get_absolute_url()).content.decode()
    assert "hx-trigger" not in page


TURN_WORDS = re.compile(r'class="turn-line"|to-move|is playing|is deciding|decides whether')


@pytest.mark.parametrize("game", ["schotten_totten", "escoba", "scout"])
def test_a_match_ended_by_a_resignation_names_nobody_s_turn(
    game, alice, bob, charlie, client_for, settings
):
    settings.REMATCH_WITHIN = 0
    match = start_match(game, [alice, bob])

    def pages():
        for member in (bob, charlie):  # a seat and a spectator
            yield (
                client_for(member)
                .get(match.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="en")
                .content.decode()
            )

    assert all(TURN_WORDS.search(page) for page in pages())
    # The engine's state still has someone to move: only the resignation ended the match.
    writes.resign(match.pk, alice)
    for page in pages():
        assert "The match is over" in page
        assert not TURN_WORDS.search(page), TURN_WORDS.search(page)


def messages_after(response) -> list[str]:
    return [str(message) for message in response.context["messages"]]


def test_joining_or_leaving_an_ended_table_says_how_it_ended_and_changes_nothing(
    alice, bob, charlie, client_for, settings
):
    settings.REMATCH_WITHIN = 0
    over = start_match("escoba", [alice, bob])
    writes.resign(over.pk, alice)
    abandoned = writes.create_match(alice, variant("escoba"), 2, ["open"])
    writes.leave_match(abandoned.pk, alice)
    seats_before = list(Seat.objects.order_by("pk").values_list("pk", "user_id"))
    cases = [
        (charlie, "games:join", over, "Esta partida ya ha terminado."),
        (alice, "games:leave", over, "Esta partida ya ha terminado."),
        (charlie, "games:join", abandoned, "Esta mesa se abandonó: ya nadie se sienta en ella."),
        (alice, "games:leave", abandoned, "Esta mesa se abandonó: ya nadie se sienta en ella."),
    ]
    for member, action, match, said in cases:
        response = client_for(member).post(reverse(action, args=[match.pk]), follow=True)
        assert response.status_code == 200
        assert messages_after(response) == [said], (action, match.status)
    assert list(Seat.objects.order_by("pk").values_list("pk", "user_id")) == seats_before


def test_an_unchanged_poll_answers_204_and_a_changed_one_the_table(match, alice, bob, client_for):
    client = client_for(alice)
    poll = reverse("games:poll", args=[match.pk])
    assert client.get(poll, {"v": match.version}, HTTP_HX_REQUEST="true").status_code == 204
    seat, state = seat_to_move(match)
    writes.play_move(
        match.pk,
        alice if seat == 0 else bob,
        match.engine.legal_moves(state, seat)[0].code,
        match.version,
    )
    response = client.get(poll, {"v": match.version}, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert b'id="table"' in response.content


def test_an_unchanged_poll_costs_at_most_four_queries(
    match, alice, client_for, django_assert_max_num_queries
):
    client = client_for(alice)
    poll = reverse("games:poll", args=[match.pk])
    with django_assert_max_num_queries(4):
        assert client.get(poll, {"v": match.version}, HTTP_HX_REQUEST="true").status_code == 204


def test_a_move_costs_at_most_twelve_queries(
    match, alice, bob, client_for, django_assert_max_num_queries
):
    seat, state = seat_to_move(match)
    client = client_for(alice if seat == 0 else bob)
    code = match.engine.legal_moves(state, seat)[0].code
    with django_assert_max_num_queries(12):
        assert post_move(client, match, code).status_code == 200


def play_until_one_move_from_the_end(match, players):
    """Play the first legal move for whoever is to move until the next one ends the match;
    return that last move's seat and code."""
    while True:
        match.refresh_from_db()
        seat, state = seat_to_move(match)
        move = match.engine.legal_moves(state, seat)[0]
        if match.engine.is_over(match.engine.apply(state, seat, move)):
            return seat, move.code
        writes.play_move(match.pk, players[seat], move.code, match.version)


@pytest.mark.parametrize("played_before", [True, False], ids=["rated-before", "first-rated-game"])
def test_the_move_that_ends_a_rated_match_costs_at_most_thirteen_queries(
    played_before, match, alice, bob, client_for, django_assert_max_num_queries
):
    # The final move also writes the ratings (creating a newcomer's), the results and the
    # head-to-head records. Thirteen, one more than before issue 16: the match is locked alone
    # and its seats read after the lock (one statement read them from before the wait).
    if played_before:
        for user in (alice, bob):
            Rating.objects.create(user=user, game="escoba")
    assert match.rated
    seat, code = play_until_one_move_from_the_end(match, [alice, bob])
    client = client_for([alice, bob][seat])
    # The member has the table open, as they would: that visit notes when they were last
    # seen (a write at most every few minutes), which is not the move's.
    client.get(match.get_absolute_url())
    with django_assert_max_num_queries(13):
        assert post_move(client, match, code).status_code == 200
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert Rating.objects.filter(game="escoba", games=1).count() == 2


def test_cards_are_drawn_with_their_suit_as_svg_not_as_escaped_text(match, alice, client_for):
    page = client_for(alice).get(match.get_absolute_url()).content.decode()
    assert page.count('<svg class="suit"') >= 3  # her three cards at least
    assert "&lt;svg" not in page


def test_a_spectator_sees_the_table_without_any_hand(match, charlie, client_for):
    data = match.engine.dump(engine_state(match))
    page = client_for(charlie).get(match.get_absolute_url()).content.decode()
    assert hidden_cards_in(page, data["hands"][0] + data["hands"][1] + data["deck"]) == []
    assert "Your hand" not in page and "Tu mano" not in page


def test_the_replay_waits_for_the_end_of_the_match(match, alice, client_for):
    client = client_for(alice)
    assert client.get(reverse("games:replay", args=[match.pk])).status_code == 403
    writes.resign(match.pk, alice)
    page = client.get(reverse("games:replay", args=[match.pk]), {"step": 0})
    assert page.status_code == 200
    assert page.context["step"] == 0
    # The replay draws the game's own table, every hand open. (Four cards, unless the deal
    # was an opening escoba and the dealer took them: the seed is random.)
    data = match.engine.dump(match.engine.new_game(2, seed=match.seed))
    assert [c["id"] for c in page.context["table_cards"]] == data["table"]
    html = page.content.decode()
    for card in data["hands"][0] + data["hands"][1]:
        assert f'aria-label="{present.card(card)["name"]}"' in html


def play_out(match, users, rng, max_moves=400):
    """Random legal moves through ``writes.play_move`` until the match ends."""
    for _ in range(max_moves):
        match.refresh_from_db()
        if match.status != Match.Status.PLAYING:
            return match
        state = match.engine.load(match.state)
        seat = match.engine.to_move(state)[0]
        move = rng.choice(match.engine.legal_moves(state, seat))
        writes.play_move(match.pk, users[seat], move.code, match.version)
    raise AssertionError("the match did not end")


@pytest.mark.parametrize("slug", ["standard", "renuncio", "recogida-obligatoria-estricta"])
def test_the_move_log_replays_to_the_stored_state(slug, alice, bob):
    match = start_match("escoba", [alice, bob], slug=slug)
    match = play_out(match, [alice, bob], random.Random(slug))
    assert match.status == Match.Status.FINISHED
    assert match.engine.dump(match.replay()) == match.state
    assert match.moves.count() == match.moves_played
    ranks = sorted(match.seats.values_list("rank", flat=True))
    assert ranks[0] == 1


def test_editing_house_rules_never_changes_a_match_already_created(match):
    rules = RuleVariant.objects.get(pk=match.variant_id)
    rules.options = {"capture_rule": "obligatory"}
    rules.save()
    match.refresh_from_db()
    assert match.options == {}


def test_rules_pages_are_public_and_name_the_house_rules(client):
    page = client.get(reverse("games:rules", args=["escoba"]), {"variant": variant("escoba").pk})
    assert page.status_code == 200
    assert page.context["variant"] == variant("escoba")
    assert page.context["variant_rules"]


@pytest.mark.parametrize("level", ["easy", "hard"])
def test_bots_reply_once_the_move_commits_each_move_its_own_version(
    level, alice, client_for, django_capture_on_commit_callbacks
):
    match = start_match("escoba", [alice], fillers=[level, level])
    client = client_for(alice)
    for _ in range(3):
        match.refresh_from_db()
        state = match.engine.load(match.state)
        assert match.engine.to_move(state) == (0,), "once the bots replied, the member moves"
        move = match.engine.legal_moves(state, 0)[0]
        with django_capture_on_commit_callbacks(execute=True):
            response = post_move(client, match, move.code)
        assert response.status_code == 200
        # The page answers with the member's own move; the bots move after it, one version each.
        assert response.context["match"].version == match.version + 1
        assert Match.objects.get(pk=match.pk).version == match.version + 3
    records = list(MoveRecord.objects.filter(match=match).values_list("seat", flat=True))
    assert records[-9:] == [0, 1, 2] * 3
    page = client.get(reverse("games:match", args=[match.pk]))
    assert {e["seat"] for e in page.context["last_lines"]} >= {1, 2}


def test_a_table_filled_with_bots_starts_at_once_unrated(alice):
    match = writes.create_match(alice, variant("escoba"), 3, ["easy", "easy"])
    match.refresh_from_db()
    assert match.status == Match.Status.PLAYING
    assert match.rated is False
    run_bots(match)  # the worker's part, when a bot is first to play
    match.refresh_from_db()
    seat = match.engine.to_move(match.engine.load(match.state))
    assert seat == (0,)


def test_resigning_in_pairs_loses_for_the_partner_too(make_member):
    users = [make_member(f"p{i}") for i in range(4)]
    match = start_match("escoba", users, slug="por-parejas")
    writes.resign(match.pk, users[1])
    ranks = dict(match.seats.values_list("index", "rank"))
    assert ranks == {0: 1, 1: 2, 2: 1, 3: 2}


def test_an_escoba_fragment_refers_to_its_card_drawings_which_the_page_holds_once(
    match, alice, client_for
):
    client = client_for(alice)
    page = client.get(match.get_absolute_url()).content.decode()
    fragment = client.get(match.get_absolute_url(), HTTP_HX_REQUEST="true").content.decode()
    # The page defines every suit sign once; the cards, in the page and in the fragment the
    # poll and the moves swap in, only refer to them.
    assert page.count('<symbol id="es-suit-') == 4
    assert '<use href="#es-suit-' in fragment
    assert "<symbol" not in fragment and "<path" not in fragment


def test_the_lobby_lists_a_table_opened_or_joined_since_the_last_visit(
    alice, bob, charlie, client_for
):
    page = client_for(charlie)
    assert list(page.get(reverse("games:lobby")).context["open_tables"]) == []
    first = writes.create_match(alice, variant("scout"), 3, ["open", "open"])
    assert [m.pk for m in page.get(reverse("games:lobby")).context["open_tables"]] == [first.pk]
    writes.join_match(first.pk, bob)
    shown = page.get(reverse("games:lobby")).context["open_tables"]
    assert [s.user_id for s in shown[0].summary_seats()][:2] == [alice.pk, bob.pk]
    # Taking the last seat starts the match: it is no longer waiting.
    writes.join_match(first.pk, charlie)
    assert list(page.get(reverse("games:lobby")).context["open_tables"]) == []
