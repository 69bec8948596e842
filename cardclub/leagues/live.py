"""A cup's bracket, live: every tie that changes wakes the season page's push stream.

The stream (``leagues:season_live``, served by ``games/streams.py`` like a table's) listens to
the season's key and starts with the bracket's stamp, a number that changes whenever a tie is
made or decided or a game of it is won; the page holds the same stamp in its bracket's
``data-version`` and, told of another, fetches the bracket partial (``static/js/live.js``).
Without a stream (WSGI, a broker outage, too many tabs) the page polls that partial instead.
Like every push, the stream says only "something changed": the page fetches what it may see.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from django.conf import settings
from django.db import transaction
from django.db.models import Count, Sum

logger = logging.getLogger(__name__)

EVENT = "bracket"


def season_key(season_id: int) -> str:
    return f"s:{season_id}"


def stamp(ties: int, decided: int, games_won: int) -> int:
    """The bracket's "version": how many ties, how many decided, how many games won. Each
    change to a bracket moves at least one of them (a draw played again changes nothing shown)."""
    return (ties * 1000 + decided) * 10_000 + games_won


def stamp_of(ties: Iterable) -> int:
    """The stamp of ties already loaded (the page's bracket), without a query."""
    ties = [t for t in ties if t is not None]
    return stamp(
        len(ties),
        sum(1 for t in ties if t.winner_id),
        sum(t.first_wins + t.second_wins for t in ties),
    )


def _totals():
    return {
        "ties": Count("pk"),
        "decided": Count("winner"),
        "first": Sum("first_wins"),
        "second": Sum("second_wins"),
    }


def _from_totals(row) -> int:
    return stamp(row["ties"], row["decided"], (row["first"] or 0) + (row["second"] or 0))


def stamp_now(season_id: int) -> int:
    from .models import Tie

    return _from_totals(Tie.objects.filter(season_id=season_id).aggregate(**_totals()))


async def first_events(season_id: int, user_id: int) -> dict | None:
    """A season stream's first event: its bracket's stamp (``None``: no such cup)."""
    from .models import Season, Tie

    if not await Season.objects.filter(pk=season_id, format=Season.Format.CUP).aexists():
        return None
    row = await Tie.objects.filter(season_id=season_id).aaggregate(**_totals())
    return {EVENT: _from_totals(row)}


def keys(season_id: int) -> tuple[str, ...]:
    return (season_key(season_id),)


def publish(season_id: int) -> None:
    """Tell the season's open pages of the bracket as it is now. Never raises: a lost push
    only means the pages see it at their next poll or stream."""
    from games import push

    try:
        value = stamp_now(season_id)
    except Exception:
        logger.warning("push: could not read the bracket of season %s", season_id, exc_info=True)
        return
    push.publish_event([season_key(season_id)], EVENT, value)


def tie_saved(sender, instance, **kwargs) -> None:
    """``post_save`` of a tie: once the transaction commits, the bracket as committed (a game
    decided, the next tie made and the season closed all count once, with the last state)."""
    if settings.PUSH_BACKEND == "off":
        return
    season_id = instance.season_id
    transaction.on_commit(lambda: publish(season_id))
