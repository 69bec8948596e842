"""How many requests each worker of one gunicorn master has in flight, in memory the workers
share, so that a busy worker can tell whether another is less busy (``cardclub/spread.py``).

The board is made when this module is first imported. gunicorn's master imports it (through
the worker class, ``cardclub/server.py``) before it forks the workers, so every worker it
forks, and every one it forks again after a crash, sees the same memory. Each worker claims a
slot when it starts (``Worker.init_process``) and writes only its own; reads need no lock: a
slot is one machine word, and a count a moment old is as good as a fresh one for the choice it
serves. A worker killed without a word leaves its slot behind; the next worker to claim one
frees the slots of processes that are gone, so a replacement does not leave a ghost that
looks idle for ever.

Under a server that did not fork from a master holding the board (uvicorn alone, the tests'
servers), no worker claims a slot and the board knows nothing: ``least_busy_other`` is
``None``.
"""

from __future__ import annotations

import multiprocessing
import os

# More than a 2-core machine runs; a worker that finds no free slot just goes unseen.
SLOTS = 64


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # another user's process: there all the same
    return True


class Board:
    def __init__(self, slots: int = SLOTS):
        self._pids = multiprocessing.RawArray("i", slots)
        self._counts = multiprocessing.RawArray("i", slots)
        self._lock = multiprocessing.Lock()
        self.slot: int | None = None

    def claim(self) -> int | None:
        """Take a slot for this process (in the worker, after the fork); free those of
        processes that are gone. The slot, or ``None`` when every one is taken."""
        me = os.getpid()
        with self._lock:
            self.slot = None
            for i, pid in enumerate(self._pids):
                if pid and pid != me and not _alive(pid):
                    self._pids[i] = 0
                if self.slot is None and self._pids[i] in (0, me):
                    self._pids[i], self._counts[i] = me, 0
                    self.slot = i
        return self.slot

    def release(self) -> None:
        """Give the slot back (a worker stopping)."""
        if self.slot is not None:
            with self._lock:
                self._pids[self.slot] = self._counts[self.slot] = 0
            self.slot = None

    def note(self, in_flight: int) -> None:
        """This worker's requests in flight now."""
        if self.slot is not None:
            self._counts[self.slot] = in_flight

    def least_busy_other(self) -> int | None:
        """The fewest requests in flight of any other worker, or ``None`` when no other is
        known (this one holds no slot, or is alone)."""
        if self.slot is None:
            return None
        counts = [
            count
            for i, (pid, count) in enumerate(zip(self._pids[:], self._counts[:], strict=True))
            if pid and i != self.slot
        ]
        return min(counts, default=None)


BOARD = Board()
