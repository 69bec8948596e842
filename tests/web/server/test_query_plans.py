"""Issue 22: every lobby, profile, leaderboard and league query is served by an index.

On PostgreSQL only (skipped on SQLite, whose planner is not the one production relies on):
a populated club (2,000 members, 50,000 finished matches with their seats, ratings rebuilt),
its statistics fresh (``VACUUM ANALYZE``, as autovacuum keeps them), then each page's queries are
captured and ``EXPLAIN``-ed: none may read a big table (matches, seats, ratings) whole.
"""

from __future__ import annotations

import json
import random

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from games import writes
from games.models import Match
from tests.web.table_helpers import start_match, variant

# Transactional: VACUUM cannot run inside the test's transaction, and without it the planner
# knows no page is all-visible (autovacuum's visibility map) and never picks an index-only scan.
pytestmark = pytest.mark.django_db(transaction=True)

MEMBERS = 2_000
MATCHES = 50_000
BIG_TABLES = {
    "games_match",
    "games_seat",
    "ratings_rating",
    "ratings_matchresult",
    "ratings_headtohead",
}


def sequential_scans(plan: dict) -> list[str]:
    """The big tables a plan reads whole (a ``Seq Scan`` node anywhere in it)."""
    found = []
    if plan.get("Node Type") == "Seq Scan" and plan.get("Relation Name") in BIG_TABLES:
        found.append(plan["Relation Name"])
    for child in plan.get("Plans", ()):
        found.extend(sequential_scans(child))
    return found


def plans_of(queries) -> list[tuple[str, list[str]]]:
    """(query, big tables it scans whole) for every SELECT among the captured queries."""
    found = []
    with connection.cursor() as cursor:
        for query in queries:
            sql = query["sql"]
            if not sql.lstrip().upper().startswith("SELECT"):
                continue
            cursor.execute("EXPLAIN (FORMAT JSON) " + sql)
            plan = cursor.fetchone()[0]
            if isinstance(plan, str):
                plan = json.loads(plan)
            found.append((sql, sequential_scans(plan[0]["Plan"])))
    return found


@pytest.fixture
def populated(monkeypatch):
    if connection.vendor != "postgresql":
        pytest.skip("query plans are checked on PostgreSQL (DATABASE_URL)")
    from cardclub.ratings.services import rebuild_all
    from tests.bench import bench_ratings

    monkeypatch.setattr(bench_ratings, "MEMBERS", MEMBERS)
    monkeypatch.setattr(bench_ratings, "MATCHES", MATCHES)
    bench_ratings.generate(random.Random(22))  # (it moves the match id sequence past its own)
    rebuild_all()


def busiest_member():
    from django.contrib.auth import get_user_model

    # bench_ratings gives member00000 the most matches.
    return get_user_model().objects.get(username="member00000")


def test_the_club_pages_read_no_big_table_whole(populated, client_for, make_member):
    from cardclub.leagues.models import League, Season

    member = busiest_member()
    others = [make_member(f"rival{i}") for i in range(3)]
    # Live matches in the lobby: a few playing, one open, and open tables of others.
    for rival in others:
        start_match("escoba", [member, rival])
    writes.create_match(member, variant("scout"), 3, ["open", "easy"])
    writes.create_match(others[0], variant("escoba"), 2, ["open"])
    league = League.objects.create(
        name="Liga", game="schotten_totten", variant=variant("schotten_totten")
    )
    season = Season.objects.create(league=league, name="2026", starts_on="2026-01-01")
    for person in [member, *others]:
        season.add_player(person)
    season.generate_fixtures()
    with connection.cursor() as cursor:
        # What autovacuum does on its own: statistics for the planner, the visibility map.
        cursor.execute("VACUUM ANALYZE")
    assert Match.objects.filter(status=Match.Status.FINISHED).count() == MATCHES

    client = client_for(member)
    pages = {
        "lobby": reverse("games:lobby"),
        "my matches": reverse("games:all_my_matches"),
        "my matches (htmx)": reverse("games:my_matches"),
        "profile": reverse("member", args=[member.username]),
        "leaderboard": reverse("ratings:leaderboard", args=["scout"]),
        "leaderboard, page 5": reverse("ratings:leaderboard", args=["scout"]) + "?page=5",
        "club leaderboards": reverse("ratings:club"),
        "season": reverse("leagues:season", args=[season.pk]),
        "leagues": reverse("leagues:list"),
    }
    # A member who plays little: the planner's other way in (from the member's seats).
    typical = busiest_member().__class__.objects.get(username="member01000")
    visits = [(name, client, url) for name, url in pages.items()] + [
        ("lobby, typical member", client_for(typical), reverse("games:lobby")),
        ("profile, typical member", client, reverse("member", args=[typical.username])),
    ]
    scans = {}
    for name, visitor, url in visits:
        headers = {"HTTP_HX_REQUEST": "true"} if "htmx" in name else {}
        with CaptureQueriesContext(connection) as queries:
            response = visitor.get(url, **headers)
        assert response.status_code == 200, name
        for sql, tables in plans_of(queries):
            if tables:
                scans[f"{name}: {sql[:300]}"] = tables
    assert scans == {}
