"""A word at the table: short messages from the seated members, read by every logged-in member
who watches. Kept with the match (deleted with it), never about cards."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from functools import cache

from django.conf import settings
from django.db import connections, models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from cardclub import rows
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

    @classmethod
    def shown_to(cls, match_id: int, reader_id: int | None, limit: int) -> list[Line]:
        """The table's latest ``limit`` messages, oldest first, as ``reader_id`` is shown them:
        a hidden message keeps its text for its author only. One plain statement
        (``cardclub/rows.py``): every match page draws the chat, and building this read and
        its members through the ORM cost the page about a tenth of its CPU (issue 34)."""
        lines = []
        for text, created_at, hidden_at, author_id, author_name in rows.every(
            _latest_statement(), [match_id, limit]
        ):
            # Only whether it was hidden is shown, not when: the column is not converted.
            hidden, mine = hidden_at is not None, author_id == reader_id
            lines.append(
                Line(
                    author_name=author_name,
                    text=text if mine or not hidden else "",
                    created_at=rows.converted(cls, "created_at", created_at),
                    hidden=hidden,
                    mine=mine,
                )
            )
        lines.reverse()
        return lines


@dataclass(frozen=True)
class Line:
    """One message as the chat shows it to one reader."""

    author_name: str
    text: str
    created_at: datetime
    hidden: bool
    mine: bool


@cache
def _latest_statement(using: str = "default") -> str:
    """A table's newest messages first, each with its author's name (``%s``: the match, how
    many)."""
    member = Message.author.field.related_model
    quote = connections[using].ops.quote_name
    shown = rows.columns(Message, ("text", "created_at", "hidden_at", "author"), using, "c.")
    return (
        f"SELECT {shown}, {rows.column(member, member.USERNAME_FIELD, 'm', using)}"
        f" FROM {quote(Message._meta.db_table)} c INNER JOIN {quote(member._meta.db_table)} m"
        f" ON {rows.column(member, member._meta.pk.name, 'm', using)}"
        f" = {rows.column(Message, 'author', 'c', using)}"
        f" WHERE {rows.column(Message, 'match', 'c', using)} = %s"
        f" ORDER BY {rows.column(Message, 'created_at', 'c', using)} DESC,"
        f" {rows.column(Message, 'id', 'c', using)} DESC LIMIT %s"
    )
