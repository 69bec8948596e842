"""Small HTTP helpers shared by the club's views."""

from __future__ import annotations

from functools import wraps

from django.utils.cache import add_never_cache_headers


def private_no_store(view):
    """Pages with a member's hand must not be kept by any cache or the back/forward cache.

    Sends ``Cache-Control: max-age=0, no-cache, no-store, must-revalidate, private``.
    """

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        response = view(request, *args, **kwargs)
        add_never_cache_headers(response)
        return response

    return wrapper
