"""A member's preferences that are not part of Django's user (kept beside it, one row each)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from cardclub import rows


class Preferences(models.Model):
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="preferences"
    )
    turn_sound = models.BooleanField(
        _("play a sound when it is my turn"),
        default=False,
        help_text=_("A short chime on the table's page when a move makes it your turn."),
    )
    refuse_challenges = models.BooleanField(
        _("refuse challenges"),
        default=False,
        help_text=_("Nobody can challenge me to a game; I still join tables and play again."),
    )
    hide_presence = models.BooleanField(
        _("hide that I am online"),
        default=False,
        help_text=_(
            "Others do not see me in the lobby's list of who is online, nor when I was last seen."
        ),
    )
    # Kept by cardclub.notifications.middleware (at most once every few minutes): whether the
    # member is around decides if a "your turn" needs an e-mail, and the language they use the
    # site in is the one their e-mails speak unless they chose another.
    last_seen = models.DateTimeField(_("last seen"), null=True, blank=True)
    site_language = models.CharField(
        _("language used on the site"), max_length=8, choices=settings.LANGUAGES, blank=True
    )
    email_language = models.CharField(
        _("language of my e-mails"), max_length=8, choices=settings.LANGUAGES, blank=True
    )

    class Meta:
        verbose_name = _("preferences")
        verbose_name_plural = _("preferences")
        indexes = [
            # Who is online: the members seen within the last few minutes (cardclub/social).
            models.Index(fields=["last_seen"], name="preferences_last_seen"),
        ]

    def __str__(self) -> str:
        return str(self.user)

    @property
    def mail_language(self) -> str:
        return self.email_language or self.site_language or settings.LANGUAGE_CODE

    @classmethod
    def turn_sound_for(cls, user) -> bool:
        """Whether ``user`` asked for the turn sound; off for anyone without a saved choice."""
        if not getattr(user, "is_authenticated", False):
            return False
        # A plain statement (cardclub/rows.py): every table page asks, and building the ORM's
        # exists() cost more than the answer.
        where = "user_id = %s AND turn_sound = %s LIMIT 1"
        return rows.values(cls, ("id",), where, [user.pk, True]) is not None

    @classmethod
    def refuses_challenges(cls, user) -> bool:
        return cls.objects.filter(user=user, refuse_challenges=True).exists()
