"""ASGI entry point: ``uvicorn cardclub.asgi:application`` (gunicorn with uvicorn workers in
production, see README).

The push streams (``/play/…/live/``) are answered by a lean ASGI app before Django's handler,
which would park a thread per open stream; every other request is Django's.
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cardclub.settings")
django_application = get_asgi_application()

from games.live_asgi import LiveStreams  # noqa: E402  (needs the apps loaded above)

application = LiveStreams(django_application)
