"""What a member is told (the in-site list, and the e-mail when they asked for it) and how they
want to be told, per kind.

A notification stores only what happened (the kind and the match or fixture it is about), never
its words: those are built when it is shown, in the reader's language, from the related rows, so a
member who switches language reads their whole list in the new one.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils import formats, timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from .results import outcome, places_of_fixture, places_of_match


class Kind(models.TextChoices):
    YOUR_TURN = "your_turn", _("It is my turn")
    NEW_FIXTURE = "new_fixture", _("A new league fixture")
    DEADLINE_SOON = "deadline_soon", _("A deadline within 24 hours")
    RESULT = "result", _("A result: a fixture's, or a match won on time")
    FORFEIT = "forfeit", _("A forfeit or a loss on time")
    CHALLENGE = "challenge", _("A challenge to a game, or the answer to mine")


class Choice(models.TextChoices):
    SITE = "site", _("On the site")
    EMAIL = "email", _("On the site and by e-mail")
    OFF = "off", _("Off")


# What a member gets before choosing. A turn comes often and the site shows it live, so only the
# list; a fixture, a deadline or a result comes rarely and may be missed for days, so e-mail too.
DEFAULT_CHOICES = {
    Kind.YOUR_TURN: Choice.SITE,
    Kind.NEW_FIXTURE: Choice.EMAIL,
    Kind.DEADLINE_SOON: Choice.EMAIL,
    Kind.RESULT: Choice.EMAIL,
    Kind.FORFEIT: Choice.EMAIL,
    Kind.CHALLENGE: Choice.EMAIL,
}


class NotificationSetting(models.Model):
    """A member's choice for one kind; a kind without a row has its default."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notification_settings"
    )
    kind = models.CharField(_("kind"), max_length=16, choices=Kind.choices)
    choice = models.CharField(_("how"), max_length=8, choices=Choice.choices)

    class Meta:
        verbose_name = _("notification setting")
        verbose_name_plural = _("notification settings")
        constraints = [
            models.UniqueConstraint(fields=["user", "kind"], name="one_setting_per_kind")
        ]

    def __str__(self) -> str:
        return f"{self.user}: {self.kind} → {self.choice}"

    @classmethod
    def choices_for(cls, user_ids) -> dict[tuple[int, str], str]:
        """Every saved choice of these members, by (member id, kind): one query for a batch."""
        rows = cls.objects.filter(user_id__in=list(user_ids)).values_list(
            "user_id", "kind", "choice"
        )
        return {(user_id, kind): choice for user_id, kind, choice in rows}

    @classmethod
    def choice_for(cls, user, kind: str) -> str:
        saved = cls.objects.filter(user=user, kind=kind).values_list("choice", flat=True).first()
        return saved or DEFAULT_CHOICES[Kind(kind)]

    @classmethod
    def set_choice(cls, user, kind: str, choice: str) -> None:
        cls.objects.update_or_create(user=user, kind=kind, defaults={"choice": choice})


class NotificationQuerySet(models.QuerySet):
    def unread(self):
        return self.filter(read_at__isnull=True)

    def for_list(self):
        # The seats say who won (see results.py): read for the whole list at once.
        return self.select_related(
            "match__variant",
            "fixture__round__season__league",
            "fixture__match",
            "challenge__challenger",
            "challenge__challenged",
            "challenge__variant",
            "challenge__ended_by",
        ).prefetch_related(
            "match__seats__user", "fixture__seats__user", "fixture__match__seats__user"
        )


class Notification(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="notifications",
        verbose_name=_("member"),
    )
    kind = models.CharField(_("kind"), max_length=16, choices=Kind.choices)
    match = models.ForeignKey(
        "games.Match",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("match"),
    )
    fixture = models.ForeignKey(
        "leagues.Fixture",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("fixture"),
    )
    challenge = models.ForeignKey(
        "social.Challenge",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("challenge"),
    )
    created_at = models.DateTimeField(_("when"), default=timezone.now, db_index=True)
    read_at = models.DateTimeField(_("read"), null=True, blank=True)
    emailed_at = models.DateTimeField(_("e-mailed"), null=True, blank=True)

    objects = NotificationQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name = _("notification")
        verbose_name_plural = _("notifications")
        indexes = [
            # The bell's count on every page, and the once-per-match check of the turn sweep.
            models.Index(fields=["user", "read_at"], name="notification_unread"),
            models.Index(fields=["user", "kind", "match"], name="notification_kind_match"),
        ]

    def __str__(self) -> str:
        return f"{self.user}: {self.kind} ({self.created_at:%Y-%m-%d %H:%M})"

    def get_absolute_url(self) -> str:
        return reverse("notifications:open", args=[self.pk])

    @property
    def is_read(self) -> bool:
        return self.read_at is not None

    def target_url(self) -> str:
        """Where the notification leads: its match when there is one, else its fixture's season
        page (a fixture has no page of its own), else the list."""
        if self.challenge_id is not None:
            return self.challenge.get_absolute_url()
        if self.match_id is not None:
            return self.match.get_absolute_url()
        if self.fixture_id is not None:
            return self.fixture.round.season.get_absolute_url()
        return reverse("notifications:list")

    def text(self) -> str:
        """The words, in the active language (built now: nothing rendered is stored)."""
        fixture, match = self.fixture, self.match
        names = {}
        if match is not None:
            names.update(game=match.get_game_display(), number=match.pk)
        if fixture is not None:
            names.update(season=str(fixture.round.season), round=fixture.round.number)
            names["date"] = formats.date_format(
                timezone.localtime(fixture.deadline), "SHORT_DATETIME_FORMAT"
            )
        kind = self.kind
        if kind == Kind.YOUR_TURN and match is not None:
            return gettext("It is your turn in %(game)s #%(number)d.") % names
        if kind == Kind.NEW_FIXTURE and fixture is not None:
            return gettext("You have a new fixture in %(season)s, round %(round)d.") % names
        if kind == Kind.DEADLINE_SOON and fixture is not None:
            return gettext("Your fixture in %(season)s must be played by %(date)s.") % names
        if kind == Kind.DEADLINE_SOON and match is not None:
            return gettext("Your move in %(game)s #%(number)d is due within 24 hours.") % names
        if kind == Kind.RESULT and fixture is not None:
            said = outcome(places_of_fixture(fixture), self.user_id)
            return " ".join(
                [gettext("The result of your fixture in %(season)s is in.") % names, said]
            ).strip()
        if kind == Kind.RESULT and match is not None:
            said = outcome(places_of_match(match.seats.all()), self.user_id)
            over = gettext("%(game)s #%(number)d is over.") % names
            return f"{over} {said}".strip()
        if kind == Kind.FORFEIT and fixture is not None:
            return gettext("You lost your fixture in %(season)s by forfeit.") % names
        if kind == Kind.FORFEIT and match is not None:
            return gettext("You lost %(game)s #%(number)d on time.") % names
        if kind == Kind.CHALLENGE and self.challenge is not None:
            return challenge_text(self.challenge, self.user_id)
        # The match or fixture was deleted since: say what kind of news it was.
        return str(self.get_kind_display())


def challenge_text(challenge, reader_id: int) -> str:
    """A challenge as its challenged member reads it, or its answer as the challenger does. A
    challenge naming several members says how it ended to each of them (a no from one of them,
    or everyone's yes)."""
    names = {
        "game": challenge.variant.get_game_display(),
        "rules": challenge.variant.name,
    }
    accepted = challenge.status == challenge.Status.ACCEPTED
    ender = challenge.ended_by.get_username() if challenge.ended_by_id else ""
    if reader_id == challenge.challenged_id:
        names["name"] = challenge.challenger.get_username()
        if not challenge.is_party:
            return gettext("%(name)s challenges you to %(game)s (%(rules)s).") % names
        if accepted:
            return gettext("Everyone accepted %(name)s’s challenge to %(game)s.") % names
        if challenge.status == challenge.Status.DECLINED and challenge.ended_by_id != reader_id:
            names["who"] = ender
            return gettext("%(who)s declined %(name)s’s challenge to %(game)s: it is off.") % names
        return gettext("%(name)s challenges you and other members to %(game)s (%(rules)s).") % names
    names["name"] = challenge.challenged.get_username()
    if accepted and challenge.is_party:
        return gettext("Everyone accepted your challenge to %(game)s.") % names
    if accepted:
        return gettext("%(name)s accepted your challenge to %(game)s.") % names
    return gettext("%(name)s declined your challenge to %(game)s.") % names
