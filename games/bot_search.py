"""What the hard bots' searches share: running without the cyclic garbage collector.

A hard move simulates thousands of plays, allocating millions of short-lived tuples and
filling caches of positions; none of them form reference cycles, so reference counting frees
them all, yet every few thousand allocations the collector walks the young objects and now and
then every object alive, caches included. Measured on Scout (issue 35), those passes made the
slowest moves three times the median at the same work: with the collector paused for the
search, the 95th percentile comes close to the median.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def without_gc() -> Iterator[None]:
    """Pause the cyclic collector for the block (as it was before, afterwards)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
