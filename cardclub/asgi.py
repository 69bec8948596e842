"""ASGI entry point: ``uvicorn cardclub.asgi:application`` (gunicorn with uvicorn workers in
production, see README).

The push streams (``/play/…/live/``) are answered by a lean ASGI app before Django's handler,
which would park a thread per open stream; every other request is Django's.
"""

import os
import warnings

from django.core.asgi import get_asgi_application

# WhiteNoise hands Django a file iterator, which Django under ASGI reads in a thread and warns
# about on every static file. That is the documented cost of serving static files from the app
# (a proxy in front serves them in production); the warning would only bury real ones.
warnings.filterwarnings(
    "ignore", message="StreamingHttpResponse must consume synchronous iterators"
)

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cardclub.settings")
django_application = get_asgi_application()

from games.streams import LiveStreams  # noqa: E402  (needs the apps loaded above)

application = LiveStreams(django_application)
