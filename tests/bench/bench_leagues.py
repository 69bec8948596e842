"""A season page at club scale (issue 11, "Speed"): not a pytest test.

Run: ``.venv/bin/python -m tests.bench.bench_leagues``. Builds a throw-away SQLite database with a
40-member double round robin (78 rounds, 1,560 fixtures), every fixture played as a finished match
with a result, then measures the season page (standings, crosstable and every round's fixtures):
median server time over repeated ``Client().get`` with DEBUG off, and its queries.

Targets: <= 50 ms and <= 10 queries, both for the first view after a result (standings computed)
and for later views (standings from the cache, keyed by the season's results version). The
league list is measured too, as a yardstick for how fast the machine is at the time. Prints the
figures and exits 1 if a target is missed.
"""

from __future__ import annotations

import random
import statistics
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

from tests.bench.django_setup import configure

MEMBERS = 40
REPEAT = 25
PAGE_TARGET_MS = 50.0
PAGE_TARGET_QUERIES = 10


def build_season(rng: random.Random):
    """The season with every fixture played. Matches are inserted finished (bulk), as the page
    only reads their id and status; results go on the fixture seats as a match would write them."""
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from cardclub.leagues.models import Fixture, FixtureSeat, League, Season
    from games.models import Match, RuleVariant, Seat

    User = get_user_model()
    User.objects.bulk_create(
        [User(username=f"member{i:02d}", password="!") for i in range(MEMBERS)]
    )
    users = list(User.objects.order_by("pk"))
    variant = RuleVariant.objects.get(game="schotten_totten", slug="standard")
    league = League.objects.create(name="Bench league", game=variant.game, variant=variant)
    season = Season.objects.create(
        league=league, name="Bench", format=Season.Format.DOUBLE, starts_on=date.today()
    )
    for user in users:
        season.add_player(user)
    season.generate_fixtures()
    fixtures = list(Fixture.objects.filter(round__season=season).order_by("pk"))
    now = timezone.now()
    matches = Match.objects.bulk_create(
        [
            Match(
                game=variant.game,
                variant=variant,
                options={},
                players=2,
                status=Match.Status.FINISHED,
                state={},
                finished_at=now,
            )
            for _ in fixtures
        ]
    )
    seats_by_fixture: dict[int, list] = {}
    for seat in FixtureSeat.objects.filter(fixture__in=fixtures).order_by("fixture_id", "index"):
        seats_by_fixture.setdefault(seat.fixture_id, []).append(seat)
    match_seats, fixture_seats = [], []
    for fixture, match in zip(fixtures, matches, strict=True):
        a, b = seats_by_fixture[fixture.pk]
        outcome = rng.random()
        a.score, b.score = rng.randint(0, 5), rng.randint(0, 5)
        if outcome < 0.15:
            a.rank = b.rank = 1
        elif outcome < 0.6:
            a.rank, b.rank = 1, 2
        else:
            a.rank, b.rank = 2, 1
        fixture_seats += [a, b]
        match_seats += [
            Seat(match=match, index=s.index, user_id=s.user_id, rank=s.rank, score=s.score)
            for s in (a, b)
        ]
        fixture.match = match
        fixture.status = Fixture.Status.PLAYED
        fixture.result_at = now
    Seat.objects.bulk_create(match_seats)
    FixtureSeat.objects.bulk_update(fixture_seats, ["rank", "score"], batch_size=500)
    Fixture.objects.bulk_update(fixtures, ["match", "status", "result_at"], batch_size=500)
    season.current_round = season.rounds.count()
    season.save()
    return season, users, len(fixtures)


def measure_page(
    client, url: str, before_each=lambda: None, clock=time.perf_counter
) -> tuple[float, int, int]:
    """Median milliseconds by ``clock`` (``time.process_time``: the CPU time), queries, bytes."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    for _ in range(3):  # warm the template cache and the database pages
        response = client.get(url)
        assert response.status_code == 200, (url, response.status_code)
    timings = []
    for _ in range(REPEAT):
        before_each()
        started = clock()
        client.get(url)
        timings.append((clock() - started) * 1000)
    before_each()
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    return statistics.median(timings), len(queries.captured_queries), len(response.content)


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="cardclub-bench-") as folder:
        configure(Path(folder) / "bench.sqlite3")
        from django.core.management import call_command
        from django.test import Client

        call_command("migrate", verbosity=0)
        started = time.perf_counter()
        season, users, fixtures = build_season(random.Random(20261130))
        print(
            f"{MEMBERS} members, double round robin: {season.rounds.count()} rounds, "
            f"{fixtures:,} fixtures played (built in {time.perf_counter() - started:.1f} s)"
        )
        client = Client()
        client.force_login(users[0], backend="django.contrib.auth.backends.ModelBackend")
        print(f"{'what':<34} {'median':>10} {'queries':>8} {'size':>7}  target")
        # The first view after a result computes the tables; later views read them from the
        # cache until the next result. Both must meet the target.
        from django.core.cache import cache

        url = season.get_absolute_url()
        cold = measure_page(client, url, before_each=cache.clear)
        warm = measure_page(client, url)
        # A small page on the same stack, so a slow or busy machine shows in the figures.
        base = measure_page(client, "/leagues/")
        ok = True
        for label, (ms, queries, size), target in [
            ("season page, after a result", cold, True),
            ("season page, unchanged", warm, True),
            ("league list (for comparison)", base, False),
        ]:
            met = ms <= PAGE_TARGET_MS and queries <= PAGE_TARGET_QUERIES
            ok = ok and (met or not target)
            verdict = ("ok" if met else "MISSED") if target else ""
            print(
                f"{label:<34} {ms:>7.1f} ms {queries:>8} {size / 1024:>5.0f} kB"
                + (
                    f"  <= {PAGE_TARGET_MS:.0f} ms, <= {PAGE_TARGET_QUERIES} q  {verdict}"
                    if target
                    else ""
                )
            )
        return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
