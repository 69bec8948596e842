"""A word at the table: short messages from the seated members, read by every logged-in member
who watches. Kept with the match (deleted with it), never about cards."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.models import Match


class Message(models.Model):
    match = models.ForeignKey(
        Match, on_delete=models.CASCADE, related_name="chat_messages", verbose_name=_("match")
    )
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="chat_messages",
        verbose_name=_("author"),
    )
    # The length limit is a setting (CHAT_MAX_LENGTH) checked by the form, not a column size, so
    # a club may change it without a migration.
    text = models.TextField(_("text"))
    created_at = models.DateTimeField(_("written"), default=timezone.now)
    hidden_at = models.DateTimeField(_("hidden"), null=True, blank=True)
    hidden_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("hidden by"),
    )

    class Meta:
        ordering = ["created_at", "pk"]
        verbose_name = _("chat message")
        verbose_name_plural = _("chat messages")
        indexes = [
            # The table's latest messages, and a member's recent ones for the rate limit.
            models.Index(fields=["match", "created_at"], name="chat_match_time"),
            models.Index(fields=["author", "match", "created_at"], name="chat_author_time"),
        ]

    def __str__(self) -> str:
        return f"#{self.match_id} {self.author_id}: {self.text[:40]}"

    @property
    def is_hidden(self) -> bool:
        return self.hidden_at is not None
