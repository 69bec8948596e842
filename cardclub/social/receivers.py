"""The table's events heard here, so the games app need not know us: who is watching (and who is
still at a finished table). Wired by
:func:`connect`, which ``SocialConfig.ready()`` calls."""

from __future__ import annotations

from django.conf import settings
from django.core.cache import cache
from django.utils import timezone

from games.models import Match
from games.signals import match_page_open, match_viewed

from .models import Watcher


def watching(sender, match, user, **kwargs) -> None:
    """Remember that ``user`` is watching ``match``: one upsert at most every
    ``WATCH_WRITE_EVERY`` seconds per member and match (the cache says when), so a spectator's
    page fetches cost no query in between."""
    if not cache.add(f"social:watch:{match.pk}:{user.pk}", 1, settings.WATCH_WRITE_EVERY):
        return
    Watcher.saw(match.pk, user.pk)


def still_open(sender, match_id, user_id, **kwargs) -> None:
    """A page is still open (an idle poll, a stream's keep-alive): its row stays fresh, under
    the same key and pace as :func:`watching`. One UPDATE for a row that exists; without one,
    a row is made only at a finished match (the member whose move ended it has none yet), so
    the seated members of a match being played are never counted as its spectators."""
    if not user_id or not cache.add(
        f"social:watch:{match_id}:{user_id}", 1, settings.WATCH_WRITE_EVERY
    ):
        return
    now = timezone.now()
    if Watcher.objects.filter(match_id=match_id, user_id=user_id).update(seen_at=now):
        return
    if Match.objects.filter(pk=match_id, status=Match.Status.FINISHED).exists():
        Watcher.saw(match_id, user_id, now)


def connect() -> None:
    match_viewed.connect(watching, sender=Match, dispatch_uid="social.watching")
    match_page_open.connect(still_open, sender=Match, dispatch_uid="social.still_open")
