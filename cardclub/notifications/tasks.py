"""The notifications' background work: the e-mails, and the periodic sweeps that find turns
left waiting and deadlines coming (queued by the scheduler, see PERIODIC_TASKS)."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.db import transaction
from django.db.models import DateTimeField, Exists, OuterRef, Subquery, Value
from django.db.models.functions import Coalesce
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django_tasks import task

from cardclub.accounts.models import Preferences

from .models import Choice, Kind, Notification, NotificationSetting
from .services import notify
from .unsubscribe import absolute, unsubscribe_url

EPOCH = timezone.make_aware(timezone.datetime(1970, 1, 1), timezone.get_fixed_timezone(0))


def _message(notification: Notification) -> EmailMultiAlternatives | None:
    user = notification.user
    if not user.email or not user.is_active:
        return None
    prefs = Preferences.objects.filter(user=user).first()
    language = prefs.mail_language if prefs else settings.LANGUAGE_CODE
    unsubscribe = unsubscribe_url(user.pk, notification.kind)
    with translation.override(language):
        context = {
            "user": user,
            "notification": notification,
            "text": notification.text(),
            "url": absolute(notification.target_url()),
            "settings_url": absolute(reverse("profile_edit")),
            "unsubscribe_url": unsubscribe,
            "kind": notification.get_kind_display(),
        }
        subject = render_to_string("notifications/email_subject.txt", context).strip()
        body = render_to_string("notifications/email.txt", context)
        html = render_to_string("notifications/email.html", context)
    message = EmailMultiAlternatives(
        subject,
        body,
        to=[user.email],
        headers={
            # RFC 2369 and RFC 8058: mail clients offer "unsubscribe" and POST to it themselves.
            "List-Unsubscribe": f"<{unsubscribe}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        },
    )
    message.attach_alternative(html, "text/html")
    return message


@task()
def send_notification_emails(ids: list[int]) -> int:
    """Mail each of these notifications that still wants it; how many were sent.

    Each row is claimed (``emailed_at`` set) in the same transaction that sends it, so a task
    run twice mails once; a member who turned the kind's e-mail off since gets nothing.
    """
    sent = 0
    for pk in ids:
        with transaction.atomic():
            notification = (
                Notification.objects.select_for_update(of=("self",))
                .select_related("user")
                .filter(pk=pk, emailed_at__isnull=True)
                .first()
            )
            if notification is None:
                continue
            if NotificationSetting.choice_for(notification.user, notification.kind) != Choice.EMAIL:
                continue
            # The words need the match and the fixture's season, read in one query.
            notification = Notification.objects.for_list().select_related("user").get(pk=pk)
            message = _message(notification)
            if message is None:
                continue
            Notification.objects.filter(pk=pk).update(emailed_at=timezone.now())
            sent += message.send()
    return sent


def waiting_turns(now=None):
    """Seats of members who have been to move in a playing match for YOUR_TURN_AFTER seconds
    and have had no "your turn" for that match since their own last move."""
    from games.models import Match, MoveRecord, Seat

    now = now or timezone.now()
    own_last_move = (
        MoveRecord.objects.filter(match=OuterRef("match_id"), seat=OuterRef("index"))
        .order_by("-seq")
        .values("created_at")[:1]
    )
    told = Notification.objects.filter(
        user=OuterRef("user_id"),
        match=OuterRef("match_id"),
        kind=Kind.YOUR_TURN,
        created_at__gt=Coalesce(
            OuterRef("own_last_move"), Value(EPOCH), output_field=DateTimeField()
        ),
    )
    return (
        Seat.objects.filter(
            to_move=True,
            user__isnull=False,
            match__status=Match.Status.PLAYING,
            # The match's last write is when this turn began (or a later move of another seat in
            # a simultaneous phase): waiting counts from then.
            match__updated_at__lte=now - timedelta(seconds=settings.YOUR_TURN_AFTER),
        )
        .annotate(own_last_move=Subquery(own_last_move))
        .filter(~Exists(told))
        .select_related("user", "match")
    )


@task()
def notify_waiting_turns() -> int:
    """The periodic "your turn": on the site list, and by e-mail (when they asked for it) only
    to members not seen on the site for SEEN_RECENTLY seconds. Never in the move's request."""
    now = timezone.now()
    seats = list(waiting_turns(now))
    seen = dict(
        Preferences.objects.filter(user_id__in=[s.user_id for s in seats]).values_list(
            "user_id", "last_seen"
        )
    )
    recently = now - timedelta(seconds=settings.SEEN_RECENTLY)
    count = 0
    for seat in seats:
        last_seen = seen.get(seat.user_id)
        away = last_seen is None or last_seen < recently
        with transaction.atomic():
            if notify(seat.user, Kind.YOUR_TURN, match=seat.match, email=away):
                count += 1
    return count


def due_moves(now=None):
    """(seat, when its move is due) of members awaited in a playing match with a
    correspondence clock whose time runs out within 24 hours, with ``own_last_move`` (the
    member's last move in that match, or None) annotated on each seat."""
    from games.models import Clock, Match, MoveRecord, Seat

    now = now or timezone.now()
    own_last_move = (
        MoveRecord.objects.filter(match=OuterRef("match_id"), seat=OuterRef("index"))
        .order_by("-seq")
        .values("created_at")[:1]
    )
    seats = (
        Seat.objects.filter(
            to_move=True,
            user__isnull=False,
            timed_out=False,
            match__status=Match.Status.PLAYING,
            match__clock=Clock.CORRESPONDENCE,
            # The match's deadline is its first seat's: every seat due soon is in these.
            match__clock_deadline__gt=now,
            match__clock_deadline__lte=now + timedelta(hours=24),
        )
        .annotate(own_last_move=Subquery(own_last_move))
        .select_related("user", "match")
    )
    for seat in seats:
        match = seat.match
        left = match.clock_left[seat.index] if match.clock_left else None
        if left is None or match.clock_turn_started is None:
            continue
        due = match.clock_turn_started + timedelta(milliseconds=left)
        if now < due <= now + timedelta(hours=24):
            yield seat, due


@task()
def notify_deadlines() -> int:
    """Each member of an unplayed fixture whose deadline falls within 24 hours hears once; so
    does each member whose correspondence move is due within 24 hours, once per move."""
    from cardclub.leagues.models import Fixture, FixtureSeat, Season

    now = timezone.now()
    fixtures = Fixture.objects.unplayed().filter(
        deadline__gt=now,
        deadline__lte=now + timedelta(hours=24),
        round__season__status=Season.Status.RUNNING,
    )
    already = Notification.objects.filter(
        kind=Kind.DEADLINE_SOON, user=OuterRef("user_id"), fixture=OuterRef("fixture_id")
    )
    seats = (
        FixtureSeat.objects.filter(fixture__in=fixtures)
        .filter(~Exists(already))
        .select_related("user", "fixture")
    )
    count = 0
    for seat in seats:
        with transaction.atomic():
            if notify(seat.user, Kind.DEADLINE_SOON, fixture=seat.fixture, once=True):
                count += 1
    for seat, _due in due_moves(now):
        # Once per move: nothing if told since the member's own last move.
        since = seat.own_last_move or EPOCH
        with transaction.atomic():
            if notify(seat.user, Kind.DEADLINE_SOON, match=seat.match, since=since):
                count += 1
    return count


@task()
def notify_result(change_id: int) -> int:
    """The members of a fixture whose result was recorded (``ResultChange`` ``change_id``) hear
    of it: "forfeit" for those who lost by forfeit, "result" for the others. Run twice, once."""
    from cardclub.leagues.models import ResultChange

    change = ResultChange.objects.select_related("fixture").filter(pk=change_id).first()
    if change is None or not change.after:
        return 0
    fixture = change.fixture
    forfeited = {row[0] for row in change.after if len(row) > 3 and row[3]}
    told = set(
        Notification.objects.filter(
            fixture=fixture,
            kind__in=[Kind.RESULT, Kind.FORFEIT],
            created_at__gte=change.changed_at,
        ).values_list("user_id", flat=True)
    )
    count = 0
    for seat in fixture.seats.select_related("user"):
        if seat.user_id in told:
            continue
        kind = Kind.FORFEIT if seat.index in forfeited else Kind.RESULT
        with transaction.atomic():
            if notify(seat.user, kind, fixture=fixture):
                count += 1
    return count


@task()
def notify_lost_on_time(match_id: int, user_ids: list[int]) -> int:
    """The members who lost ``match_id`` on time hear it, and so do its winners when that ended
    it, each once (run twice, told once)."""
    from django.contrib.auth import get_user_model

    from games.models import Match

    match = Match.objects.filter(pk=match_id).first()
    if match is None:
        return 0
    count = 0
    for user in get_user_model().objects.filter(pk__in=user_ids):
        with transaction.atomic():
            if notify(user, Kind.FORFEIT, match=match, once=True):
                count += 1
    # The winners of a match the time-out ended hear it too; a league fixture's result tells
    # every member already (notify_result), in the same words.
    if match.status == Match.Status.FINISHED and not match.for_fixture:
        winners = match.seats.filter(rank=1, timed_out=False, user__isnull=False)
        for seat in winners.select_related("user"):
            with transaction.atomic():
                if notify(seat.user, Kind.RESULT, match=match, once=True):
                    count += 1
    return count
