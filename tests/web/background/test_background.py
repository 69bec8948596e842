"""Background work (issue 18): bots move in the worker one committed version at a time, never
twice and never lost; the sweeps and the mail go through the task queue."""

from __future__ import annotations

import os
import signal
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.core import mail
from django.core.cache import cache
from django.core.management import call_command
from django.db import connection
from django.urls import reverse
from django.utils import timezone
from django_tasks import default_task_backend
from django_tasks_db.models import DBTaskResult

from games import bot_moves, tasks, turns, writes
from games.models import Match, MoveRecord
from tests.conftest import STOP_SIGNALS, signal_handlers_kept
from tests.servers import spawn
from tests.web.table_helpers import post_move, run_bots, start_match, variant

DUMMY = {"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"}}
DATABASE = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": []}}


def member_move(match):
    match.refresh_from_db()
    state = match.engine.load(match.state)
    assert match.engine.to_move(state) == (0,)
    return match.engine.legal_moves(state, 0)[0].code


def queued(name="play_bot_move"):
    return [r for r in default_task_backend.results if r.task.name == name]


@pytest.mark.django_db
def test_a_move_against_bots_returns_at_once_and_queues_the_bot_move_after_commit(
    alice, client_for, settings, django_capture_on_commit_callbacks
):
    match = start_match("escoba", [alice], fillers=["hard", "hard"])
    settings.TASKS = DUMMY
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = post_move(client_for(alice), match, member_move(match))
    assert response.status_code == 200
    # The other on-commit callback is the live table's push announcement (issue 19).
    to_bots = [c for c in callbacks if c.__qualname__.startswith("hand_to_bots.")]
    assert len(to_bots) == 1, "the bot move is queued only once the member's move commits"
    [job] = queued()
    assert job.args == [match.pk, match.version + 1]
    assert job.task.priority == tasks.BOT_PRIORITY
    match.refresh_from_db()
    assert MoveRecord.objects.filter(match=match).latest("seq").seat == 0
    # The table says whose turn it is, the bot's too.
    assert list(match.seats.filter(to_move=True).values_list("index", flat=True)) == [1]
    assert 'class="badge turn"' in response.content.decode()


def move_against_paused_bots(match, member, settings, capture_on_commit, pause=0.4):
    """The member moves, with the queue held (nothing runs) and ``pause`` seconds between bot
    moves; the one task queued, the bot's move to think of."""
    settings.TASKS = DUMMY
    settings.BOT_MOVE_PAUSE = pause
    with capture_on_commit(execute=True):
        writes.play_move(match.pk, member, member_move(match), match.version)
    [think] = queued()
    return think


@pytest.mark.django_db
def test_the_bot_thinks_at_once_and_its_move_is_written_after_the_pause(
    alice, settings, django_capture_on_commit_callbacks
):
    """The pause is a delay in the queue, not a sleep, and it runs from the previous move."""
    match = start_match("escoba", [alice], fillers=["easy", "easy"])
    think = move_against_paused_bots(match, alice, settings, django_capture_on_commit_callbacks)
    assert think.task.run_after is None
    assert think.task.call(*think.args) is True
    match.refresh_from_db()
    assert match.version == think.args[1], "nothing is written before the pause is over"
    [write] = queued("commit_bot_move")
    assert write.task.run_after == match.updated_at + timedelta(seconds=0.4)
    # The chosen move is not in the task: its arguments are kept, and shown in the task admin.
    chosen = bot_moves.choose_bot_move(match.pk, match.version)
    assert write.args == [match.pk, match.version, chosen.seat]
    assert write.task.call(*write.args) is True
    assert MoveRecord.objects.filter(match=match).latest("seq").code == chosen.code
    assert write.task.call(*write.args) is False, "written once, however often it runs"
    assert Match.objects.get(pk=match.pk).version == match.version + 1


@pytest.mark.django_db
def test_a_commit_that_finds_no_chosen_move_chooses_the_same_one_again(
    alice, settings, django_capture_on_commit_callbacks
):
    """Another worker process, or an evicted cache, did not see the choice: the bot chooses
    again from the seed and the version, and plays the move it chose the first time."""
    match = start_match("escoba", [alice], fillers=["hard", "easy"])
    # A pause no search outlasts, however busy the machine: the move waits for its commit.
    think = move_against_paused_bots(
        match, alice, settings, django_capture_on_commit_callbacks, pause=60
    )
    assert think.task.call(*think.args) is True
    first_choice = bot_moves.choose_bot_move(*think.args).code
    cache.clear()
    [write] = queued("commit_bot_move")
    assert write.task.call(*write.args) is True
    assert MoveRecord.objects.filter(match=match).latest("seq").code == first_choice


@pytest.mark.django_db
def test_a_bot_moves_with_the_cache_down(alice, settings, django_capture_on_commit_callbacks):
    """The cache only saves choosing twice: with a shared Redis cache down, the bot still
    plays its move."""
    import socket

    match = start_match("escoba", [alice], fillers=["easy", "easy"])
    think = move_against_paused_bots(
        match, alice, settings, django_capture_on_commit_callbacks, pause=60
    )
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        closed = sock.getsockname()[1]
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{closed}/0",
        }
    }
    assert think.task.call(*think.args) is True
    [write] = queued("commit_bot_move")
    assert write.task.call(*write.args) is True
    assert Match.objects.get(pk=match.pk).version == think.args[1] + 1


@pytest.mark.django_db
def test_a_stale_bot_move_is_not_written(alice, bob):
    match = writes.create_match(alice, variant("scout"), 3, ["open", "easy"])
    writes.join_match(match.pk, bob)
    match.refresh_from_db()
    chosen = bot_moves.choose_bot_move(match.pk, match.version)
    assert chosen is not None  # the hand decision: everybody at once, the bot too
    state = match.engine.load(match.state)
    member = next(i for i in match.engine.to_move(state) if i != chosen.seat)
    user = alice if member == 0 else bob
    code = match.engine.legal_moves(state, member)[0].code
    writes.play_move(match.pk, user, code, match.version)
    moves = MoveRecord.objects.filter(match=match).count()
    assert bot_moves.commit_bot_move(match.pk, chosen.version, chosen.seat, chosen.code) is False
    assert MoveRecord.objects.filter(match=match).count() == moves


@pytest.mark.django_db
def test_each_bot_move_is_its_own_version_with_its_own_record(alice):
    match = start_match("escoba", [alice], fillers=["easy", "easy"])
    writes.play_move(match.pk, alice, member_move(match), match.version)
    version = match.version + 1
    assert bot_moves.play_bot_move(match.pk, version) is True
    assert Match.objects.get(pk=match.pk).version == version + 1
    assert bot_moves.play_bot_move(match.pk, version + 1) is True
    assert Match.objects.get(pk=match.pk).version == version + 2
    assert bot_moves.play_bot_move(match.pk, version + 2) is False, "the member is to move"
    seats = list(MoveRecord.objects.filter(match=match).order_by("seq").values_list("seat"))
    assert seats[-3:] == [(0,), (1,), (2,)]


@pytest.mark.django_db
def test_a_bot_task_run_twice_moves_once(alice):
    match = start_match("escoba", [alice], fillers=["easy", "easy"])
    writes.play_move(match.pk, alice, member_move(match), match.version)
    version = match.version + 1
    moves = MoveRecord.objects.filter(match=match).count()
    assert tasks.play_bot_move.call(match.pk, version) is True
    assert tasks.play_bot_move.call(match.pk, version) is False
    assert MoveRecord.objects.filter(match=match).count() == moves + 1
    assert Match.objects.get(pk=match.pk).version == version + 1


@pytest.mark.django_db
def test_two_workers_on_the_same_version_make_one_move(alice, monkeypatch):
    """The second worker thinks while the first commits: under the lock it finds the version
    moved on and writes nothing."""
    match = start_match("escoba", [alice], fillers=["hard", "hard"])
    writes.play_move(match.pk, alice, member_move(match), match.version)
    version = match.version + 1
    think = bot_moves._bot_move
    raced = []

    def think_while_the_other_worker_commits(match, seats):
        choice = think(match, seats)
        if not raced:
            raced.append("racing")
            raced[0] = bot_moves.play_bot_move(match.pk, version)
        return choice

    monkeypatch.setattr(bot_moves, "_bot_move", think_while_the_other_worker_commits)
    moves = MoveRecord.objects.filter(match=match).count()
    assert bot_moves.play_bot_move(match.pk, version) is False
    assert raced == [True]
    assert MoveRecord.objects.filter(match=match).count() == moves + 1
    assert Match.objects.get(pk=match.pk).version == version + 1


@pytest.mark.django_db
def test_a_worker_killed_mid_move_changes_nothing_and_the_sweep_finishes_the_turn(
    alice, settings, monkeypatch, django_capture_on_commit_callbacks
):
    match = start_match("escoba", [alice], fillers=["easy", "easy"])
    writes.play_move(match.pk, alice, member_move(match), match.version)
    version = match.version + 1
    moves = MoveRecord.objects.filter(match=match).count()

    def killed(*args):
        raise SystemExit("worker killed")

    with monkeypatch.context() as patch:
        patch.setattr(turns, "store", killed)
        with pytest.raises(SystemExit):
            bot_moves.play_bot_move(match.pk, version)
    assert MoveRecord.objects.filter(match=match).count() == moves
    assert Match.objects.get(pk=match.pk).version == version

    # A recent turn is not touched: the worker may just be pausing.
    settings.TASKS = DUMMY
    assert tasks.finish_stuck_bot_turns.call() == 0
    Match.objects.filter(pk=match.pk).update(updated_at=timezone.now() - timedelta(minutes=5))
    assert tasks.finish_stuck_bot_turns.call() == 1
    [job] = queued()
    assert job.args == [match.pk, version] and job.task.run_after is None

    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}
    Match.objects.filter(pk=match.pk).update(updated_at=timezone.now() - timedelta(minutes=5))
    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.finish_stuck_bot_turns.call() == 1
    match.refresh_from_db()
    assert match.engine.to_move(match.engine.load(match.state)) == (0,)
    assert MoveRecord.objects.filter(match=match).count() == moves + 2


@pytest.mark.django_db
def test_the_sweep_leaves_matches_waiting_on_a_member_alone(alice, bob, settings):
    match = start_match("escoba", [alice, bob])
    Match.objects.filter(pk=match.pk).update(updated_at=timezone.now() - timedelta(hours=1))
    settings.TASKS = DUMMY
    assert tasks.finish_stuck_bot_turns.call() == 0


@pytest.mark.django_db
def test_a_bot_keeps_to_the_moves_of_its_seat_and_the_log_replays(alice):
    match = start_match("scout", [alice], fillers=["hard", "easy", "hard", "easy"])
    for _ in range(12):
        match.refresh_from_db()
        if match.status != Match.Status.PLAYING:
            break
        state = match.engine.load(match.state)
        seat = next(iter(match.engine.to_move(state)))
        assert seat == 0
        code = match.engine.legal_moves(state, 0)[0].code
        writes.play_move(match.pk, alice, code, match.version)
        run_bots(match)
    match.refresh_from_db()
    assert match.engine.dump(match.replay()) == match.state
    assert match.version == 1 + match.moves_played


@pytest.mark.django_db(transaction=True)
def test_the_database_backend_worker_plays_the_bots_through_its_queue(alice, settings):
    settings.TASKS = DATABASE
    match = start_match("escoba", [alice], fillers=["easy", "easy"])
    call_command("db_worker", batch=True, startup_delay=False, reload=False, verbosity=0)
    writes.play_move(match.pk, alice, member_move(match), match.version)
    assert DBTaskResult.objects.filter(status="READY").count() == 1
    call_command("db_worker", batch=True, startup_delay=False, reload=False, verbosity=0)
    match.refresh_from_db()
    assert match.engine.to_move(match.engine.load(match.state)) == (0,)
    results = DBTaskResult.objects.filter(task_path="games.tasks.play_bot_move")
    assert results.exclude(status="SUCCESSFUL").count() == 0
    # Two bot moves, then a last task that found the member to move.
    assert list(MoveRecord.objects.filter(match=match).values_list("seat", flat=True))[-3:] == [
        0,
        1,
        2,
    ]


@pytest.mark.django_db(transaction=True)
def test_the_worker_run_in_the_test_process_leaves_the_stop_signals_to_the_run(settings):
    settings.TASKS = DATABASE
    before = {signum: signal.getsignal(signum) for signum in STOP_SIGNALS}
    with signal_handlers_kept() as refused:
        call_command("db_worker", batch=True, startup_delay=False, reload=False, verbosity=0)
        # The worker asked for its own (a Ctrl-C would then have stopped only the worker)...
        assert {signal.SIGINT, signal.SIGTERM} <= {signum for signum, _ in refused}
        # ...and while it ran, and after, a stop signal stops the run.
        assert {signum: signal.getsignal(signum) for signum in STOP_SIGNALS} == before
    assert {signum: signal.getsignal(signum) for signum in STOP_SIGNALS} == before


def _worker_environment() -> dict:
    # The test run's own settings (development mode), on the test run's database.
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": os.environ["DJANGO_SETTINGS_MODULE"]}
    database = connection.settings_dict
    if connection.vendor == "sqlite":
        env.pop("DATABASE_URL", None)
        env["SQLITE_PATH"] = str(database["NAME"])
    else:
        env["DATABASE_URL"] = (
            f"postgres://{database['USER']}@{database['HOST'] or '127.0.0.1'}:"
            f"{database['PORT'] or 5432}/{database['NAME']}"
        )
    return env


@pytest.mark.django_db(transaction=True)
def test_a_real_worker_process_plays_every_bot_move_after_a_pause(alice, settings):
    settings.TASKS = DATABASE
    settings.BOT_MOVE_PAUSE = 0.1
    manage = Path(__file__).resolve().parents[3] / "manage.py"
    worker = spawn(
        [sys.executable, str(manage), "db_worker", "--interval", "0.05", "--no-reload"]
        + ["--no-startup-delay", "--verbosity", "0"],
        env=_worker_environment(),
    )
    try:
        # Not start_match: its run_bots would play the first bot moves here, with no pause.
        match = writes.create_match(alice, variant("escoba"), 3, ["hard", "easy"])
        for _ in range(3):
            deadline = time.monotonic() + 30
            while True:
                match.refresh_from_db()
                state = match.engine.load(match.state)
                if match.engine.to_move(state) == (0,):
                    break
                assert time.monotonic() < deadline, "the worker did not play the bots"
                time.sleep(0.05)
            code = match.engine.legal_moves(state, 0)[0].code
            writes.play_move(match.pk, alice, code, match.version)
    finally:
        worker.terminate()
        worker.wait(10)
    records = list(MoveRecord.objects.filter(match=match).order_by("seq"))
    assert [r.seat for r in records][-7:] == [0, 1, 2, 0, 1, 2, 0]
    # Each bot move came at least the pause after the move before it.
    for before, after in zip(records, records[1:], strict=False):
        if after.seat != 0:
            assert (after.created_at - before.created_at).total_seconds() >= 0.1
    match.refresh_from_db()
    assert match.version == 1 + match.moves_played


@pytest.mark.django_db
def test_the_scheduler_queues_every_periodic_task(settings):
    settings.TASKS = DUMMY
    call_command("scheduler", once=True)
    names = sorted(r.task.module_path for r in default_task_backend.results)
    assert names == sorted(settings.PERIODIC_TASKS)


@pytest.mark.django_db
def test_the_periodic_league_sweep_runs_the_admins_command(settings):
    from cardclub.leagues.tasks import record_overdue_fixtures

    assert "recorded 0 forfeit(s)." in record_overdue_fixtures.call()


@pytest.mark.django_db
def test_a_reset_request_queues_the_same_work_for_known_and_unknown_addresses(
    client, alice, settings
):
    settings.TASKS = DUMMY
    url = reverse("password_reset")
    known = client.post(url, {"email": alice.email})
    unknown = client.post(url, {"email": "nobody@example.com"})
    assert known.status_code == unknown.status_code == 302
    assert known["Location"] == unknown["Location"]
    assert mail.outbox == [], "no mail leaves inside the request"
    jobs = queued("send_password_reset")
    assert [j.kwargs["email"] for j in jobs] == [alice.email, "nobody@example.com"]
    # The worker sends the link to the member, and nothing for the unknown address.
    for job in jobs:
        job.task.call(*job.args, **job.kwargs)
    assert [m.to for m in mail.outbox] == [[alice.email]]
    assert "/accounts/password/reset/" in mail.outbox[0].body


@pytest.mark.django_db
def test_club_mail_is_sent_by_the_worker(settings):
    from cardclub.accounts.tasks import send_email

    settings.TASKS = DUMMY
    send_email.enqueue("Hola", "Cuerpo", ["a@example.com"])
    assert mail.outbox == []
    [job] = queued("send_email")
    assert job.task.call(*job.args, **job.kwargs) == 1
    assert mail.outbox[0].subject == "Hola"


def test_after_the_worker_and_scheduler_tests_ctrl_c_and_sigterm_stop_the_run():
    """Last in the file, after its in-process worker and scheduler: the handlers are the run's
    (Python's for Ctrl-C, unless the run was started with it ignored, as a shell's background
    job is; the default for SIGTERM, which ends the run at once)."""
    from tests.conftest import RUN_HANDLERS

    assert {signum: signal.getsignal(signum) for signum in STOP_SIGNALS} == RUN_HANDLERS
    assert signal.getsignal(signal.SIGINT) in (signal.default_int_handler, signal.SIG_IGN)
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
