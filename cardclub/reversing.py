"""The URLs every table fragment names, each reversed once per process (issue 34).

A table's move, poll and stream URLs, its rules page and its members' pages are in every move's
and every poll's answer, and Django's ``reverse`` resolves the pattern anew each time (about
16 µs each, six per fragment). The same name, arguments, script prefix and URL configuration
always give the same URL, so it is kept under all four (the URL configuration is the request's,
else the one the settings name: a test may change it).
"""

from __future__ import annotations

from functools import lru_cache

from django.conf import settings
from django.urls import get_script_prefix, get_urlconf, reverse

# Enough for every table and member a busy process names; the least recently used go first.
SIZE = 16_384


@lru_cache(maxsize=SIZE)
def _reversed(name: str, args: tuple, prefix: str, urlconf) -> str:
    # ``prefix`` is the current script prefix (``reverse`` reads it itself): only part of the key.
    return reverse(name, args=args, urlconf=urlconf)


def kept_reverse(name: str, *args) -> str:
    """``reverse(name, args=args)``, worked out once per process for each value."""
    return _reversed(name, args, get_script_prefix(), get_urlconf() or settings.ROOT_URLCONF)
