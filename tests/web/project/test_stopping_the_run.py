"""Ctrl-C or SIGTERM stops ``make test`` at once, and nothing it started is left running
(issue 33). A real ``make test`` runs ``stopping_case.py`` (a real app server with two worker
processes, then a test that must never run), is stopped the way a terminal or a time limit
stops it, and every process it started is watched until it is gone.

The run under test is on SQLite in a directory of its own: it must not touch the database of
the run that tests it.
"""

import contextlib
import json
import os
import signal
import subprocess
import threading

import pytest

from tests.reaper import ROOT, started_at

CASE = "tests/web/project/stopping_case.py"
# Bounds for a failure to be reported rather than hang the suite; what is proved is the order of
# events (stopped, then every process gone), not how quickly.
BOUND_S = 60


def start_make(tmp_path):
    report = tmp_path / "started.json"
    env = {
        **os.environ,
        "PYTEST_ADDOPTS": f"{CASE} -p no:randomly -q",
        "STOPPING_REPORT": str(report),
        "DATABASE_URL": "",
        "SQLITE_PATH": str(tmp_path / "db.sqlite3"),
        "TMPDIR": str(tmp_path),
    }
    env.pop("MAKEFLAGS", None)
    # In a process group of its own, as a shell runs a command in the foreground: a terminal's
    # Ctrl-C goes to that whole group.
    make = subprocess.Popen(
        ["make", "-s", "test"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        process_group=0,
    )
    output: list[bytes] = []
    reader = threading.Thread(target=lambda: output.extend(make.stdout), daemon=True)
    reader.start()
    while not report.exists():
        if make.poll() is not None:
            reader.join(5)
            pytest.fail(f"make test ended before its server ran:\n{b''.join(output).decode()}")
        threading.Event().wait(0.1)  # for the run under test to say it is ready
    started = json.loads(report.read_text())
    return make, started, output, tmp_path


def processes_of(started: dict) -> dict[int, str]:
    """The processes the run under test had, with when each started (a later process given the
    same pid is not one of them)."""
    pids = [started["pytest"], started["server"], *started["workers"], started["reaper"]]
    return {pid: started_at(pid) for pid in pids if pid is not None}


def wait_until_gone(processes: dict[int, str]) -> list[int]:
    """The processes still running once all have ended or BOUND_S has passed."""
    left = list(processes)
    done = threading.Event()
    for _ in range(BOUND_S * 20):
        left = [pid for pid in left if started_at(pid) == processes[pid]]
        if not left:
            break
        done.wait(0.05)
    return left


@pytest.mark.parametrize(
    "stop",
    [
        pytest.param(lambda make: os.kill(make.pid, signal.SIGTERM), id="SIGTERM to make"),
        pytest.param(lambda make: os.killpg(make.pid, signal.SIGINT), id="Ctrl-C at a terminal"),
    ],
)
def test_stopping_make_test_ends_the_run_and_every_process_it_started(tmp_path, stop):
    make, started, output, tmp = start_make(tmp_path)
    processes = processes_of(started)
    try:
        assert all(processes.values()), f"the run's processes were not all running: {started}"
        assert started["reaper"] is not None

        stop(make)
        make.wait(timeout=BOUND_S)

        left = wait_until_gone(processes)
        assert left == [], f"still running after make test was stopped: {left} of {started}"
        assert make.returncode != 0
        assert not (tmp / "started.went-on").exists(), "the run went on to the next test"
    finally:
        # A failure above must not leave the run under test waiting for ever: make (our child,
        # its pid not given to another until we collect it) and, if it is still the process it
        # was, the server's group.
        groups = [make.pid]
        if started_at(started["server"]) == processes[started["server"]]:
            groups.append(started["server"])
        for group in groups:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(group, signal.SIGKILL)
        make.wait(timeout=BOUND_S)
