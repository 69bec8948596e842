"""One way for every benchmark script to start Django on a fresh SQLite file (or, given its
URL, a PostgreSQL database)."""

from __future__ import annotations

import os
from pathlib import Path


def configure(database: Path, database_url: str | None = None) -> None:
    """Production settings on the SQLite file ``database`` (or on ``database_url``), apart from
    HTTPS redirects (the test client speaks plain HTTP) and the hashed static files (no
    collectstatic manifest here)."""
    os.environ["DJANGO_SETTINGS_MODULE"] = "cardclub.settings"
    os.environ["SQLITE_PATH"] = str(database)
    if database_url:
        os.environ["DATABASE_URL"] = database_url
    else:
        os.environ.pop("DATABASE_URL", None)
    os.environ["DEBUG"] = "0"
    os.environ["SECRET_KEY"] = "bench-only-secret-key-not-for-anything-else-0123456789"
    os.environ["ALLOWED_HOSTS"] = "testserver"
    os.environ["SECURE_SSL_REDIRECT"] = "0"
    import django

    django.setup()
    from django.conf import settings

    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
