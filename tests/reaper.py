"""The processes a test run starts end with the run, however it ends (issue 33).

A Ctrl-C ends a run by an exception: its teardowns and ``atexit`` stop the servers
(``tests.servers``). A SIGTERM — a time limit's, or ``make``'s passing one on — ends pytest at
once, with no Python code run: the uvicorn servers, workers and Redis it started would go on
serving and holding their ports. A Python handler for SIGTERM would turn it back into an
exception raised in whatever test is running, to be caught or waited on there; so the run
keeps the default, and the ending is left to this separate small process.

The reaper is started with the first server the run starts. It holds the reading end of a pipe
whose only writer is the test process; each process the run starts is written to it (its pid
and the instant it started, which tells it from a later process given the same pid). When the
pipe ends — the test process is gone, whether it returned, raised or was killed — the reaper
ends each of those processes' groups (every server is started in a group of its own, so the
workers a server forked go with it): SIGCONT for one a test paused, SIGTERM, and SIGKILL for
what is still there a few seconds later. Then it exits.

It is in a session of its own, so a Ctrl-C at the terminal, which the run answers in its own
time, does not end it before the run has let go of the pipe.

Run as ``python -m tests.reaper`` (by :func:`watch`, not by hand).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# How long a group has to stop after SIGTERM before it is killed: a uvicorn server ends its
# workers in well under a second.
GRACE_SECONDS = 5.0

_reaper: subprocess.Popen | None = None
_lock = threading.Lock()


def started_at(pid: int) -> str | None:
    """When process ``pid`` started (clock ticks since boot, field 22 of /proc/PID/stat), or
    ``None`` when there is no such process or it has already ended (a zombie)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name (field 2) is in parentheses and may hold spaces: split after it.
    fields = stat[stat.rindex(")") + 2 :].split()
    state, start = fields[0], fields[19]
    return None if state in ("Z", "X") else start


def watch(process: subprocess.Popen) -> None:
    """Have ``process`` (started in a process group of its own) ended when the run ends."""
    global _reaper
    started = started_at(process.pid)
    if started is None:
        return  # already gone
    with _lock:
        if _reaper is None or _reaper.poll() is not None:
            _reaper = subprocess.Popen(
                [sys.executable, "-m", "tests.reaper"],
                cwd=ROOT,
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                start_new_session=True,
            )
        _reaper.stdin.write(f"{process.pid} {started}\n".encode())
        _reaper.stdin.flush()


def reaper_pid() -> int | None:
    """The reaper's pid while it runs (for the test that proves it)."""
    return _reaper.pid if _reaper is not None and _reaper.poll() is None else None


def _group_left(pid: int, started: str) -> bool:
    """Whether the group led by ``pid`` still has a process: the leader, if it is still the
    process that was watched, or any other member (a group's id is not given to a new process
    while the group has members)."""
    leader = started_at(pid)
    if leader is not None and leader != started:
        return False  # the pid is another process's now; the group it led is gone
    try:
        os.killpg(pid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    # Only zombies left (they wait for a parent to collect them): nothing runs.
    return leader is not None or any(
        started_at(int(entry)) is not None
        for entry in os.listdir("/proc")
        if entry.isdigit() and _group_of(int(entry)) == pid
    )


def _group_of(pid: int) -> int | None:
    with contextlib.suppress(OSError, ValueError, IndexError):
        stat = Path(f"/proc/{pid}/stat").read_text()
        return int(stat[stat.rindex(")") + 2 :].split()[2])
    return None


def _signal_groups(groups, signum: int) -> None:
    for pid in groups:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signum)


def end_groups(watched: list[tuple[int, str]]) -> None:
    """End every watched process group that still has a process."""
    left = [pid for pid, started in watched if _group_left(pid, started)]
    if not left:
        return
    _signal_groups(left, signal.SIGCONT)
    _signal_groups(left, signal.SIGTERM)
    deadline = time.monotonic() + GRACE_SECONDS
    started = dict(watched)
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = [pid for pid in left if _group_left(pid, started[pid])]
    _signal_groups(left, signal.SIGKILL)


def main() -> None:
    watched: list[tuple[int, str]] = []
    # Until the pipe ends: the test process has gone, however it went.
    for line in sys.stdin.buffer:
        with contextlib.suppress(ValueError):
            pid, started = line.split()
            watched.append((int(pid), started.decode()))
    end_groups(watched)


if __name__ == "__main__":
    main()
