"""The chat's writes: post a message (seated members only, rate-limited), hide one (admins)."""

from __future__ import annotations

import math
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games import push
from games.locking import retried
from games.models import Match, Seat

from .models import Message


class ChatError(Exception):
    """A message that cannot be posted now; ``str()`` is the reason, for the member."""


class NotSeated(ChatError):
    """The member has no seat at this table (a 403, not a form error)."""


def may_write(match: Match, user) -> bool:
    """Seated members write while the table is open, played or finished (a word after the end,
    "good game", is part of the game); an abandoned table's chat is closed. Expects the seats
    prefetched, as the match page has them."""
    if not user.is_authenticated or match.status == Match.Status.ABANDONED:
        return False
    # A Match, or the public facts the match page has (games.present.PublicMatch): both
    # answer seat_of.
    return match.seat_of(user) is not None


def _too_fast(match_id: int, user, now) -> str | None:
    """The rate limit's message when the member has written their share of every window in
    ``CHAT_RATE_LIMITS`` ((messages, seconds) pairs), else ``None``. Counted from the messages
    in the database, so it holds across every process."""
    for most, seconds in settings.CHAT_RATE_LIMITS:
        since = now - timedelta(seconds=seconds)
        recent = list(
            Message.objects.filter(match_id=match_id, author=user, created_at__gt=since)
            .order_by("-created_at")
            .values_list("created_at", flat=True)[:most]
        )
        if len(recent) >= most:
            wait = max(
                1, math.ceil((recent[-1] + timedelta(seconds=seconds) - now).total_seconds())
            )
            return ngettext(
                "Not so fast: you may write again in %(n)d second.",
                "Not so fast: you may write again in %(n)d seconds.",
                wait,
            ) % {"n": wait}
    return None


@retried
def post_message(match_id: int, user, text: str) -> Message:
    """Save the (already cleaned) message and tell the table's open pages once it is committed.

    The member's seat row is locked first, so two posts of one member (two tabs, a double click)
    are counted one after the other and the rate limit cannot be passed by racing it."""
    seat = (
        Seat.objects.select_for_update(of=("self",))
        .select_related("match")
        .filter(match_id=match_id, user=user)
        .first()
    )
    if seat is None:
        if not Match.objects.filter(pk=match_id).exists():
            raise Match.DoesNotExist
        raise NotSeated(_("Only the members seated at this table may write in its chat."))
    if seat.match.status == Match.Status.ABANDONED:
        raise ChatError(_("This table was abandoned: its chat is closed."))
    now = timezone.now()
    refused = _too_fast(match_id, user, now)
    if refused:
        raise ChatError(refused)
    message = Message.objects.create(match_id=match_id, author=user, text=text, created_at=now)
    # Only the message's number travels: each page fetches the chat drawn for its own reader.
    push.publish_event_on_commit([push.table_key(match_id)], "chat", message.pk)
    return message


@transaction.atomic
def hide_messages(messages, by) -> int:
    """Hide the messages (an admin's action); their tables' pages refresh their chat."""
    now = timezone.now()
    ids = [m.pk for m in messages if m.hidden_at is None]
    hidden = Message.objects.filter(pk__in=ids, hidden_at__isnull=True)
    rows = list(hidden.values_list("pk", "match_id"))
    count = hidden.update(hidden_at=now, hidden_by=by)
    for pk, match_id in rows:
        push.publish_event_on_commit([push.table_key(match_id)], "chat", pk)
    return count


@transaction.atomic
def show_messages(messages) -> int:
    """Undo a hide (an admin's second thought)."""
    shown = Message.objects.filter(pk__in=[m.pk for m in messages], hidden_at__isnull=False)
    rows = list(shown.values_list("pk", "match_id"))
    count = shown.update(hidden_at=None, hidden_by=None)
    for pk, match_id in rows:
        push.publish_event_on_commit([push.table_key(match_id)], "chat", pk)
    return count
