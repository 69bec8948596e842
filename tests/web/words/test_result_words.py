"""Results that say what happened: who won and the score, or how (on time, resignation,
forfeit), to each reader; and the winner of a match won on time is told too."""

from __future__ import annotations

import pytest
from django.core import mail
from django.utils import translation
from django_tasks import default_task_backend

from cardclub.notifications.models import Kind, Notification
from cardclub.notifications.results import Place, outcome
from games import tasks as game_tasks
from games import writes
from games.models import Seat
from tests.web.social.test_notifications import DUMMY, frozen, run_queued, run_queued_mail  # noqa: F401
from tests.web.table_helpers import league_fixture_match, start_match
from tests.web.tables.test_clocks import correspondence

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def queued(settings):
    settings.TASKS = DUMMY
    default_task_backend.clear()


def _places(*rows):
    return [Place(i + 1, name, rank, score, how) for i, (name, rank, score, how) in enumerate(rows)]


def test_a_played_result_names_the_winner_and_every_score_best_first():
    places = _places(("bob", 2, 8, ""), ("alice", 1, 21, ""))
    with translation.override("en"):
        assert outcome(places, reader_id=1) == "alice won (alice 21, bob 8)."
        assert outcome(places, reader_id=2) == "You won (alice 21, bob 8)."
    with translation.override("es"):
        assert outcome(places, reader_id=1) == "Ganó alice (alice 21, bob 8)."


def test_how_it_was_won_is_said_to_winner_and_loser_alike():
    on_time = _places(("alice", 1, None, ""), ("bob", 2, None, "timed_out"))
    resigned = _places(("alice", 1, None, ""), ("bob", 2, None, "resigned"))
    with translation.override("en"):
        assert outcome(on_time, 1) == "You won on time: bob ran out of time."
        assert outcome(on_time, 2) == "alice won on time: your time ran out."
        assert outcome(resigned, 2) == "alice won: you resigned."
        assert outcome(_places(("a", 1, 0, ""), ("b", 2, 0, "forfeited")), 2) == (
            "a won by forfeit."
        )
        assert outcome(_places(("a", 1, 3, ""), ("b", 1, 3, "")), 9).startswith("First place")
        assert outcome(_places(("a", None, 0, "forfeited"), ("b", None, 0, "forfeited")), 9)


@pytest.fixture
def fixture_match(make_member):
    ana, ben = make_member("ana"), make_member("ben")
    fixture, match = league_fixture_match("schotten_totten", [ana, ben])
    Notification.objects.all().delete()
    default_task_backend.clear()
    return fixture, match, ana, ben


def test_a_fixture_result_e_mail_says_who_won_and_how(
    fixture_match, django_capture_on_commit_callbacks
):
    fixture, match, ana, ben = fixture_match
    with django_capture_on_commit_callbacks(execute=True):
        writes.resign(match.pk, ana)
    with django_capture_on_commit_callbacks(execute=True):
        assert run_queued("notify_result") == 2
    with translation.override("en"):
        texts = {n.user.username: n.text() for n in Notification.objects.for_list()}
    assert texts["ben"] == "The result of your fixture in Liga — 2026 is in. You won: ana resigned."
    assert texts["ana"].endswith("ben won: you resigned.")
    run_queued_mail()
    spanish = {m.to[0]: m.body for m in mail.outbox}
    assert "Ganaste: ana abandonó." in spanish[ben.email]


def test_the_winner_of_a_match_won_on_time_is_told_and_mailed_too(
    frozen,  # noqa: F811
    alice,
    bob,
    django_capture_on_commit_callbacks,
):
    correspondence(game="schotten_totten", days=1)
    match = start_match("schotten_totten", [alice, bob])
    late = match.engine.to_move(match.engine.load(match.state))[0]
    loser = Seat.objects.get(match=match, index=late).user
    winner = bob if loser == alice else alice
    frozen.advance(days=1, seconds=1)
    with django_capture_on_commit_callbacks(execute=True):
        assert game_tasks.sweep_clocks.call() == 1
    with django_capture_on_commit_callbacks(execute=True):
        assert run_queued("notify_lost_on_time") == 2
        assert run_queued("notify_lost_on_time") == 0  # run twice, told once
    assert set(Notification.objects.values_list("user_id", "kind")) == {
        (loser.pk, Kind.FORFEIT),
        (winner.pk, Kind.RESULT),
    }
    told = Notification.objects.for_list().get(user=winner)
    with translation.override("en"):
        assert told.text() == (
            f"Schotten Totten #{match.pk} is over. You won on time: "
            f"{loser.username} ran out of time."
        )
    assert run_queued_mail() == 2
    [to_winner] = [m for m in mail.outbox if m.to == [winner.email]]
    assert "Ganaste por tiempo" in to_winner.subject


def test_the_list_of_results_reads_the_seats_in_a_fixed_number_of_queries(
    fixture_match, django_capture_on_commit_callbacks, django_assert_max_num_queries
):
    fixture, match, ana, ben = fixture_match
    with django_capture_on_commit_callbacks(execute=True):
        writes.resign(match.pk, ana)
    run_queued("notify_result")
    with django_assert_max_num_queries(6):
        [n.text() for n in Notification.objects.for_list()]
