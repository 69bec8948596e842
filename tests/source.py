"""The project's own source as syntax trees, for the tests that check its shape (imports,
signals, settings), and the lock that keeps building syntax trees safe in the test process.

On CPython 3.11.7 the syntax-tree builder keeps its recursion count in state shared by every
thread (CPython issue 106905, fixed in 3.11.8): two threads building trees at once can fail
with "SystemError: AST constructor recursion depth mismatch". The test process has
such threads: a live server thread printing a traceback (3.11's traceback module parses each
line to place its carets) while the main thread parses the project's source, or while pytest
parses a failing test's source to report it (a failure then becomes an INTERNALERROR that ends
the whole run). :func:`serialise_syntax_trees`, installed by ``tests/conftest.py``, makes
``ast.parse`` take one lock, so only one thread builds a tree at a time.
"""

from __future__ import annotations

import ast
import threading
from pathlib import Path

_one_at_a_time = threading.RLock()
_parse = ast.parse


def _parse_alone(*args, **kwargs):
    with _one_at_a_time:
        return _parse(*args, **kwargs)


def serialise_syntax_trees() -> None:
    """Every ``ast.parse`` in this process (pytest's, the traceback module's, ours) under one
    lock; a re-entrant one, since a tree built inside another (a traceback printed while
    parsing) must not wait for itself."""
    ast.parse = _parse_alone


def parse(source: str | Path) -> ast.Module:
    """The syntax tree of ``source`` (a file's path, or its text)."""
    text = source.read_text(encoding="utf-8") if isinstance(source, Path) else source
    return ast.parse(text)
