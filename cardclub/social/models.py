"""What members do around a match: offer the same table again (rematch), call each other to
a game (challenge).

A rematch is one row per finished match, written only under that match's row lock
(cardclub/social/rematch.py), so members answering at the same instant are taken one after the
other and a rematch starts one new match, never two.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


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
    seats after the two of them (open for another member, or a bot). The match is made when the
    challenged member accepts; answers are taken under this row's lock."""

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
    # Who fills seats 3 and on: "open", "easy" or "hard" each.
    fillers = models.JSONField(_("other seats"), default=list, blank=True)
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


class Watcher(models.Model):
    """A member who had a match's page open without a seat at it, and when they last fetched
    it (written at most every ``WATCH_WRITE_EVERY`` seconds per member and match)."""

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
    def recent(cls, now=None):
        since = (now or timezone.now()) - timedelta(seconds=settings.WATCHING_WITHIN)
        return cls.objects.filter(seen_at__gte=since)


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
