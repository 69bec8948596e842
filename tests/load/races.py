"""Races against a real multi-worker server: members acting at the same instant.

For each database (PostgreSQL; SQLite by its default path; SQLite named by DATABASE_URL) this
migrates a fresh database, starts the server of ``tests/load/server.py`` (gunicorn, 4 workers)
on 127.0.0.1, and plays rounds of each race: the requests of a round wait at a barrier, one
thread each, and go out together as real HTTP. Then it checks what the members were told against
what the database holds, and replays every match from its seed and log.

    python -m tests.load.races                      # every database, 20 rounds per race
    python -m tests.load.races --db sqlite --rounds 3
    python -m tests.load.races --race rematches     # only some races

Prints a table of figures per race and database; exits 1 when any figure is not what the issue
asks (0 lost writes, 0 × 500, 0 overwritten results, 0 refused simultaneous decisions, 0 stale
controls, every match replays). Each database runs in its own process, since Django's settings
are fixed once a process has read them.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

from tests.load.server import ROOT, Server, base_env

DATABASES = ["postgres", "sqlite", "sqlite-url"]
RACES = [
    "joins",
    "leaves",
    "leave_vs_join",
    "moves",
    "decisions",
    "resignations",
    "rated_finishes",
    "sweep_vs_final_move",
    "swiss_next_round",
    "rematches",
]
FIGURES = ["rounds", "requests", "lost", "500s", "overwritten", "refused", "stale", "unreplayable"]

MESSAGE = re.compile(r'<p class="message ([a-z ]+)" role="[a-z]+">(.*?)</p>', re.S)
ERROR_IN_TABLE = 'class="message error" role="alert"'
ADMIN_MESSAGE = re.compile(r'<li class="(success|error|warning|info)">(.*?)</li>', re.S)


# --- HTTP, as a browser would send it -----------------------------------------------------------


@dataclass
class Response:
    status: int
    headers: dict[str, str]
    body: str


@dataclass
class Member:
    user_id: int
    username: str
    session: str
    csrf: str = field(default_factory=lambda: secrets.token_hex(16))

    def cookie(self) -> str:
        return f"sessionid={self.session}; csrftoken={self.csrf}; django_language=en"


class Client:
    def __init__(self, port: int):
        self.port = port
        self.statuses: Counter[int] = Counter()
        self.lock = threading.Lock()
        self.failures: list[str] = []

    def request(
        self, member: Member, method: str, path: str, data=None, htmx=False, query=None
    ) -> Response:
        if query:
            path += "?" + urlencode(query)
        headers = {"Cookie": member.cookie(), "X-CSRFToken": member.csrf, "Host": "127.0.0.1"}
        body = None
        if data is not None:
            body = urlencode(data)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        if htmx:
            headers["HX-Request"] = "true"
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        try:
            connection.request(method, path, body=body, headers=headers)
            raw = connection.getresponse()
            response = Response(
                raw.status, dict(raw.getheaders()), raw.read().decode("utf-8", "replace")
            )
        finally:
            connection.close()
        with self.lock:
            self.statuses[response.status] += 1
            if response.status >= 500:
                self.failures.append(f"{method} {path}: {response.status}")
        return response

    def told(self, member: Member, path: str) -> list[tuple[str, str]]:
        """The messages a member's next page shows (what the member was told)."""
        response = self.request(member, "GET", path)
        return [(kind.split()[0], text.strip()) for kind, text in MESSAGE.findall(response.body)]


def at_once(calls):
    """Run every call in its own thread, released together by a barrier; their results in
    order (an exception is returned in its place)."""
    barrier = threading.Barrier(len(calls))
    results: list = [None] * len(calls)

    def run(index, call):
        from django.db import connection

        try:
            barrier.wait(timeout=60)
            results[index] = call()
        except Exception as error:  # the race records it as a failure of that request
            results[index] = error
            traceback.print_exc()
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    return results


# --- The races ----------------------------------------------------------------------------------


class Races:
    def __init__(self, client: Client, members: list[Member]):
        self.client = client
        self.members = members
        self.by_id = {m.user_id: m for m in members}
        self.figures: dict[str, Counter] = defaultdict(Counter)
        self.notes: list[str] = []

    def outcome(self, race: str, what: str) -> None:
        """Which way a round went (who came first), to show that both orders happened."""
        self.figures[race]["outcome: " + what] += 1

    def note(self, race: str, kind: str, text: str) -> None:
        self.figures[race][kind] += 1
        self.notes.append(f"{race}: {kind}: {text}")

    # Helpers on the database side (setting up a round is not the race).

    def user(self, member: Member):
        from django.contrib.auth import get_user_model

        return get_user_model().objects.get(pk=member.user_id)

    def variant(self, game: str):
        from games.models import RuleVariant

        return RuleVariant.objects.get(game=game, slug="standard")

    def seated(self, match) -> list[int]:
        from games.models import Seat

        return list(
            Seat.objects.filter(match=match, user__isnull=False)
            .order_by("index")
            .values_list("user_id", flat=True)
        )

    def post(self, member, path, data=None, htmx=False):
        return lambda: self.client.request(member, "POST", path, data or {}, htmx=htmx)

    def check_stale_controls(self, race: str, match, members, seen_version: int) -> None:
        """Every other page of a match that just ended, polling from before the end, gets the
        finished table and nothing of a live match."""
        resign = f"/play/m/{match.pk}/resign/"
        # A finished match that offers "Play again" keeps listening for the answers
        # (cardclub/social): its table may ask for updates, but offers nothing of a live match.
        match.refresh_from_db()
        listens = match.offers_rematch()
        for member in members:
            response = self.client.request(
                member, "GET", f"/play/m/{match.pk}/poll/", query={"v": seen_version}, htmx=True
            )
            body = response.body
            controls = re.search(r'<div id="match-controls"[^>]*>(.*?)</div>', body, re.S)
            live = (
                response.status != 200
                or resign in body
                or ("hx-trigger" in body and not listens)
                or controls is None
                or controls.group(1).strip()
                or 'id="messages"' not in body
                or 'class="panel result"' not in body
            )
            if live:
                self.note(race, "stale", f"match {match.pk} page of {member.username}")

    # 1. Five members race for the four free seats of a Scout table.
    def joins(self) -> None:
        from games import writes
        from games.models import Match

        creator, *joiners = self.members[:6]
        match = writes.create_match(self.user(creator), self.variant("scout"), 5, ["open"] * 4)
        path = f"/play/m/{match.pk}/join/"
        at_once([self.post(m, path) for m in joiners])
        match.refresh_from_db()
        seated = self.seated(match)
        for member in joiners:
            told = self.client.told(member, match.get_absolute_url())
            said_seated = ("success", "You have taken a seat.") in told
            if said_seated != (member.user_id in seated):
                self.note("joins", "lost", f"match {match.pk}: {member.username} told {told}")
        if len(seated) != 5 or len(set(seated)) != 5 or match.status != Match.Status.PLAYING:
            self.note("joins", "lost", f"match {match.pk}: seated {seated}, {match.status}")

    # 2. The two members at a table leave at once: it must close, empty.
    def leaves(self) -> None:
        from games import writes
        from games.models import Match

        a, b = self.members[:2]
        match = writes.create_match(self.user(a), self.variant("scout"), 3, ["open", "open"])
        writes.join_match(match.pk, self.user(b))
        path = f"/play/m/{match.pk}/leave/"
        at_once([self.post(m, path) for m in (a, b)])
        match.refresh_from_db()
        seated = self.seated(match)
        for member in (a, b):
            told = self.client.told(member, "/play/")
            said_left = ("success", "You have left the table.") in told
            if not said_left or member.user_id in seated:
                self.note("leaves", "lost", f"match {match.pk}: {member.username} told {told}")
        if seated or match.status != Match.Status.ABANDONED:
            self.note("leaves", "lost", f"match {match.pk}: seated {seated}, {match.status}")

    # 3. The only member at a table leaves while another joins.
    def leave_vs_join(self) -> None:
        from games import writes
        from games.models import Match

        a, b = self.members[2:4]
        match = writes.create_match(self.user(a), self.variant("scout"), 3, ["open", "open"])
        at_once(
            [self.post(a, f"/play/m/{match.pk}/leave/"), self.post(b, f"/play/m/{match.pk}/join/")]
        )
        match.refresh_from_db()
        seated = self.seated(match)
        b_told = self.client.told(b, match.get_absolute_url())
        a_told = self.client.told(a, "/play/")
        if ("success", "You have left the table.") not in a_told or a.user_id in seated:
            self.note("leave_vs_join", "lost", f"match {match.pk}: leaver told {a_told}")
        joined = ("success", "You have taken a seat.") in b_told
        if joined != (b.user_id in seated):
            self.note("leave_vs_join", "lost", f"match {match.pk}: joiner told {b_told}")
        self.outcome("leave_vs_join", "join first" if joined else "leave first")
        # Abandoned exactly when nobody sits there; open with the joiner otherwise.
        if (match.status == Match.Status.ABANDONED) != (not seated):
            self.note("leave_vs_join", "lost", f"match {match.pk}: seated {seated} {match.status}")

    # 4. Eight tabs of the member to move post moves for the same version: exactly one applies.
    def moves(self) -> None:
        from games.models import MoveRecord

        a, b = self.members[4:6]
        match = self.started("escoba", [a, b])
        engine = match.engine
        state = engine.load(match.state)
        seat = engine.to_move(state)[0]
        mover = [a, b][seat]
        codes = [move.code for move in engine.legal_moves(state, seat)]
        path = f"/play/m/{match.pk}/move/"
        responses = at_once(
            [
                self.post(mover, path, {"code": codes[i % len(codes)], "v": match.version}, True)
                for i in range(8)
            ]
        )
        applied = [
            r
            for r in responses
            if isinstance(r, Response) and r.status == 200 and ERROR_IN_TABLE not in r.body
        ]
        before = match.version
        match.refresh_from_db()
        records = MoveRecord.objects.filter(match=match).count()
        if len(applied) != 1 or records != 1 or match.version != before + 1:
            self.note(
                "moves", "lost", f"match {match.pk}: {len(applied)} told applied, {records} logged"
            )

    # 5. Every member of a 5-player Scout table decides keep-or-rotate from the same page.
    def decisions(self) -> None:
        from games.models import MoveRecord
        from games.scout import engine as scout

        players = self.members[:5]
        match = self.started("scout", players)
        path = f"/play/m/{match.pk}/move/"
        responses = at_once(
            [
                self.post(m, path, {"code": "kr"[i % 2], "v": match.version}, True)
                for i, m in enumerate(players)
            ]
        )
        for member, response in zip(players, responses, strict=True):
            if not isinstance(response, Response) or ERROR_IN_TABLE in response.body:
                self.note("decisions", "refused", f"match {match.pk}: {member.username}")
        match.refresh_from_db()
        records = MoveRecord.objects.filter(match=match).count()
        if records != 5 or scout.load(match.state).phase != scout.PLAY:
            self.note("decisions", "lost", f"match {match.pk}: {records} decisions logged")

    # 6. Both members resign at once: one resignation ends the match, the other is refused.
    def resignations(self) -> None:
        from games.models import Match, Seat

        a, b = self.members[6:8]
        match = self.started("escoba", [a, b])
        seen = match.version
        at_once([self.post(m, f"/play/m/{match.pk}/resign/") for m in (a, b)])
        match.refresh_from_db()
        resigned = Seat.objects.filter(match=match, resigned=True).count()
        if match.status != Match.Status.FINISHED or resigned != 1:
            self.note("resignations", "lost", f"match {match.pk}: {resigned} resigned")
        self.check_stale_controls("resignations", match, [a, b], seen)

    # 7. Rated matches between the same two members, half with the seats the other way round,
    # end together (several pairs a round: the window for a deadlock is one statement wide).
    def rated_finishes(self, pairs: int = 3) -> None:
        from cardclub.ratings.models import HeadToHead, MatchResult, Rating
        from games.models import Match

        a, b = self.members[2:4]
        matches = []
        for _pair in range(pairs):
            matches.append((self.started("escoba", [a, b]), [a, b]))
            matches.append((self.started("escoba", [b, a]), [b, a]))

        def games():
            return {
                r.user_id: r.games
                for r in Rating.objects.filter(game="escoba", user_id__in=[a.user_id, b.user_id])
            }

        def played():
            return sum(
                HeadToHead.objects.filter(user_id=a.user_id, rival_id=b.user_id).values_list(
                    "played", flat=True
                )
            )

        before, h2h_before = games(), played()
        calls, seen = [], {}
        for match, order in matches:
            assert match.rated
            seat, code = self.near_end(match)
            match.refresh_from_db()
            seen[match.pk] = match.version
            data = {"code": code, "v": seen[match.pk]}
            calls.append(self.post(order[seat], f"/play/m/{match.pk}/move/", data, True))
        at_once(calls)
        after = games()
        for match, _order in matches:
            match.refresh_from_db()
            results = MatchResult.objects.filter(match=match).count()
            if match.status != Match.Status.FINISHED or results != 2:
                self.note("rated_finishes", "lost", f"match {match.pk}: {match.status}, {results}")
            self.check_stale_controls("rated_finishes", match, [a, b], seen[match.pk])
        for member in (a, b):
            if after.get(member.user_id, 0) - before.get(member.user_id, 0) != len(matches):
                self.note("rated_finishes", "lost", f"{member.username}: rated games {after}")
        if played() - h2h_before != len(matches):
            self.note("rated_finishes", "lost", "head-to-head lost a match")

    # 8. The overdue sweep runs while the last move of the fixture's match is posted.
    def sweep_vs_final_move(self) -> None:
        from datetime import timedelta

        from django.core.management import call_command
        from django.utils import timezone

        from cardclub.leagues import actions as league_actions
        from cardclub.leagues.models import Fixture, League, ResultChange, Season
        from games.models import Match

        a, b = self.members[0], self.members[7]
        league = League.objects.create(name="Race", game="escoba", variant=self.variant("escoba"))
        season = Season.objects.create(league=league, name="Race")
        for member in (a, b):
            season.add_player(self.user(member))
        season.generate_fixtures()
        fixture = Fixture.objects.get(round__season=season)
        for member in (a, b):  # both say "ready": the second one starts the match
            fixture = league_actions.say_ready(fixture.pk, self.user(member))
        match = fixture.match
        order = [self.by_id[uid] for uid in self.seated(match)]
        seat, code = self.near_end(match)
        match.refresh_from_db()
        Fixture.objects.filter(pk=fixture.pk).update(deadline=timezone.now() - timedelta(hours=1))
        out = open(os.devnull, "w")  # noqa: SIM115
        data = {"code": code, "v": match.version}
        at_once(
            [
                self.post(order[seat], f"/play/m/{match.pk}/move/", data, True),
                lambda: call_command("overdue_fixtures", stdout=out),
            ]
        )
        out.close()
        match.refresh_from_db()
        fixture.refresh_from_db()
        changes = list(ResultChange.objects.filter(fixture=fixture).order_by("pk"))
        self.outcome(
            "sweep_vs_final_move",
            "move first" if fixture.status == Fixture.Status.PLAYED else "sweep first",
        )
        if match.status != Match.Status.FINISHED:
            self.note("sweep_vs_final_move", "lost", f"match {match.pk} not finished")
        if len(changes) != 1:
            # A played result overwritten by a forfeit (or the other way round).
            self.note(
                "sweep_vs_final_move",
                "overwritten",
                f"fixture {fixture.pk}: {[c.note for c in changes]}",
            )
        elif fixture.status == Fixture.Status.PLAYED:
            ranks = {s.index: s.rank for s in match.seats.all()}
            if {s.index: s.rank for s in fixture.seats.all()} != ranks:
                self.note("sweep_vs_final_move", "overwritten", f"fixture {fixture.pk} ranks")

    # 9. Two admins press "Move to the next round" of a Swiss at the same instant: one round
    # is paired, the other admin is told the round it would pair from is unfinished.
    def swiss_next_round(self) -> None:
        from types import SimpleNamespace

        from cardclub.leagues.models import Fixture, League, Season

        if not hasattr(self, "admins"):
            self.admins = make_members(2, prefix="admin", is_staff=True, is_superuser=True)
        league = League.objects.get_or_create(
            name="Race Swiss", game="schotten_totten", variant=self.variant("schotten_totten")
        )[0]
        season = Season.objects.create(
            league=league, name="race", format=Season.Format.SWISS, swiss_rounds=3
        )
        for member in self.members:
            season.add_player(self.user(member))
        season.generate_fixtures()
        for fixture in Fixture.objects.filter(round__season=season):
            fixture.record_match_result(
                [SimpleNamespace(index=i, rank=i + 1, score=0) for i in range(2)]
            )
        path = "/admin/leagues/season/"
        data = {"action": "next_round", "_selected_action": season.pk}
        at_once([self.post(admin, path, data) for admin in self.admins])
        told = [
            ADMIN_MESSAGE.findall(self.client.request(a, "GET", path).body) for a in self.admins
        ]
        season.refresh_from_db()
        fixtures = Fixture.objects.filter(round__season=season, round__number=2).count()
        if season.current_round != 2 or season.rounds.count() != 2 or fixtures != 4:
            self.note(
                "swiss_next_round",
                "lost",
                f"season {season.pk}: round {season.current_round}, "
                f"{season.rounds.count()} rounds, {fixtures} fixtures in round 2",
            )
        kinds = sorted(kind for messages in told for kind, _text in messages)
        if kinds != ["error", "success"]:
            self.note("swiss_next_round", "refused", f"season {season.pk}: told {told}")

    # 10. Both members of a finished match press "Play again" at the same instant (no offer yet,
    # so each request may make it): one rematch, one new match, both members seated in it.
    def rematches(self) -> None:
        from cardclub.social.models import Rematch
        from games import writes
        from games.models import Match

        a, b = self.members[4:6]
        match = self.started("schotten_totten", [a, b])
        writes.resign(match.pk, self.user(a))
        newest = Match.objects.order_by("-pk").values_list("pk", flat=True).first()
        responses = at_once([self.post(m, f"/social/rematch/{match.pk}/") for m in (a, b)])
        made = Match.objects.filter(pk__gt=newest).count()
        rematch = Rematch.objects.filter(match=match).first()
        if made != 1 or rematch is None or rematch.new_match_id is None:
            self.note("rematches", "lost", f"match {match.pk}: {made} new matches")
            return
        if sorted(self.seated(rematch.new_match)) != sorted([a.user_id, b.user_id]):
            self.note("rematches", "lost", f"rematch {rematch.pk}: the seats are wrong")
        if any(getattr(r, "status", 0) != 302 for r in responses):
            self.note("rematches", "refused", f"match {match.pk}: {responses}")
        first = rematch.offered_by_id == a.user_id
        self.outcome("rematches", "a offered first" if first else "b offered first")

    # Setting up.

    def started(self, game: str, members: list[Member]):
        from games import writes

        users = [self.user(m) for m in members]
        match = writes.create_match(
            users[0], self.variant(game), len(users), ["open"] * (len(users) - 1)
        )
        for user in users[1:]:
            writes.join_match(match.pk, user)
        match.refresh_from_db()
        return match

    def near_end(self, match) -> tuple[int, str]:
        """Play the first legal move for whoever is to move (a sequential game) until the next
        move ends the match, writing the log and the state as the moves would have; return the
        last move's seat and code."""
        from django.db import transaction
        from django.db.models import Case, Value, When

        from games.models import Match, MoveRecord, Seat

        engine = match.engine
        state = engine.load(match.state)
        version, records = match.version, []
        while True:
            seat = engine.to_move(state)[0]
            move = engine.legal_moves(state, seat)[0]
            after = engine.apply(state, seat, move)
            if engine.is_over(after):
                break
            version += 1
            records.append(
                MoveRecord(
                    match=match,
                    seq=match.moves_played + len(records) + 1,
                    seat=seat,
                    code=move.code,
                    version=version,
                )
            )
            state = after
        with transaction.atomic():
            MoveRecord.objects.bulk_create(records)
            Match.objects.filter(pk=match.pk).update(
                state=engine.dump(state),
                version=version,
                moves_played=match.moves_played + len(records),
            )
            Seat.objects.filter(match=match).update(
                to_move=Case(When(index=seat, then=Value(True)), default=Value(False))
            )
        return seat, move.code

    def replay_all(self) -> int:
        """Matches whose stored state is not what their seed and log replay to."""
        from games.models import Match

        bad = 0
        for match in Match.objects.exclude(state=None).iterator():
            if match.engine.dump(match.replay()) != match.state:
                bad += 1
                self.notes.append(f"replay: match {match.pk} does not replay to its state")
        return bad


# --- One database, in its own process -----------------------------------------------------------


def make_members(count: int, prefix: str = "racer", **fields) -> list[Member]:
    from django.contrib.auth import (
        BACKEND_SESSION_KEY,
        HASH_SESSION_KEY,
        SESSION_KEY,
        get_user_model,
    )
    from django.contrib.sessions.backends.db import SessionStore

    members = []
    for i in range(count):
        user = get_user_model().objects.create_user(f"{prefix}{i}", password=None, **fields)
        session = SessionStore()
        session[SESSION_KEY] = str(user.pk)
        session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
        session[HASH_SESSION_KEY] = user.get_session_auth_hash()
        session.create()
        members.append(Member(user.pk, user.username, session.session_key))
    return members


def run_one(db: str, rounds: int, port: int, log_dir: Path) -> dict:
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)
    members = make_members(8)
    client = Client(port)
    races = Races(client, members)
    requests_before: dict[str, int] = {}
    chosen = [name for name in os.environ.get("RACE_ONLY", "").split(",") if name] or RACES
    with Server(port, dict(os.environ), log_dir / f"server-{db}.log"):
        for name in chosen:
            started = time.monotonic()
            for _round in range(rounds):
                before = sum(client.statuses.values())
                fives = sum(n for s, n in client.statuses.items() if s >= 500)
                try:
                    getattr(races, name)()
                except Exception:
                    races.note(name, "lost", "the round failed: " + traceback.format_exc())
                races.figures[name]["rounds"] += 1
                races.figures[name]["requests"] += sum(client.statuses.values()) - before
                races.figures[name]["500s"] += (
                    sum(n for s, n in client.statuses.items() if s >= 500) - fives
                )
            races.figures[name]["seconds"] = round(time.monotonic() - started)
        requests_before["total"] = sum(client.statuses.values())
    unreplayable = races.replay_all()
    figures = {name: dict(races.figures[name]) for name in chosen}
    for name in chosen:
        figures[name]["unreplayable"] = 0
    figures["replay"] = {"unreplayable": unreplayable}
    return {
        "db": db,
        "figures": figures,
        "notes": races.notes[:50],
        "failures": client.failures[:20],
        "statuses": dict(client.statuses),
    }


def database_env(db: str, workdir: Path) -> dict[str, str]:
    if db == "sqlite":
        return base_env(SQLITE_PATH=str(workdir / "default.sqlite3"))
    if db == "sqlite-url":
        return base_env(DATABASE_URL=f"sqlite:///{workdir / 'named.sqlite3'}")
    if db == "postgres":
        name = os.environ.get("RACE_PG_DB", "cardclub_race")
        server = os.environ.get("RACE_PG_SERVER", "postgres://postgres@127.0.0.1:5432")
        import psycopg

        with psycopg.connect(f"{server}/postgres", autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            connection.execute(f'CREATE DATABASE "{name}"')
        return base_env(DATABASE_URL=f"{server}/{name}", CONN_MAX_AGE="0")
    raise ValueError(db)


def run_child(db: str, rounds: int, port: int, workdir: Path) -> dict:
    env = database_env(db, workdir)
    env["RACE_CHILD"] = "1"
    out = workdir / f"figures-{db}.json"
    command = [
        sys.executable,
        "-m",
        "tests.load.races",
        "--db",
        db,
        "--rounds",
        str(rounds),
        "--port",
        str(port),
        "--child-output",
        str(out),
        "--workdir",
        str(workdir),
    ]
    completed = subprocess.run(command, cwd=ROOT, env=env, check=False)
    if completed.returncode != 0 or not out.exists():
        return {"db": db, "error": f"the race process exited {completed.returncode}"}
    return json.loads(out.read_text())


def problems(result: dict) -> list[str]:
    if "error" in result:
        return [result["db"] + ": " + result["error"]]
    found = []
    for race, figures in result["figures"].items():
        for kind in ("lost", "500s", "overwritten", "refused", "stale", "unreplayable"):
            if figures.get(kind, 0):
                found.append(f"{result['db']} {race}: {figures[kind]} {kind}")
    return found


def table(results: list[dict]) -> str:
    lines = [
        f"{'database':<11} {'race':<20} "
        + " ".join(f"{k:>11}" for k in FIGURES)
        + f" {'seconds':>8}"
    ]
    for result in results:
        if "error" in result:
            lines.append(f"{result['db']:<11} {result['error']}")
            continue
        replay = result["figures"]["replay"]["unreplayable"]
        raced = [race for race in RACES if race in result["figures"]]
        for race in raced:
            row = result["figures"][race]
            values = [row.get(k, 0) for k in FIGURES]
            lines.append(
                f"{result['db']:<11} {race:<20} "
                + " ".join(f"{v:>11}" for v in values)
                + f" {row.get('seconds', 0):>8}"
            )
        lines.append(f"{result['db']:<11} {'every match replays':<20} unreplayable: {replay}")
        for race in raced:
            ways = {
                k.removeprefix("outcome: "): v
                for k, v in result["figures"][race].items()
                if k.startswith("outcome: ")
            }
            if ways:
                lines.append(f"{result['db']:<11} {race:<20} rounds that went: {ways}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", action="append", choices=DATABASES)
    parser.add_argument("--rounds", type=int, default=int(os.environ.get("RACE_ROUNDS", "20")))
    parser.add_argument("--port", type=int, default=int(os.environ.get("RACE_PORT", "8100")))
    parser.add_argument("--child-output")
    parser.add_argument("--workdir")
    parser.add_argument(
        "--race", action="append", choices=RACES, help="only these races (default: every one)"
    )
    args = parser.parse_args(argv)
    if args.race:  # the children read it: each database runs in its own process
        os.environ["RACE_ONLY"] = ",".join(args.race)

    if args.child_output:  # one database, in this process
        result = run_one(args.db[0], args.rounds, args.port, Path(args.workdir))
        Path(args.child_output).write_text(json.dumps(result))
        return 0

    workdir = Path(tempfile.mkdtemp(prefix="cardclub-races-"))
    results = []
    try:
        for db in args.db or DATABASES:
            results.append(run_child(db, args.rounds, args.port, workdir))
    finally:
        logs = sorted(workdir.glob("server-*.log"))
        for log in logs:
            text = log.read_text(errors="replace").strip()
            if text:
                print(f"--- {log.name} (last lines)\n" + "\n".join(text.splitlines()[-15:]))
        shutil.rmtree(workdir, ignore_errors=True)
    print(table(results))
    found = [p for result in results for p in problems(result)]
    for result in results:
        for note in result.get("notes", [])[:20]:
            print(f"  {result['db']}: {note}")
        for failure in result.get("failures", []):
            print(f"  {result['db']}: {failure}")
    print("races: " + ("FAIL: " + "; ".join(found) if found else "every figure on target"))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
