"""Remember when a member was last on the site, and in which language, cheaply: the cache lets
one request in every LAST_SEEN_WRITE_EVERY seconds per member write (one UPDATE), so almost
every request costs no query. The worker reads it to decide whether a turn needs an e-mail.
Two concurrent requests may both write: the same row, the same values, harmless."""

from __future__ import annotations

from django.conf import settings
from django.core.cache import cache
from django.utils import timezone
from django.utils.translation import get_language

from cardclub.accounts.models import Preferences


class LastSeenMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            language = get_language() or ""
            if language not in dict(settings.LANGUAGES):
                language = ""
            key = f"notifications:seen:{user.pk}"
            # The cache holds the language last written: a member who switches language has
            # their e-mails follow at once, not after the interval.
            if cache.get(key) != language:
                cache.set(key, language, timeout=settings.LAST_SEEN_WRITE_EVERY)
                seen = {"last_seen": timezone.now(), "site_language": language}
                # One UPDATE statement (Django wraps an upsert in a transaction: three on
                # SQLite). A member without a row gets one, once ever; a concurrent request
                # that created it first wins, which is as good.
                if not Preferences.objects.filter(user=user).update(**seen):
                    Preferences.objects.bulk_create(
                        [Preferences(user=user, **seen)], ignore_conflicts=True
                    )
        return response
