"""The task admin (issue 29) shows nothing of a live match that the move-record admin hides.

The task backend keeps every task's arguments and result, and its admin shows them to any staff
member with view permission. Bots' moves used to be arguments of the task that commits them:
a Scout bot's keep-or-rotate decision, or an Escoba bot's card, could be read there before it
was played. Here live bot matches are played through the real database queue and worker up to
a bot move chosen and waiting for its pause; every task admin page (list, filters, orderings,
each task's change and history page) is then read by a view-only staff member and by the
superuser, and no move code of the live match, played or still to play, is in any of them.
"""

from __future__ import annotations

import html
import json
import re

import pytest
from django.contrib.auth.models import Permission
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from games import bot_moves, writes
from games.models import Match
from tests.web.table_helpers import variant

pytestmark = pytest.mark.django_db(transaction=True)

DATABASE = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": []}}


def run_worker():
    call_command("db_worker", batch=True, startup_delay=False, reload=False, verbosity=0)


def play_until_a_bot_move_waits(match: Match, member) -> str:
    """Let the worker play the bots (the pauses skipped by moving each commit's time forward)
    and the member its first legal move, until a bot's chosen move waits for its pause with the
    member not to move; returns that move's code."""
    for _ in range(40):
        run_worker()
        match.refresh_from_db()
        assert match.status == Match.Status.PLAYING
        waiting = DBTaskResult.objects.filter(
            status="READY", task_path="games.tasks.commit_bot_move"
        )
        state = match.engine.load(match.state)
        if waiting.exists() and 0 not in match.engine.to_move(state):
            chosen = bot_moves.choose_bot_move(match.pk, match.version)
            assert chosen is not None
            return chosen.code
        if waiting.exists():
            waiting.update(run_after=timezone.now())
            continue
        code = match.engine.legal_moves(state, 0)[0].code
        writes.play_move(match.pk, member, code, match.version)
    raise AssertionError("no bot move came to wait")


def strings_in(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings_in(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings_in(v)]
    return []


def shown_values(page: str) -> list[str]:
    """Every string inside the JSON the change page shows (arguments, result)."""
    found = []
    for name in ("args_kwargs", "return_value"):
        for raw in re.findall(rf'field-{name}\b.*?<div class="readonly">(.*?)</div>', page, re.S):
            text = html.unescape(raw).strip()
            try:
                found += strings_in(json.loads(text))
            except ValueError:
                found.append(text)
    return found


def task_admin_pages() -> list[str]:
    changelist = reverse("admin:django_tasks_database_dbtaskresult_changelist")
    pages = [changelist, changelist + "?status__exact=READY", changelist + "?priority=10"]
    pages += [changelist + f"?o={column}" for column in range(1, 9)]
    for pk in DBTaskResult.objects.values_list("pk", flat=True):
        pages.append(reverse("admin:django_tasks_database_dbtaskresult_change", args=[pk]))
        pages.append(reverse("admin:django_tasks_database_dbtaskresult_history", args=[pk]))
    return pages


@pytest.fixture
def readers(django_user_model):
    viewer = django_user_model.objects.create_user("viewer", password="x", is_staff=True)
    viewer.user_permissions.set(
        Permission.objects.filter(
            codename__in=["view_dbtaskresult", "view_match", "view_moverecord"]
        )
    )
    boss = django_user_model.objects.create_superuser("boss", "boss@example.com", "x")
    clients = []
    for user in (viewer, boss):
        client = Client()
        client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
        clients.append(client)
    return clients


@pytest.mark.parametrize(
    ("game", "bots"), [("scout", ["hard", "easy"]), ("escoba", ["hard", "easy"])]
)
def test_no_task_admin_page_shows_a_move_code_of_a_live_bot_match(
    game, bots, alice, readers, settings
):
    settings.TASKS = DATABASE
    # A pause no search outlasts on a busy machine: each bot move waits in the queue.
    settings.BOT_MOVE_PAUSE = 60
    match = writes.create_match(alice, variant(game), 1 + len(bots), bots)
    waiting = play_until_a_bot_move_waits(match, alice)
    codes = {waiting, *match.moves.filter(seat__gt=0).values_list("code", flat=True)}
    assert DBTaskResult.objects.filter(task_path="games.tasks.commit_bot_move").exists()
    assert DBTaskResult.objects.filter(status="SUCCESSFUL").exists()
    for client in readers:
        for url in task_admin_pages():
            response = client.get(url)
            assert response.status_code == 200, url
            page = response.content.decode()
            assert set(shown_values(page)) & codes == set(), url
            # Scout's decisions are one letter, the other codes are words of their own.
            long_codes = [code for code in codes if len(code) > 2]
            assert [code for code in long_codes if code in page] == [], url
    # The pages did show the bot tasks and their arguments.
    row = DBTaskResult.objects.filter(task_path="games.tasks.commit_bot_move").first()
    page = readers[0].get(reverse("admin:django_tasks_database_dbtaskresult_change", args=[row.pk]))
    assert f"[{match.pk}, " in html.unescape(page.content.decode())
