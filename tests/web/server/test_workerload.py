"""The workers' shared board (cardclub/workerload.py): each worker forked from the process that
made it claims a slot of its own and sees what the others note; a worker gone is forgotten."""

from __future__ import annotations

from cardclub.workerload import Board
from tests.web.server.forked import other_worker


def test_a_process_that_claimed_no_slot_knows_no_other_worker():
    board = Board()
    with other_worker(board, 7):
        assert board.least_busy_other() is None
        board.note(3)  # ignored: no slot
    assert board.claim() is not None
    assert board.least_busy_other() is None  # alone on the board


def test_forked_workers_claim_slots_of_their_own_and_see_the_least_busy_other():
    board = Board()
    mine = board.claim()
    board.note(9)
    with other_worker(board, 4) as first, other_worker(board, 6) as second:
        assert len({mine, first, second}) == 3
        assert board.least_busy_other() == 4
    # Both stopped and gave their slots back.
    assert board.least_busy_other() is None


def test_a_worker_killed_holding_its_slot_is_forgotten_when_the_next_one_claims():
    board = Board(slots=2)
    with other_worker(board, 0, release=False) as ghost:
        pass
    # Its slot still says it holds 0 requests: it would look like the least busy worker.
    with other_worker(board, 5) as replacement:
        assert replacement == ghost  # the replacement took the ghost's slot back
        assert board.claim() is not None
        assert board.least_busy_other() == 5


def test_a_worker_finds_no_slot_when_all_are_taken_and_is_then_unseen():
    board = Board(slots=1)
    with other_worker(board, 2) as only:
        assert only == 0
        assert board.claim() is None
        board.note(8)
        assert board.least_busy_other() is None
