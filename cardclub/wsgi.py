"""WSGI entry point (gunicorn cardclub.wsgi)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cardclub.settings")
application = get_wsgi_application()
