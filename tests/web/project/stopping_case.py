"""The run that ``test_stopping_the_run`` stops: not collected by the suite (its name does not
start with ``test_``), run by itself in a pytest of its own.

The first test starts a real app server with two workers (processes of the server's own), tells
which processes it started, and waits to be stopped. The second test would tell that the run
went on after the first was stopped; the proof expects it never to run.
"""

import json
import os
import threading
from pathlib import Path

from tests import reaper
from tests.servers import start_app_server


def children_of(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat[stat.rindex(")") + 2 :].split()[1]) == pid:
                found.append(int(entry))
    return found


def test_a_server_is_running_when_the_run_is_stopped():
    report = Path(os.environ["STOPPING_REPORT"])
    server = start_app_server(workers=2)
    # A worker answered; the other may still be starting: wait until the server has forked both.
    workers: list[int] = []
    while len(workers) < 2:
        assert server.process.poll() is None, server.log.read_text()
        workers = children_of(server.process.pid)
        threading.Event().wait(0.05)
    started = {
        "pytest": os.getpid(),
        "server": server.process.pid,
        "workers": workers,
        "reaper": reaper.reaper_pid(),
    }
    written = report.with_suffix(".writing")
    written.write_text(json.dumps(started))
    written.rename(report)  # whole, or not there
    threading.Event().wait()  # until the run is stopped


def test_the_run_went_on():
    Path(os.environ["STOPPING_REPORT"]).with_suffix(".went-on").write_text("yes")
