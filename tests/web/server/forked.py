"""Another worker process for the tests of the workers' shared board (cardclub/workerload.py):
forked, as gunicorn forks its workers from the master that made the board."""

from __future__ import annotations

import contextlib
import multiprocessing
import os

from cardclub.workerload import Board

FORK = multiprocessing.get_context("fork")


def _work(board: Board, in_flight: int, claimed, done) -> None:
    claimed.put(board.claim())
    board.note(in_flight)
    done.wait(60)  # a bound, not a measure: the test sets it when it has looked
    board.release()
    os._exit(0)  # no test machinery of the parent's runs again in the child


@contextlib.contextmanager
def other_worker(board: Board, in_flight: int, release: bool = True):
    """A forked process holding a slot of ``board`` with ``in_flight`` requests noted, for as
    long as the block runs; the slot it claimed is what the block is given. It gives the slot
    back as it stops (``release``), or is killed holding it."""
    claimed, done = FORK.Queue(), FORK.Event()
    process = FORK.Process(target=_work, args=(board, in_flight, claimed, done), daemon=True)
    process.start()
    try:
        yield claimed.get(timeout=60)
    finally:
        if release:
            done.set()
        else:
            process.kill()
        process.join(60)
