"""The project's own source as syntax trees, for the tests that check its shape (imports,
signals, settings).

``ast.parse`` runs in a thread of its own: on CPython 3.11.7, once the browser tests'
Playwright (its greenlets switching in the main thread) has run, ``ast.parse`` in the main
thread can fail with "SystemError: AST constructor recursion depth mismatch" (CPython issue
106905, fixed in 3.11.8). A fresh thread starts with its own, consistent recursion count, so
these tests pass in any order.
"""

from __future__ import annotations

import ast
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path


def parse(source: str | Path) -> ast.Module:
    """The syntax tree of ``source`` (a file's path, or its text)."""
    text = source.read_text(encoding="utf-8") if isinstance(source, Path) else source
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(ast.parse, text).result()
