"""What members do around a match: offer the same table again (rematch), call each other to
a game (challenge).

A rematch is one row per finished match, written only under that match's row lock
(cardclub/social/rematch.py), so members answering at the same instant are taken one after the
other and a rematch starts one new match, never two.
"""

from __future__ import annotations

from datetime import timedelta
from functools import cache

from django.conf import settings
from django.db import connection, connections, models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from cardclub import rows


class Offer(models.Model):
    """Something said to members that waits for their answer until it expires (a rematch, a
    challenge): ``status`` is "open" until answered, ``expires_at`` ends it without a write."""

    #: The setting that says how many seconds an offer of this kind stays open.
    EXPIRY_SETTING = ""

    expires_at = models.DateTimeField(_("expires"))

    class Meta:
        abstract = True

    @classmethod
    def expiry(cls, now=None):
        seconds = getattr(settings, cls.EXPIRY_SETTING)
        return (now or timezone.now()) + timedelta(seconds=seconds)

    def is_expired(self, now=None) -> bool:
        return self.status == "open" and self.expires_at <= (now or timezone.now())

    @property
    def is_open(self) -> bool:
        return self.status == "open" and not self.is_expired()


class Rematch(Offer):
    class Status(models.TextChoices):
        OPEN = "open", _("Waiting for answers")
        STARTED = "started", _("Started")
        DECLINED = "declined", _("Declined")
        WITHDRAWN = "withdrawn", _("Withdrawn")
        # A seated member left the table ("Leave the table", or their page of the match closed
        # for longer than WATCHING_WITHIN): no rematch of this match any more.
        LEFT = "left", _("Left the table")

    match = models.OneToOneField(
        "games.Match",
        on_delete=models.CASCADE,
        related_name="rematch",
        verbose_name=_("match"),
    )
    offered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("offered by"),
    )
    # Counts the offers made for this match: an answer names the offer it answers, so a "yes"
    # to an offer that expired or was withdrawn is refused, not taken for the next one.
    offer = models.PositiveIntegerField(_("offer"), default=1)
    # The ids of the seated members who said yes, in the order they did.
    accepted = models.JSONField(_("accepted by"), default=list)
    status = models.CharField(
        _("status"), max_length=12, choices=Status.choices, default=Status.OPEN
    )
    ended_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("declined or withdrawn by"),
    )
    new_match = models.ForeignKey(
        "games.Match",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("new match"),
    )
    created_at = models.DateTimeField(_("offered"), default=timezone.now)

    EXPIRY_SETTING = "REMATCH_EXPIRY"

    class Meta:
        verbose_name = _("rematch")
        verbose_name_plural = _("rematches")

    def __str__(self) -> str:
        return f"{self.match_id}: {self.status}"


class ChallengeQuerySet(models.QuerySet):
    def open(self, now=None):
        return self.filter(status=Challenge.Status.OPEN, expires_at__gt=now or timezone.now())

    def concerning(self, user):
        return self.filter(models.Q(challenger=user) | models.Q(challenged=user))


class Challenge(Offer):
    """A member calls another to a game: the house rules, the number of seats and who fills the
    seats after the two of them (open for another member, a bot, or a further member named).

    Each challenged member has their own row, so every rule of a challenge (refusals, the rate
    limit, one open challenge per pair, expiry) holds per member. A challenge naming further
    members is a *party*: the row of the member at seat 2 leads it, the others point to it by
    ``lead`` and sit at their ``seat``. Each says yes (``agreed_at``); the match is made when
    the last one does, and a no from anyone ends every row. Answers are taken under the lock
    of all the party's rows."""

    class Status(models.TextChoices):
        OPEN = "open", _("Waiting for an answer")
        ACCEPTED = "accepted", _("Accepted")
        DECLINED = "declined", _("Declined")
        WITHDRAWN = "withdrawn", _("Withdrawn")

    challenger = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="challenges_made",
        verbose_name=_("challenger"),
    )
    challenged = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="challenges_received",
        verbose_name=_("challenged member"),
    )
    variant = models.ForeignKey(
        "games.RuleVariant",
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("house rules"),
    )
    players = models.PositiveSmallIntegerField(_("players"))
    # Who fills seats 3 and on: "open", "easy", "hard", or "member" (a row of the party).
    fillers = models.JSONField(_("other seats"), default=list, blank=True)
    # A further member's row points to the row of the member at seat 2; that one's is null.
    lead = models.ForeignKey(
        "self",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="companions",
        verbose_name=_("challenge led by"),
    )
    # The challenged member's seat, counted from 0 (the challenger sits at 0).
    seat = models.PositiveSmallIntegerField(_("seat"), default=1)
    # When this member said yes while others of the party had not yet.
    agreed_at = models.DateTimeField(_("said yes at"), null=True, blank=True)
    ended_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("declined or withdrawn by"),
    )
    status = models.CharField(
        _("status"), max_length=12, choices=Status.choices, default=Status.OPEN
    )
    match = models.ForeignKey(
        "games.Match",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("match"),
    )
    created_at = models.DateTimeField(_("made"), default=timezone.now)
    answered_at = models.DateTimeField(_("answered"), null=True, blank=True)

    objects = ChallengeQuerySet.as_manager()

    EXPIRY_SETTING = "CHALLENGE_EXPIRY"

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("challenge")
        verbose_name_plural = _("challenges")
        indexes = [
            # The lobby's "challenges for me / from me", and the rate limit's count per pair.
            models.Index(fields=["challenged", "status"], name="challenge_received"),
            models.Index(fields=["challenger", "challenged", "created_at"], name="challenge_pair"),
        ]

    def __str__(self) -> str:
        return f"{self.challenger_id} → {self.challenged_id}: {self.status}"

    def get_absolute_url(self) -> str:
        from django.urls import reverse

        return reverse("social:challenge", args=[self.pk])

    @property
    def is_party(self) -> bool:
        """Whether the challenge names more than one member (its rows form a party)."""
        return "member" in (self.fillers or [])

    @property
    def lead_pk(self) -> int:
        return self.lead_id or self.pk

    @classmethod
    def any_open_concerning(cls, user, now=None) -> bool:
        """Whether any open challenge is to or from ``user``: the lobby asks on every view and
        the answer is nearly always no, so it is asked by one plain statement (``rows``; the
        ORM's three-join query costs about 2 ms to build before it finds nothing)."""
        now = connection.ops.adapt_datetimefield_value(now or timezone.now())
        where = "status = %s AND expires_at > %s AND (challenger_id = %s OR challenged_id = %s)"
        found = rows.values(
            cls, ("id",), f"{where} LIMIT 1", [cls.Status.OPEN, now, user.pk, user.pk]
        )
        return found is not None

    @classmethod
    def party_of(cls, lead_pks):
        """The rows of the parties led by ``lead_pks``, by seat."""
        lead_pks = list(lead_pks)
        return (
            cls.objects.filter(models.Q(pk__in=lead_pks) | models.Q(lead_id__in=lead_pks))
            .select_related("challenged", "ended_by")
            .order_by("seat")
        )

    def party(self) -> list[Challenge]:
        """Every row of this challenge's party (itself alone when it names one member)."""
        if not self.is_party:
            return [self]
        return list(self.party_of([self.lead_pk]))


class Watcher(models.Model):
    """A member who had a match's page open, and when it was last seen open (written at most
    every ``WATCH_WRITE_EVERY`` seconds per member and match): a spectator of a match being
    played (the lists count only members without a seat), or a seated member still at the
    table of a finished one (a rematch asks whether they left: cardclub/social/rematch.py)."""

    match = models.ForeignKey(
        "games.Match", on_delete=models.CASCADE, related_name="+", verbose_name=_("match")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("member"),
    )
    seen_at = models.DateTimeField(_("last seen watching"), default=timezone.now)

    class Meta:
        verbose_name = _("spectator")
        verbose_name_plural = _("spectators")
        constraints = [
            models.UniqueConstraint(fields=["match", "user"], name="one_watcher_row_per_member")
        ]
        indexes = [models.Index(fields=["match", "seen_at"], name="watcher_recent")]

    def __str__(self) -> str:
        return f"{self.user_id} watching {self.match_id}"

    @classmethod
    def saw(cls, match_id: int, user_id: int, now=None) -> None:
        """The member has the match's page open now (or just acted at it)."""
        now = now or timezone.now()
        if not cls.objects.filter(match_id=match_id, user_id=user_id).update(seen_at=now):
            cls.objects.bulk_create(
                [cls(match_id=match_id, user_id=user_id, seen_at=now)], ignore_conflicts=True
            )

    @classmethod
    def recent(cls, now=None):
        return cls.objects.filter(seen_at__gte=cls._since(now))

    @classmethod
    def _since(cls, now=None):
        return (now or timezone.now()) - timedelta(seconds=settings.WATCHING_WITHIN)

    @classmethod
    def names_at(cls, match_id: int, now=None) -> list[tuple[int, str]]:
        """Who has had the match's page open lately, as (member id, name) by name, seated or
        not: one plain statement (``cardclub/rows.py``), as every table page asks."""
        since = connection.ops.adapt_datetimefield_value(cls._since(now))
        return rows.every(_watching_statement(), [match_id, since])


class Takeback(models.Model):
    """A member's request to take back their last move (where the house rules allow it). It
    stands until the next move is played; the other members accept or decline."""

    class Status(models.TextChoices):
        OPEN = "open", _("Waiting for answers")
        ACCEPTED = "accepted", _("Accepted")
        DECLINED = "declined", _("Declined")

    match = models.ForeignKey(
        "games.Match", on_delete=models.CASCADE, related_name="+", verbose_name=_("match")
    )
    asked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("member"),
    )
    seat = models.PositiveSmallIntegerField(_("seat"))
    # The move to take back: the log's last entry when asked. A move since ends the request.
    seq = models.PositiveIntegerField(_("move"))
    accepted = models.JSONField(_("accepted by"), default=list)
    status = models.CharField(
        _("status"), max_length=12, choices=Status.choices, default=Status.OPEN
    )
    answered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("declined by"),
    )
    created_at = models.DateTimeField(_("asked"), default=timezone.now)

    class Meta:
        verbose_name = _("takeback")
        verbose_name_plural = _("takebacks")
        indexes = [models.Index(fields=["match", "seq"], name="takeback_match_move")]

    def __str__(self) -> str:
        return f"{self.match_id}#{self.seq}: {self.status}"


@cache
def _watching_statement(using: str = "default") -> str:
    member = Watcher.user.field.related_model
    quote = connections[using].ops.quote_name
    name = rows.column(member, member.USERNAME_FIELD, "m", using)
    watcher = rows.column(Watcher, "user", "w", using)
    return (
        f"SELECT {watcher}, {name}"
        f" FROM {quote(Watcher._meta.db_table)} w INNER JOIN {quote(member._meta.db_table)} m"
        f" ON {rows.column(member, member._meta.pk.name, 'm', using)} = {watcher}"
        f" WHERE {rows.column(Watcher, 'match', 'w', using)} = %s"
        f" AND {rows.column(Watcher, 'seen_at', 'w', using)} >= %s"
        f" ORDER BY {name}"
    )
