"""One rating per member per game, every member's result in every finished match, and
head-to-head counters between members.

``Rating`` is a denormalised summary (skill, counters, last game) kept so that a leaderboard page
is one indexed range scan. ``MatchResult`` holds each result with the rating before and after it
(the history: a rating change per rated match and member). ``HeadToHead`` adds up results per
pair of opponents. All three are derived from the finished matches: ``rebuild_ratings`` recomputes
them from scratch.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from games import registry

from .skill import DEFAULT_MU, DEFAULT_ORDINAL, DEFAULT_SIGMA, PROVISIONAL_GAMES, Skill


class RatingQuerySet(models.QuerySet):
    def for_game(self, game: str):
        return self.filter(game=game)

    def leaderboard(self):
        """Settled ratings first, each group by conservative rating, best first.

        This ordering is exactly the ``leaderboard`` index, so a page is a range scan.
        """
        return self.order_by("provisional", "-ordinal", "user_id")


class Rating(models.Model):
    # No index of its own: the (member, game) constraint's index starts with the member.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="ratings",
        verbose_name=_("member"),
        db_index=False,
    )
    game = models.CharField(_("game"), max_length=32, choices=registry.choices)
    mu = models.FloatField(_("skill estimate"), default=DEFAULT_MU)
    sigma = models.FloatField(_("uncertainty"), default=DEFAULT_SIGMA)
    # mu - 3 sigma, stored because the leaderboard sorts by it and an expression cannot be indexed
    # the same way on SQLite and PostgreSQL.
    ordinal = models.FloatField(_("rating"), default=DEFAULT_ORDINAL)
    games = models.PositiveIntegerField(_("rated games"), default=0)
    wins = models.PositiveIntegerField(_("wins"), default=0)
    # Stored (games < PROVISIONAL_GAMES) rather than computed, so the leaderboard order "settled
    # ratings first" is an index column too.
    provisional = models.BooleanField(_("provisional"), default=True)
    last_played_at = models.DateTimeField(_("last game"), null=True, blank=True)
    last_match = models.ForeignKey(
        "games.Match",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("last match"),
    )

    objects = RatingQuerySet.as_manager()

    class Meta:
        verbose_name = _("rating")
        verbose_name_plural = _("ratings")
        ordering = ["game", "provisional", "-ordinal", "user_id"]
        constraints = [
            models.UniqueConstraint(fields=["user", "game"], name="one_rating_per_member_and_game")
        ]
        indexes = [
            models.Index(
                fields=["game", "provisional", "-ordinal", "user"], name="rating_leaderboard"
            )
        ]

    def __str__(self) -> str:
        return f"{self.user_id} {self.game}: {self.ordinal:.1f}"

    @property
    def skill(self) -> Skill:
        return Skill(mu=self.mu, sigma=self.sigma, ordinal=self.ordinal)

    @property
    def losses(self) -> int:
        """Rated games not won outright or in a shared first place."""
        return self.games - self.wins

    def place_in_leaderboard(self) -> int:
        """How many ratings of this game come before this one in the leaderboard's order."""
        same_group = Q(provisional=self.provisional)
        ahead = (
            Q(provisional__lt=self.provisional)
            | (same_group & Q(ordinal__gt=self.ordinal))
            | (same_group & Q(ordinal=self.ordinal, user_id__lt=self.user_id))
        )
        return Rating.objects.filter(game=self.game).filter(ahead).count()

    def record(self, skill: Skill, won: bool, match) -> None:
        """Take this match's result into the summary (the caller saves)."""
        self.mu = skill.mu
        self.sigma = skill.sigma
        self.ordinal = skill.ordinal
        self.games += 1
        self.wins += 1 if won else 0
        self.provisional = self.games < PROVISIONAL_GAMES
        self.last_played_at = match.finished_at
        self.last_match_id = match.pk


class MatchResult(models.Model):
    """One member's result in one finished match: their place and, when the match was rated,
    their rating before and after it (the rating history; empty for unrated matches).

    Kept for every finished match, rated or not, so that a profile's recent matches are an
    indexed range too, and a rating's history is read without a join.
    """

    # No single-column indexes: the (match, member) constraint and the two composite indexes
    # below start with these columns, and every index costs time on each of the rebuild's
    # half a million inserts.
    match = models.ForeignKey(
        "games.Match",
        on_delete=models.CASCADE,
        related_name="results",
        verbose_name=_("match"),
        db_index=False,
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="match_results",
        verbose_name=_("member"),
        db_index=False,
    )
    # Copied from the match so that a member's history is read from one index without a join.
    game = models.CharField(_("game"), max_length=32, choices=registry.choices)
    finished_at = models.DateTimeField(_("finished"))
    # The place that counted: the seat's, or in pairs the pair's (see skill.side_places).
    rank = models.PositiveSmallIntegerField(_("place"), null=True, blank=True)
    rated = models.BooleanField(_("rated"), default=False)
    # 1 for the member's first rated game of this game, 2 for the second...: a long history is
    # charted from evenly spaced numbers instead of reading every row.
    game_number = models.PositiveIntegerField(_("rated game number"), null=True, blank=True)
    mu_before = models.FloatField(null=True, blank=True)
    sigma_before = models.FloatField(null=True, blank=True)
    ordinal_before = models.FloatField(_("rating before"), null=True, blank=True)
    mu_after = models.FloatField(null=True, blank=True)
    sigma_after = models.FloatField(null=True, blank=True)
    ordinal_after = models.FloatField(_("rating after"), null=True, blank=True)

    class Meta:
        verbose_name = _("match result")
        verbose_name_plural = _("match results")
        ordering = ["finished_at", "match_id"]
        constraints = [
            models.UniqueConstraint(fields=["match", "user"], name="one_result_per_match_member")
        ]
        indexes = [
            models.Index(fields=["user", "-finished_at", "-match"], name="result_recent"),
            models.Index(fields=["user", "game", "game_number"], name="result_history"),
        ]

    def __str__(self) -> str:
        return f"{self.match_id}/{self.user_id}: {self.rank}"

    @property
    def delta(self) -> float | None:
        if not self.rated:
            return None
        return self.ordinal_after - self.ordinal_before


class HeadToHead(models.Model):
    """How one member fared against another over every finished match they played as
    opponents: counters kept up to date when a match finishes, so a profile reads a few rows
    instead of comparing places over thousands of matches."""

    # No index of its own: the pair constraint's index starts with the member.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="head_to_heads",
        verbose_name=_("member"),
        db_index=False,
    )
    rival = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("opponent"),
    )
    played = models.PositiveIntegerField(_("matches"), default=0)
    wins = models.PositiveIntegerField(_("wins"), default=0)
    losses = models.PositiveIntegerField(_("losses"), default=0)
    shared = models.PositiveIntegerField(_("shared places"), default=0)

    class Meta:
        verbose_name = _("head-to-head record")
        verbose_name_plural = _("head-to-head records")
        constraints = [
            models.UniqueConstraint(fields=["user", "rival"], name="one_head_to_head_per_pair")
        ]
        indexes = [models.Index(fields=["user", "-played"], name="head_to_head_most_played")]

    def __str__(self) -> str:
        return f"{self.user_id} vs {self.rival_id}: {self.wins}-{self.losses}-{self.shared}"
