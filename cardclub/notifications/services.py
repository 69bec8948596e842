"""The one way to tell a member something: :func:`notify` (and its batch form for a season's
fixtures). Other apps, receivers and sweeps call it; it respects the member's choice, writes the
row, and after the commit rings the member's bell on their open pages and queues the e-mail."""

from __future__ import annotations

from django.db import connection, transaction
from django.utils import timezone

from cardclub import rows
from games import push

from .models import DEFAULT_CHOICES, Choice, Kind, Notification, NotificationSetting


def unread_count(user_id: int) -> int:
    """The bell's number, on every full page: one range of the ``notification_unread`` index,
    asked by a plain statement (``cardclub/rows.py``), which costs a fraction of building the
    ORM's ``count()``."""
    table = connection.ops.quote_name(Notification._meta.db_table)
    return rows.scalar(
        f"SELECT COUNT(*) FROM {table} WHERE user_id = %s AND read_at IS NULL", [user_id]
    )


def ring(user_id: int) -> None:
    """Tell the member's open pages, after the commit, how many notifications are unread (a
    number only: the page fetches its own bell)."""
    push.publish_event_on_commit([push.member_key(user_id)], "bell", unread_count(user_id))


def _queue_emails(ids: list[int]) -> None:
    if not ids:
        return
    from .tasks import send_notification_emails  # the tasks import notify from here

    # After the commit: the worker must find the rows, and a rollback must send nothing.
    transaction.on_commit(lambda: send_notification_emails.enqueue(ids))


def notify(
    user,
    kind: str,
    *,
    match=None,
    fixture=None,
    challenge=None,
    email: bool = True,
    once: bool = False,
    since=None,
) -> Notification | None:
    """Tell ``user`` about ``kind`` concerning ``match``, ``fixture`` or ``challenge``, as they chose:
    nothing when off, the in-site list, or the list and an e-mail (sent by the worker).

    ``email=False`` keeps it to the list this time (a member seen on the site moments ago needs
    no mail for their turn). ``once=True`` does nothing when the member already has this kind
    for the same match and fixture (a fixture's deadline is announced once); ``since=<time>``
    does nothing when they have one made after that time (a move deadline: once per move, with
    the member's last move as ``since``). Returns the new row or None.

    The clocks use it so: a member who lost on time is ``notify(user, "forfeit", match=match,
    once=True)`` (tasks.notify_lost_on_time, queued on ``match_timed_out``); a correspondence
    move due within 24 hours is ``notify(user, "deadline_soon", match=match, since=<their last
    move>)`` (tasks.notify_deadlines).
    """
    kind = Kind(kind)
    choice = NotificationSetting.choice_for(user, kind)
    if choice == Choice.OFF:
        return None
    if once or since is not None:
        earlier = Notification.objects.filter(
            user=user, kind=kind, match=match, fixture=fixture, challenge=challenge
        )
        if since is not None:
            earlier = earlier.filter(created_at__gt=since)
        if earlier.exists():
            return None
    notification = Notification.objects.create(
        user=user, kind=kind, match=match, fixture=fixture, challenge=challenge
    )
    ring(user.pk)
    if choice == Choice.EMAIL and email:
        _queue_emails([notification.pk])
    return notification


def notify_many(pairs, kind: str, fixtures) -> int:
    """Batch form of :func:`notify` for one kind and many (member id, fixture) pairs, each at
    most once, in a fixed number of queries plus one per member (a 40-member season makes
    3,120 at once). ``fixtures`` is a queryset holding every fixture of the pairs."""
    kind = Kind(kind)
    pairs = list(pairs)
    if not pairs:
        return 0
    user_ids = {user_id for user_id, _fixture in pairs}
    choices = NotificationSetting.choices_for(user_ids)
    existing = set(
        # A subquery, not a list of thousands of ids.
        Notification.objects.filter(kind=kind, fixture__in=fixtures).values_list(
            "user_id", "fixture_id"
        )
    )
    rows = []
    for user_id, fixture in pairs:
        choice = choices.get((user_id, kind), DEFAULT_CHOICES[kind])
        if choice == Choice.OFF or (user_id, fixture.pk) in existing:
            continue
        existing.add((user_id, fixture.pk))
        rows.append((choice, Notification(user_id=user_id, kind=kind, fixture=fixture)))
    # Both SQLite and PostgreSQL hand the new keys back to the objects.
    created = Notification.objects.bulk_create([row for _choice, row in rows])
    _queue_emails([row.pk for choice, row in rows if choice == Choice.EMAIL])
    for user_id in {row.user_id for row in created}:
        ring(user_id)
    return len(created)


def notify_new_fixtures(season) -> int:
    """Every seated member of every fixture of ``season`` hears of it (after generation)."""
    from cardclub.leagues.models import Fixture, FixtureSeat  # they notify through this module

    seats = FixtureSeat.objects.filter(fixture__round__season=season).select_related("fixture")
    return notify_many(
        ((seat.user_id, seat.fixture) for seat in seats),
        Kind.NEW_FIXTURE,
        Fixture.objects.filter(round__season=season),
    )


def mark_all_read(user) -> int:
    count = Notification.objects.filter(user=user, read_at__isnull=True).update(
        read_at=timezone.now()
    )
    if count:
        ring(user.pk)
    return count
