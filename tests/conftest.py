"""Fixtures shared by the web and browser tests: alice and bob are members, charlie is outside."""

from __future__ import annotations

import contextlib
import signal
import sys

import pytest

from tests.source import serialise_syntax_trees

# Before any test runs: see tests/source.py (CPython 3.11.7 builds syntax trees unsafely across
# threads).
serialise_syntax_trees()

PASSWORD = "a-long-club-password-9"


@pytest.fixture
def make_member(db, django_user_model):
    def make(username, **extra):
        return django_user_model.objects.create_user(
            username=username, password=PASSWORD, email=f"{username}@example.com", **extra
        )

    return make


@pytest.fixture
def alice(make_member):
    return make_member("alice")


@pytest.fixture
def bob(make_member):
    return make_member("bob")


@pytest.fixture
def charlie(make_member):
    return make_member("charlie")


@pytest.fixture
def alice_client(client, alice):
    client.force_login(alice, backend="django.contrib.auth.backends.ModelBackend")
    return client


@pytest.fixture
def client_for(db):
    """A fresh logged-in test client per member, so two members can play in one test."""
    from django.test import Client

    def make(user):
        c = Client()
        c.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
        return c

    return make


@pytest.fixture(autouse=True)
def fast_password_hashing(request):
    # The real hasher is deliberately slow; tests log in hundreds of times. Engine tests may run
    # without the Django plugin (-p no:django), so ask for `settings` only when it exists.
    if request.config.pluginmanager.hasplugin("django"):
        settings = request.getfixturevalue("settings")
        settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
        # Background tasks run at once, in the process that queues them (bots move when the
        # member's move commits), with no pause between bot moves. Tests of the real worker
        # set the database backend back.
        settings.TASKS = {
            "default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}
        }
        settings.BOT_MOVE_PAUSE = 0
        # "Last seen" written in the request: a thread could not see the test's transaction.
        settings.LAST_SEEN_FLUSH_EVERY = 0


@pytest.fixture(autouse=True)
def empty_cache(request):
    """Each test starts with an empty cache: what the cache remembers (a member's last visit,
    written at most every few minutes) must not carry from one test to the next, or a test's
    query count would depend on the tests run before it."""
    if request.config.pluginmanager.hasplugin("django"):
        from django.core.cache import caches

        for cache in caches.all(initialized_only=True):
            cache.clear()
        from games import versions  # the matches kept in this process, per version

        versions.forget_all()


@pytest.fixture(autouse=True)
def house_rules_survive_transactional_tests(request):
    """Put back the house rules of the data migration after a transactional test flushed them.

    Transactional tests (live server, real concurrency) empty every table when they end,
    including rows that migrations created; the next such test would find no house rules.
    """
    marker = request.node.get_closest_marker("django_db")
    transactional = (marker is not None and marker.kwargs.get("transaction")) or any(
        name in request.fixturenames for name in ("transactional_db", "live_server")
    )
    if not transactional:
        return
    request.getfixturevalue("transactional_db")
    from django.apps import apps
    from django.db.migrations.loader import MigrationLoader

    from games.models import RuleVariant

    if RuleVariant.objects.exists():
        return
    # Each game app seeds its own house rules (games.seeding); run those seeds again.
    for migration in MigrationLoader(None, ignore_no_migrations=True).disk_migrations.values():
        for operation in migration.operations:
            if getattr(getattr(operation, "code", None), "seeds_house_rules", False):
                operation.code(apps, None)


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """Close PostgreSQL connection pools (DB_POOL, on by default) before the test database is
    dropped: a pooled connection left open would keep it from being dropped."""
    yield
    from django.db import connections

    with django_db_blocker.unblock():
        for connection in connections.all():
            if getattr(connection, "pool", None) is not None:
                connection.close_pool()


# The signals that stop a run. A command run inside the test process (``db_worker``,
# ``scheduler``) would install its own handlers for them: a Ctrl-C or a time limit's SIGTERM to
# ``make test`` would then only stop that command's loop (or raise in the running test), and the
# run would go on. ``signal_handlers_kept`` refuses them.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGQUIT)


# The stop signals' handlers of the whole run (what every test must leave). SIGTERM keeps
# Python's default, which ends the run at once; the processes the tests started end with it
# (tests.servers.spawn).
RUN_HANDLERS: dict[int, object] = {}


def pytest_configure(config):
    RUN_HANDLERS.update({signum: signal.getsignal(signum) for signum in STOP_SIGNALS})


@contextlib.contextmanager
def signal_handlers_kept():
    """The run's own handlers for the stop signals, kept for the block: a command run inside the
    test process that asks for its own (``db_worker``'s graceful stop, the scheduler's) is
    refused, so a Ctrl-C or SIGTERM that comes while it runs stops the whole run at once, as at
    any other moment, instead of ending only that command (and the test with a SystemExit) while
    the run goes on. Yields the refused requests, ``(signum, handler)``; on the way out the
    handlers found on the way in are put back, whatever was done meanwhile."""
    saved = {signum: signal.getsignal(signum) for signum in STOP_SIGNALS}
    refused: list[tuple[int, object]] = []
    install = signal.signal

    def keep_the_stop_signals(signum, handler):
        if signum in STOP_SIGNALS:
            refused.append((signum, handler))
            return signal.getsignal(signum)
        return install(signum, handler)

    signal.signal = keep_the_stop_signals
    try:
        yield refused
    finally:
        signal.signal = install
        for signum, handler in saved.items():
            if handler is not None:  # None: set outside Python, cannot be put back from here
                signal.signal(signum, handler)


@pytest.fixture(autouse=True)
def _no_test_keeps_signal_handlers():
    with signal_handlers_kept():
        yield


@pytest.fixture(autouse=True)
def _no_last_seen_thread_outlives_its_test():
    """A test that starts the "last seen" writer (LAST_SEEN_FLUSH_EVERY above 0) or leaves a note
    unwritten (a write it made fail) hands neither to the next test: the thread would write
    that note into another test's database, or trace back in a test that allows none."""
    yield
    seen = sys.modules.get("cardclub.notifications.seen")
    if seen is not None:
        seen.stop()
