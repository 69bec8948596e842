"""A password-reset request for a member's address against one for an unknown address (issue 18).

Run: ``.venv/bin/python -m tests.bench.bench_password_reset``. On a fresh SQLite file with the
database task backend, posts the reset form alternately with a member's address and with an
address nobody has (``BENCH_RESETS`` of each, 200 by default), through Django's WSGI handler as
in bench_tables, and prints the median server time and queries of each. The request only queues
the address for the worker, so both must do the same work: the medians within 20% of each other
(the measurement's own noise on a shared machine) and the same number of queries, or exit 1.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
from pathlib import Path
from urllib.parse import urlencode

from tests.bench.bench_tables import serve, setup_django

RESETS = int(os.environ.get("BENCH_RESETS", 200))


def main() -> int:
    with tempfile.TemporaryDirectory() as folder:
        setup_django(Path(folder) / "bench.sqlite3")
        from django.contrib.auth import get_user_model
        from django.core.handlers.wsgi import WSGIHandler
        from django.db import connection
        from django.test import Client, RequestFactory
        from django.test.utils import CaptureQueriesContext
        from django_tasks_db.models import DBTaskResult

        get_user_model().objects.create_user("member", "member@example.com", "x")
        handler = WSGIHandler()
        client = Client()
        client.get("/accounts/password/reset/")
        token = client.cookies["csrftoken"].value

        class EnvironFactory(RequestFactory):
            def request(self, **request):
                return self._base_environ(**request)

        factory = EnvironFactory()
        factory.cookies = client.cookies

        def environ(email):
            return factory.post(
                "/accounts/password/reset/",
                urlencode({"csrfmiddlewaretoken": token, "email": email}),
                content_type="application/x-www-form-urlencoded",
            )

        times = {"member's address": [], "unknown address": []}
        queries = {}
        addresses = {"member's address": "member@example.com", "unknown address": "no@example.com"}
        for number in range(RESETS + 1):
            for kind, email in addresses.items():
                if number == 0:
                    with CaptureQueriesContext(connection) as captured:
                        status, _, _ = serve(handler, environ(email))
                    queries[kind] = len(captured)
                else:
                    status, _, elapsed = serve(handler, environ(email))
                    times[kind].append(elapsed)
                assert status == 302, status
        queued = DBTaskResult.objects.filter(task_path__endswith="send_password_reset").count()

    medians = {kind: statistics.median(values) for kind, values in times.items()}
    print(f"{'reset request for':<20}{'median ms':>10}{'queries':>9}")
    for kind, ms in medians.items():
        print(f"{kind:<20}{ms:>10.2f}{queries[kind]:>9}")
    low, high = sorted(medians.values())
    ok = high <= low * 1.2 and len(set(queries.values())) == 1
    print(f"({RESETS} of each, alternating; {queued} reset mails queued for the worker, sent none)")
    print(f"load average {os.getloadavg()[0]:.2f}")
    print("PASS" if ok else "FAIL: the two requests differ")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
