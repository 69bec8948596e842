"""bench_request_cpu's comparison of two checkouts says which way each kind of request moved."""

from __future__ import annotations

from tests.bench.bench_request_cpu import beside_compared


def test_each_kind_is_said_cheaper_or_dearer_than_in_the_compared_checkout():
    cpu = {
        "this": {"bare view": (1.0, 0.3), "move POST": (5.0, 0.6), "page": (9.0, 0.7)},
        "compared": {"bare view": (6.0, 1.6), "move POST": (4.0, 2.4)},
    }
    lines = beside_compared(cpu)
    assert lines[1] == "  bare view                1.00 against   6.00 ms: 6.00x cheaper"
    assert lines[2] == "  move POST                5.00 against   4.00 ms: 1.25x dearer"
    # A kind only one checkout measured is left out rather than compared with nothing.
    assert len(lines) == 3
