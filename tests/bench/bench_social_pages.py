"""The social pages stay cheap with a busy club (issue 30): not a pytest test.

Run: ``.venv/bin/python -m tests.bench.bench_social_pages``. Builds a throw-away SQLite database
with ``BENCH_MEMBERS`` (400) members, 100 live matches between them (the three games, a few
moves in) and 200 members online (seen on the site just now), then serves the lobby (with its
list of who is online and what they play) of a member with one live match, taking turns with the
bare view, and the "being played" page (the 50 latest of the 100 with their spectators), as
``bench_pages`` does: inside Django's WSGI handler, and through gunicorn with two
uvicorn workers and production settings. Target: the lobby within 3x the bare view through the
server, for both. Exits 1 on a miss.
"""

from __future__ import annotations

import os
import random
import sys
import tempfile
from datetime import timedelta
from pathlib import Path

from tests.bench.bench_pages import interleaved, live_matches, through_server
from tests.bench.bench_tables import environ_factory, install_bench_urls, setup_django

MEMBERS = int(os.environ.get("BENCH_MEMBERS", 400))
LIVE = 100
ONLINE = 200
TARGETS = {"lobby, who is online": 3.0, "being played": 3.0}


def populate(rng: random.Random) -> None:
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from cardclub.accounts.models import Preferences

    User = get_user_model()
    User.objects.bulk_create(
        [User(username=f"member{n:05d}", password="!") for n in range(MEMBERS)]
    )
    Preferences.objects.bulk_create(
        [Preferences(user=user) for user in User.objects.all()], ignore_conflicts=True
    )
    members = list(User.objects.order_by("pk"))
    # Each live match has its own members, so the online list names 100 matches.
    for n in range(LIVE):
        live_matches(members[2 * n], [members[2 * n + 1], members[-1 - n]], 1, rng)
    # Seen "just now" for the whole run: an hour ahead, so nobody drops off while measuring.
    ahead = timezone.now() + timedelta(hours=1)
    Preferences.objects.filter(user__in=members[:ONLINE]).update(last_seen=ahead)


def main(argv: list[str]) -> int:
    with tempfile.TemporaryDirectory(prefix="cardclub-bench-") as folder:
        database = Path(folder) / "bench.sqlite3"
        setup_django(database, None)
        from django.contrib.auth import get_user_model
        from django.core.handlers.wsgi import WSGIHandler
        from django.test import Client, override_settings
        from django.urls import reverse

        from tests.bench.bench_capacity import session_key_for

        populate(random.Random(30))
        member = get_user_model().objects.get(username="member00000")
        pages = [
            # No target: the floor, what any page drawn in the site's frame costs.
            ("home (the frame alone)", reverse("home")),
            ("lobby, who is online", reverse("games:lobby")),
            ("being played", reverse("social:watching")),
        ]
        rows = []
        with override_settings(ROOT_URLCONF=install_bench_urls(), DEBUG=False):
            handler = WSGIHandler()
            client = Client()
            client.force_login(member, backend="django.contrib.auth.backends.ModelBackend")
            factory = environ_factory(client)
            for label, url in pages:
                bare, page, queries, size = interleaved(
                    handler, lambda: factory.get("/bare/"), lambda url=url: factory.get(url)
                )
                rows.append((label, bare, page, queries, size))
        served = through_server(
            database,
            None,
            [(label, url, member) for label, url in pages],
            {member: session_key_for(member)},
        )
    print(f"\nLoad average (1 min): {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    print(f"{LIVE} live matches, {ONLINE} members online, {MEMBERS} members")
    print("Inside Django's WSGI handler:")
    for label, bare, page, queries, size in rows:
        print(
            f"{label:<24} bare {bare[0]:6.2f} ms  page {page[0]:6.2f} ms  x{page[0] / bare[0]:.2f}"
            f"  cpu x{page[1] / bare[1]:.2f}  {queries} queries  {size / 1024:.0f} KiB"
        )
    print("Through gunicorn (2 uvicorn workers, production settings):")
    ok = True
    for label, bare, page in served:
        ratio, target = page / bare, TARGETS.get(label)
        missed = target is not None and ratio > target
        ok = ok and not missed
        verdict = "" if target is None else f"≤ {target}x: {'MISSED' if missed else 'ok'}"
        print(f"{label:<24} bare {bare:6.2f} ms  page {page:6.2f} ms  x{ratio:.2f}  {verdict}")
    print("PASS" if ok else "FAIL: a target was missed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
