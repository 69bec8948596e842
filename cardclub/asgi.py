"""ASGI entry point: ``uvicorn cardclub.asgi:application`` (gunicorn with uvicorn workers in
production, see README).

The push streams (``/play/…/live/``) are answered by a lean ASGI app before Django's handler,
which would park a thread per open stream; every other request is Django's, at most
``MAX_REQUESTS_IN_FLIGHT`` at a time per process (``cardclub/overload.py``: beyond, a quick 503),
each served whole in one thread of a pool of at most ``REQUEST_THREADS`` (``cardclub/handler.py``):
those let in beyond the threads wait for one, holding no thread. A busy worker of several
(``SPREAD_CONNECTIONS_AFTER`` requests in flight, and as many more than the least busy other)
asks its clients to come back on a new connection (``cardclub/spread.py``).
"""

import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cardclub.settings")
django.setup(set_prefix=False)

from django.conf import settings  # noqa: E402

from cardclub.handler import PooledASGIHandler  # noqa: E402
from cardclub.overload import InFlightLimit  # noqa: E402
from cardclub.spread import SpreadConnections  # noqa: E402
from cardclub.workerload import BOARD  # noqa: E402
from games.streams import LiveStreams  # noqa: E402  (needs the apps loaded above)

# Without a bound on requests in flight (0), every request beyond the threads waits for one.
threads = settings.REQUEST_THREADS
django_application = PooledASGIHandler(min(settings.MAX_REQUESTS_IN_FLIGHT or threads, threads))
application = LiveStreams(
    SpreadConnections(
        InFlightLimit(django_application, settings.MAX_REQUESTS_IN_FLIGHT),
        settings.SPREAD_CONNECTIONS_AFTER,
        int(os.environ.get("CARDCLUB_SERVER_WORKERS", "1")),
        BOARD,
    )
)
PooledASGIHandler.tune_collector()
