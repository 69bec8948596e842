"""The table's events heard here, so the games app need not know us: who is watching. Wired by
:func:`connect`, which ``SocialConfig.ready()`` calls."""

from __future__ import annotations

from django.conf import settings
from django.core.cache import cache
from django.utils import timezone

from games.models import Match
from games.signals import match_viewed

from .models import Watcher


def watching(sender, match, user, **kwargs) -> None:
    """Remember that ``user`` is watching ``match``: one upsert at most every
    ``WATCH_WRITE_EVERY`` seconds per member and match (the cache says when), so a spectator's
    page fetches cost no query in between."""
    if not cache.add(f"social:watch:{match.pk}:{user.pk}", 1, settings.WATCH_WRITE_EVERY):
        return
    now = timezone.now()
    if not Watcher.objects.filter(match=match, user=user).update(seen_at=now):
        Watcher.objects.bulk_create(
            [Watcher(match=match, user=user, seen_at=now)], ignore_conflicts=True
        )


def connect() -> None:
    match_viewed.connect(watching, sender=Match, dispatch_uid="social.watching")
