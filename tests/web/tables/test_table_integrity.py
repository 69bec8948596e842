"""Tables that never lose a write, as one request at a time can show it: what every action reads
after the lock, simultaneous decisions, versions that waiting pages follow, the end of a match on
every page, the overdue sweep, and the lock order of shared rows.

Real simultaneous requests against a multi-worker server are in tests/load/ (``-m race``).
"""

from __future__ import annotations

import re
from datetime import timedelta
from unittest import mock

import pytest
from django.db import DatabaseError, OperationalError, connection, transaction
from django.db.models.signals import post_save
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from cardclub.leagues import actions as league_actions
from cardclub.leagues.models import Fixture
from cardclub.ratings import services
from games import locking, turns, writes
from games.locking import ActionError
from games.models import Match, MoveRecord
from games.scout import engine as scout
from tests.web.table_helpers import engine_state, post_move, start_match, variant


def locking_read(match_id: int) -> Match:
    """The match as an action reads it, in the transaction an action runs in."""
    with transaction.atomic():
        return Match.read_locked(match_id)


pytestmark = pytest.mark.django_db


def poll(client, match, version):
    return client.get(
        reverse("games:poll", args=[match.pk]), {"v": version}, HTTP_HX_REQUEST="true"
    )


# --- Versions that waiting pages follow ---------------------------------------------------------


def test_joining_and_leaving_change_the_version_so_the_waiting_page_redraws(
    make_member, client_for
):
    creator, joiner = make_member("creator"), make_member("joiner")
    match = writes.create_match(creator, variant("scout"), 3, ["open", "open"])
    seen = match.version
    writes.join_match(match.pk, joiner)
    response = poll(client_for(creator), match, seen)
    assert response.status_code == 200
    assert "joiner" in response.content.decode()
    match.refresh_from_db()
    seen = match.version
    writes.leave_match(match.pk, joiner)
    response = poll(client_for(creator), match, seen)
    assert response.status_code == 200
    assert "joiner" not in response.content.decode()


def test_the_join_that_starts_a_match_gives_a_newer_version_than_every_join_before(
    make_member,
):
    users = [make_member(f"p{i}") for i in range(3)]
    match = writes.create_match(users[0], variant("scout"), 3, ["open", "open"])
    writes.join_match(match.pk, users[1])
    match.refresh_from_db()
    waiting = match.version
    writes.join_match(match.pk, users[2])
    match.refresh_from_db()
    assert match.status == Match.Status.PLAYING
    assert match.version > waiting


def test_the_last_member_to_leave_abandons_the_table_and_its_page_says_so(alice, client_for):
    match = writes.create_match(alice, variant("escoba"), 2, ["open"])
    writes.leave_match(match.pk, alice)
    match.refresh_from_db()
    assert match.status == Match.Status.ABANDONED
    html = client_for(alice).get(match.get_absolute_url()).content.decode()
    assert "This table was abandoned" in html or "Esta mesa se abandonó" in html
    response = client_for(alice).get(reverse("games:replay", args=[match.pk]))
    assert response.status_code == 403
    assert "nada que repasar" in response.content.decode()


# --- The end of a match on every page -----------------------------------------------------------


def test_after_a_resignation_the_other_page_loses_its_live_controls_on_its_next_poll(
    alice, bob, client_for, settings
):
    # No rematch offered (cardclub/social): a finished match's page then stops listening.
    settings.REMATCH_WITHIN = 0
    match = start_match("escoba", [alice, bob])
    bob_client = client_for(bob)
    page = bob_client.get(match.get_absolute_url()).content.decode()
    assert reverse("games:resign", args=[match.pk]) in page
    seen = match.version
    writes.resign(match.pk, alice)
    html = poll(bob_client, match, seen).content.decode()
    # The controls region and the messages come out of band and replace the live ones.
    assert re.search(r'<div id="match-controls" hx-swap-oob="true">\s*</div>', html)
    assert reverse("games:resign", args=[match.pk]) not in html
    assert '<div id="messages" class="messages" aria-live="polite" hx-swap-oob="true">' in html
    assert "hx-trigger" not in html  # no more polling
    assert 'class="panel result"' in html


def test_the_controls_travel_only_when_the_status_the_page_shows_has_changed(
    alice, bob, client_for
):
    match = start_match("escoba", [alice, bob])
    bob_client = client_for(bob)
    url = reverse("games:poll", args=[match.pk])
    seen = match.version
    mover = alice if match.seats.get(index=0).to_move else bob
    state = match.engine.load(match.state)
    code = match.engine.legal_moves(state, match.engine.to_move(state)[0])[0].code
    moved = post_move(client_for(mover), match, code).content.decode()
    # A move is made on a page of a match being played: its answer leaves the controls alone.
    assert 'id="match-controls"' not in moved
    playing = bob_client.get(url, {"v": seen, "s": "playing"}, HTTP_HX_REQUEST="true")
    assert 'id="match-controls"' not in playing.content.decode()
    # The page's own link says which status it shows (the poll carries it).
    page = bob_client.get(match.get_absolute_url()).content.decode()
    assert "&amp;s=playing" in page
    seen = Match.objects.get(pk=match.pk).version
    writes.resign(match.pk, alice)
    ended = bob_client.get(url, {"v": seen, "s": "playing"}, HTTP_HX_REQUEST="true")
    assert re.search(
        r'<div id="match-controls" hx-swap-oob="true">\s*</div>', ended.content.decode()
    )


def test_after_the_last_move_the_other_page_shows_the_result_without_controls_or_old_messages(
    alice, bob, client_for, settings
):
    # No rematch offered (cardclub/social): a finished match's page then stops listening.
    settings.REMATCH_WITHIN = 0
    from tests.web.tables.test_tables import play_until_one_move_from_the_end

    match = start_match("escoba", [alice, bob])
    seat, code = play_until_one_move_from_the_end(match, [alice, bob])
    other = client_for([alice, bob][1 - seat])
    # An old message on the other member's page (an error from pressing "Take a seat").
    other.post(reverse("games:join", args=[match.pk]))
    page = other.get(match.get_absolute_url()).content.decode()
    assert "empezado" in page or "started" in page
    seen = Match.objects.get(pk=match.pk).version
    match.refresh_from_db()
    post_move(client_for([alice, bob][seat]), match, code)
    html = poll(other, match, seen).content.decode()
    assert 'class="panel result"' in html
    assert reverse("games:resign", args=[match.pk]) not in html
    messages = re.search(r'<div id="messages"[^>]*>(.*?)</div>', html, re.S).group(1)
    assert messages.strip() == ""
    assert "hx-trigger" not in html


def test_a_message_still_waiting_comes_with_the_next_fragment_once(alice, bob, client_for):
    match = start_match("escoba", [alice, bob])
    page = client_for(alice)
    # A message that no page has shown yet (a refused join, from a form without htmx).
    page.post(reverse("games:join", args=[match.pk]))
    match.refresh_from_db()

    def shown(html: str) -> str:
        return re.search(r'<div id="messages"[^>]*>(.*?)</div>', html, re.S).group(1)

    first = shown(poll(page, match, match.version - 1).content.decode())
    assert 'class="message error"' in first
    assert shown(poll(page, match, match.version - 1).content.decode()).strip() == ""


# --- Simultaneous decisions ---------------------------------------------------------------------


def scout_table(make_member, players=3):
    users = [make_member(f"player{i}") for i in range(players)]
    return start_match("scout", users), users


def test_decisions_made_at_once_do_not_make_each_other_stale(make_member):
    match, users = scout_table(make_member)
    drawn_at = match.version  # every page was drawn here, before anybody decided
    for user in users:
        writes.play_move(match.pk, user, "k", drawn_at)
    state = engine_state(match)
    assert state.phase == scout.PLAY
    assert MoveRecord.objects.filter(match=match).count() == len(users)
    assert match.replay() == state


def test_a_decision_from_a_page_of_an_earlier_round_is_still_stale(make_member):
    match, users = scout_table(make_member, players=3)
    first_round = match.version
    for user in users:
        writes.play_move(match.pk, user, "k", first_round)
    # Play the round out: whoever is on turn passes or plays the first legal move.
    match.refresh_from_db()
    state = engine_state(match)
    first = state.round
    while state.round == first and not scout.is_over(state):
        seat = scout.to_move(state)[0]
        move = scout.legal_moves(state, seat)[0]
        writes.play_move(match.pk, users[seat], move.code, match.version)
        match.refresh_from_db()
        state = engine_state(match)
    assert state.phase == scout.DECIDE  # the next round's decision
    with pytest.raises(ActionError):
        writes.play_move(match.pk, users[0], "k", first_round)


def test_in_sequential_play_a_stale_version_is_refused_even_when_it_is_your_turn(alice, bob):
    match = start_match("escoba", [alice, bob])
    state = engine_state(match)
    seat = match.engine.to_move(state)[0]
    players = [alice, bob]
    drawn_at = match.version
    move = match.engine.legal_moves(state, seat)[0]
    writes.play_move(match.pk, players[seat], move.code, drawn_at)
    match.refresh_from_db()
    state = engine_state(match)
    other = match.engine.to_move(state)[0]
    assert other != seat
    # The other member's page was drawn before that move: refused, though it is their turn now.
    with pytest.raises(ActionError, match="cambiado"):
        writes.play_move(
            match.pk, players[other], match.engine.legal_moves(state, other)[0].code, drawn_at
        )


def test_a_decided_seat_cannot_decide_again_from_an_old_page(make_member):
    match, users = scout_table(make_member)
    drawn_at = match.version
    writes.play_move(match.pk, users[0], "k", drawn_at)
    writes.play_move(match.pk, users[1], "k", drawn_at)
    with pytest.raises(ActionError):
        writes.play_move(match.pk, users[0], "r", drawn_at)


def test_every_move_records_the_version_it_produced(alice, bob):
    match = start_match("escoba", [alice, bob])
    state = engine_state(match)
    seat = match.engine.to_move(state)[0]
    writes.play_move(
        match.pk, [alice, bob][seat], match.engine.legal_moves(state, seat)[0].code, match.version
    )
    match.refresh_from_db()
    assert list(MoveRecord.objects.filter(match=match).values_list("version", flat=True)) == [
        match.version
    ]


# --- What every action reads under the lock --------------------------------------------------


def test_the_locked_read_of_a_match_holds_every_column_as_the_orm_reads_it(alice, bob):
    match = start_match("scout", [alice, bob], fillers=["easy"])
    locked_match = locking_read(match.pk)
    read = Match.objects.get(pk=match.pk)
    for field in Match._meta.concrete_fields:
        assert getattr(locked_match, field.attname) == getattr(read, field.attname), field.name
    assert locked_match.state["hands"] == read.state["hands"]
    assert locked_match.updated_at.tzinfo is not None
    assert Match.read_locked(match.pk + 1000) is None


def test_a_shown_match_is_read_with_its_house_rules_as_the_orm_reads_them(alice, bob):
    match = start_match("escoba", [alice, bob])
    shown = Match.read_with_rules(match.pk)
    read = Match.objects.select_related("variant").get(pk=match.pk)
    for field in Match._meta.concrete_fields:
        assert getattr(shown, field.attname) == getattr(read, field.attname), field.name
    with CaptureQueriesContext(connection) as queries:
        assert shown.variant.slug == "standard"
        assert shown.variant.options == read.variant.options
    assert len(queries) == 0
    assert Match.read_with_rules(match.pk + 1000) is None


def test_the_locked_read_asks_for_the_row_lock_where_the_database_has_row_locks(alice, bob):
    match = start_match("escoba", [alice, bob])
    with CaptureQueriesContext(connection) as queries:
        locking_read(match.pk)
    [statement] = [q["sql"] for q in queries.captured_queries if q["sql"].startswith("SELECT")]
    assert statement.endswith("FOR UPDATE") == connection.features.has_select_for_update


def test_an_action_reads_the_seats_in_order_with_their_members_and_no_other_matchs(
    alice, bob, make_member
):
    other = start_match("scout", [make_member("carla"), make_member("dario")], fillers=["easy"])
    match = start_match("scout", [bob, alice], fillers=["hard"])
    with CaptureQueriesContext(connection) as queries:
        _locked, seats = locking.locked(match.pk)
        names = [seat.user.username if seat.user else None for seat in seats]
    assert len(queries) == 2  # the match, then its seats with their members
    assert [seat.index for seat in seats] == [0, 1, 2]
    assert names == ["bob", "alice", None]
    assert [seat.bot_level for seat in seats] == ["", "", "hard"]
    # Queried afresh, the seats held on the match are still this match's alone.
    assert (
        sorted(_locked.seats.filter(index__gte=0).values_list("match_id", flat=True))
        == [match.pk] * 3
    )
    assert _locked.seats.exclude(user=None).count() == 2
    assert other.pk != match.pk


def test_the_log_of_a_move_writes_every_column_a_move_record_has(alice, bob):
    every = {field.name for field in MoveRecord._meta.concrete_fields if not field.primary_key}
    assert set(turns.LOGGED) == every
    match = start_match("schotten_totten", [alice, bob])
    state = engine_state(match)
    seat = match.engine.to_move(state)[0]
    code = match.engine.legal_moves(state, seat)[0].code
    before = timezone.now()
    writes.play_move(match.pk, [alice, bob][seat], code, match.version)
    [record] = MoveRecord.objects.filter(match=match)
    assert (record.seq, record.seat, record.code) == (1, seat, code)
    assert before <= record.created_at <= timezone.now()


def test_a_move_writes_the_match_row_it_holds_and_tells_the_pages_as_a_save_would(alice, bob):
    match = start_match("escoba", [alice, bob])
    state = engine_state(match)
    seat = match.engine.to_move(state)[0]
    code = match.engine.legal_moves(state, seat)[0].code
    heard = []

    def saved(sender, instance, created, update_fields, **kwargs):
        heard.append((instance.pk, created, update_fields))

    post_save.connect(saved, sender=Match, dispatch_uid="test.saved")
    try:
        result = writes.play_move(match.pk, [alice, bob][seat], code, match.version)
    finally:
        post_save.disconnect(dispatch_uid="test.saved", sender=Match)
    assert heard == [(match.pk, False, frozenset(turns.PLAY_FIELDS))]
    stored = Match.objects.get(pk=match.pk)
    for name in turns.PLAY_FIELDS:
        assert getattr(stored, name) == getattr(result.match, name), name
    assert stored.version == match.version + 1
    assert stored.updated_at > match.updated_at


def test_writing_a_match_whose_row_is_gone_fails_as_a_save_would(alice, bob):
    match = start_match("escoba", [alice, bob])
    Match.objects.filter(pk=match.pk).delete()
    with pytest.raises(DatabaseError):
        match.write(("status",))


# --- Retries --------------------------------------------------------------------------------------


class _Deadlock(Exception):
    sqlstate = "40P01"


def _deadlock():
    error = OperationalError("deadlock detected")
    error.__cause__ = _Deadlock()
    return error


@pytest.mark.django_db(transaction=True)
def test_an_action_that_loses_a_deadlock_is_tried_again_not_shown(alice, bob):
    match = start_match("escoba", [alice, bob])
    real = services._claim_ratings
    calls = []

    def once_deadlocked(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise _deadlock()
        return real(*args, **kwargs)

    with mock.patch.object(services, "_claim_ratings", once_deadlocked):
        writes.resign(match.pk, alice)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert len(calls) == 2


@pytest.mark.django_db(transaction=True)
def test_an_error_that_is_not_a_conflict_is_not_retried(alice, bob):
    match = start_match("escoba", [alice, bob])
    with (
        mock.patch.object(services, "_claim_ratings", side_effect=OperationalError("no disk")),
        pytest.raises(OperationalError),
    ):
        writes.resign(match.pk, alice)
    assert Match.objects.get(pk=match.pk).status == Match.Status.PLAYING


def test_ratings_are_claimed_in_member_order_whatever_the_seat_order(alice, bob):
    first, second = sorted([alice, bob], key=lambda u: u.pk)
    with mock.patch.object(services.Rating.objects, "raw") as raw:
        raw.return_value = []
        services._claim_ratings("escoba", [second.pk, first.pk])
    params = raw.call_args.args[1]
    user_column = [f.attname for f in services._CLAIM_FIELDS].index("user_id")
    width = len(services._CLAIM_FIELDS)
    assert [params[user_column], params[width + user_column]] == [first.pk, second.pk]


# --- The overdue sweep --------------------------------------------------------------------------


@pytest.fixture
def fixture_match(make_member):
    from cardclub.leagues.models import League, Season

    players = [make_member("ana"), make_member("ben")]
    league = League.objects.create(name="Liga", game="escoba", variant=variant("escoba"))
    season = Season.objects.create(league=league, name="2026")
    for user in players:
        season.add_player(user)
    season.generate_fixtures()
    fixture = Fixture.objects.get(round__season=season, round__number=1)
    for user in players:  # both say "ready": the second one starts the match
        fixture = league_actions.say_ready(fixture.pk, user)
    return fixture, players


def test_the_sweep_leaves_a_match_that_finished_after_it_read_the_fixture_alone(fixture_match):
    fixture, players = fixture_match
    Fixture.objects.filter(pk=fixture.pk).update(deadline=timezone.now() - timedelta(days=1))
    # The sweep read the fixture as overdue and playing; then the match ended by resignation.
    writes.resign(fixture.match_id, players[0])
    assert league_actions.forfeit_overdue(fixture.pk) is None
    fixture.refresh_from_db()
    assert fixture.status == Fixture.Status.PLAYED
    winner = fixture.seats.get(rank=1)
    assert winner.user == players[1] and not winner.forfeited


def test_the_sweep_forfeits_the_seat_holding_up_an_overdue_match(fixture_match):
    fixture, players = fixture_match
    Fixture.objects.filter(pk=fixture.pk).update(deadline=timezone.now() - timedelta(days=1))
    forfeited = league_actions.forfeit_overdue(fixture.pk)
    assert forfeited is not None
    fixture.refresh_from_db()
    assert fixture.status == Fixture.Status.FORFEIT
    assert set(fixture.seats.filter(forfeited=True).values_list("index", flat=True)) == set(
        forfeited[1]
    )
