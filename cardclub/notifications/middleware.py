"""Remember when a member was last on the site, and in which language, cheaply: the cache lets
one request in every LAST_SEEN_WRITE_EVERY seconds per member note it, and the note is written
off the request path (``seen.py``), so no request waits on that write or fails with it. The
worker reads it to decide whether a turn needs an e-mail."""

from __future__ import annotations

from django.conf import settings
from django.core.cache import cache
from django.utils import timezone
from django.utils.translation import get_language

from cardclub.notifications import seen


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
            # The cache holds the language last noted: a member who switches language has
            # their e-mails follow at once, not after the interval.
            if cache.get(key) != language:
                cache.set(key, language, timeout=settings.LAST_SEEN_WRITE_EVERY)
                seen.note(user.pk, timezone.now(), language)
        return response
