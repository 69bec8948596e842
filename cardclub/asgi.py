"""ASGI entry point: ``uvicorn cardclub.asgi:application`` (gunicorn with uvicorn workers in
production, see README).

The push streams (``/play/…/live/``) are answered by a lean ASGI app before Django's handler,
which would park a thread per open stream; every other request is Django's, at most
``MAX_REQUESTS_IN_FLIGHT`` at a time per process (``cardclub/overload.py``: beyond, a quick 503).
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

from django.conf import settings  # noqa: E402

from cardclub.overload import InFlightLimit  # noqa: E402
from games.streams import LiveStreams  # noqa: E402  (needs the apps loaded above)

application = LiveStreams(InFlightLimit(django_application, settings.MAX_REQUESTS_IN_FLIGHT))
