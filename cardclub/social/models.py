"""What members do around a match: offer the same table again (rematch).

A rematch is one row per finished match, written only under that match's row lock
(cardclub/social/actions.py), so members answering at the same instant are taken one after the
other and a rematch starts one new match, never two.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class Rematch(models.Model):
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
    expires_at = models.DateTimeField(_("expires"))

    class Meta:
        verbose_name = _("rematch")
        verbose_name_plural = _("rematches")

    def __str__(self) -> str:
        return f"{self.match_id}: {self.status}"

    @staticmethod
    def expiry(now=None):
        return (now or timezone.now()) + timedelta(seconds=settings.REMATCH_EXPIRY)

    def is_expired(self, now=None) -> bool:
        return self.status == self.Status.OPEN and self.expires_at <= (now or timezone.now())

    @property
    def is_open(self) -> bool:
        return self.status == self.Status.OPEN and not self.is_expired()
