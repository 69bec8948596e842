from __future__ import annotations

from functools import cache


def bell(request):
    """The unread count for the header's bell: a callable, so the one query runs only when a
    template draws the bell (a full page), never for the fragments and moves that do not."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}

    @cache
    def count() -> int:
        from .services import unread_count

        return unread_count(user.pk)

    return {"bell_unread": count}
