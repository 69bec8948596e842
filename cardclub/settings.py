"""cardclub settings: one file, driven by environment variables.

Production is the default: DEBUG is off unless DEBUG=1 says otherwise, and then a strong
SECRET_KEY and ALLOWED_HOSTS must be set; see README.md. Development mode is asked for explicitly
(`make run`, the test settings in tests/settings.py and .ci/run set DEBUG=1).
"""

from __future__ import annotations

import os
from pathlib import Path

import dj_database_url
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

from cardclub.env import env_bool, env_float, env_int, env_list

BASE_DIR = Path(__file__).resolve().parent.parent


# Off unless asked for: a process started with no settings must never show tracebacks to the
# world or sign sessions with a key that is public in this repository.
DEBUG = env_bool("DEBUG", False)

DEVELOPMENT_SECRET_KEY = "django-insecure-development-only-key-do-not-use-in-production"


def weak_secret_key(key: str) -> str | None:
    """Why ``key`` must not sign a production session, or None. The same rule as Django's
    deploy check (security.W009), so a key accepted here also passes ``check --deploy``."""
    if not key:
        return "SECRET_KEY is not set"
    if key.startswith("django-insecure-"):
        return "SECRET_KEY is a development key (it starts with 'django-insecure-')"
    if len(key) < 50 or len(set(key)) < 5:
        return "SECRET_KEY is too weak (it needs at least 50 characters, 5 of them different)"
    return None


SECRET_KEY = os.environ.get("SECRET_KEY", "")
if DEBUG:
    SECRET_KEY = SECRET_KEY or DEVELOPMENT_SECRET_KEY
elif problem := weak_secret_key(SECRET_KEY):
    # Refuse to start rather than sign sessions with a key an attacker could know or guess.
    raise ImproperlyConfigured(
        f"{problem}, and DEBUG is off (production is the default). Either set DEBUG=1 for "
        "development, or set a strong SECRET_KEY, generated with: "
        'python -c "import secrets; print(secrets.token_urlsafe(50))"'
    )

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]" if DEBUG else "")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "django_htmx",
    "template_partials",
    "cardclub.accounts.apps.LoginProtectionConfig",  # django-axes, its name translated
    "csp",
    "django_tasks",
    "cardclub.accounts.apps.BackgroundTasksConfig",  # django-tasks-db, its name translated
    "cardclub.accounts",
    "games",
    # One app per game: each brings its engine, bots, templates, styles and migrations.
    "games.escoba",
    "games.schotten_totten",
    "games.scout",
    "cardclub.ratings",
    "cardclub.leagues",
    "cardclub.chat",
    "cardclub.social",
    "cardclub.notifications",
    # How the club runs: runclub, scheduler, seed_demo.
    "cardclub.club",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # django-csp's, the header built once rather than per response (issue 34).
    "cardclub.csp_policy.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    # Django's AuthenticationMiddleware, the member read by one plain statement (issue 34).
    "cardclub.accounts.members.MemberMiddleware",
    "django.contrib.auth.middleware.LoginRequiredMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    # After auth and locale: notes when (and in which language) a member was last on the site.
    "cardclub.notifications.middleware.LastSeenMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Last, as django-axes asks, so it sees the outcome of every login attempt.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "cardclub.urls"
WSGI_APPLICATION = "cardclub.wsgi.application"
ASGI_APPLICATION = "cardclub.asgi.application"

TEMPLATES = [
    {
        # Django's backend, leaving no reference cycle behind a render (cardclub/templating.py);
        # named as Django's is, which is also how django-template-partials finds it.
        "BACKEND": "cardclub.templating.DjangoTemplates",
        "NAME": "django",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "cardclub.notifications.context_processors.bell",
            ],
            # base.html's {% kept %}: the frame's parts drawn once per language and member.
            "libraries": {"frame": "cardclub.frame"},
        },
    },
]

# --- Database -------------------------------------------------------------------------------
# SQLite is the embedded default: a file under the project (git-ignored). WAL lets readers work
# while a move is being written; IMMEDIATE transactions take the write lock up front so two
# concurrent moves queue on the busy timeout instead of failing with "database is locked".
SQLITE_PATH = Path(os.environ.get("SQLITE_PATH", BASE_DIR / "db.sqlite3"))
DATABASE_URL = os.environ.get("DATABASE_URL", "")
SQLITE_OPTIONS = {
    "transaction_mode": "IMMEDIATE",
    "timeout": 20,
    "init_command": (
        "PRAGMA journal_mode=WAL;"
        "PRAGMA synchronous=NORMAL;"
        "PRAGMA busy_timeout=20000;"
        "PRAGMA foreign_keys=ON;"
    ),
}
if DATABASE_URL:
    DATABASES = {"default": dj_database_url.parse(DATABASE_URL)}
    if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and env_bool(
        "DB_POOL", True
    ):
        # Requests are served in a pool of REQUEST_THREADS threads (cardclub/handler.py);
        # psycopg's pool, shared by them, holds fewer connections than one kept per thread, and
        # is what Django recommends under ASGI.
        DATABASES["default"]["CONN_MAX_AGE"] = 0
        options = DATABASES["default"].setdefault("OPTIONS", {})
        options["pool"] = {
            "min_size": env_int("DB_POOL_MIN", 2),
            "max_size": env_int("DB_POOL_MAX", 10),
            "timeout": 20,
        }
        # Planning a page's queries cost PostgreSQL more than running them (the lobby's open
        # tables: 1.0 ms to plan, 0.4 ms to run). The pool keeps its connections, so psycopg
        # may keep a query's plan on each after a few runs (server-side binding and prepared
        # statements). An external pooler in transaction mode (PgBouncer without prepared
        # statement support) cannot keep them: DB_PREPARE_THRESHOLD=0 turns them off.
        prepare_after = env_int("DB_PREPARE_THRESHOLD", 5)
        if prepare_after > 0:
            options["server_side_binding"] = True
            options["prepare_threshold"] = prepare_after
    else:
        DATABASES["default"]["CONN_MAX_AGE"] = env_int("CONN_MAX_AGE", 60)
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": SQLITE_PATH,
            "CONN_MAX_AGE": None,
            # A file, not memory: tests with real concurrent requests need every thread to see
            # the same database, as the live server does.
            "TEST": {
                "NAME": os.environ.get("SQLITE_TEST_PATH")
                or str(BASE_DIR / f".test-{os.getpid()}.sqlite3")
            },
        }
    }
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Every SQLite configuration, the default file or one named by DATABASE_URL (sqlite:///…),
    # writes the same way; without these, concurrent requests answer "database is locked".
    DATABASES["default"]["OPTIONS"] = {**SQLITE_OPTIONS, **DATABASES["default"].get("OPTIONS", {})}
    DATABASES["default"]["CONN_MAX_AGE"] = None
    DATABASES["default"].setdefault("TEST", {})
    if not DATABASES["default"]["TEST"].get("NAME"):
        # The test database is a file beside the named one (a file per process), never memory.
        named = Path(DATABASES["default"]["NAME"] or SQLITE_PATH)
        DATABASES["default"]["TEST"]["NAME"] = os.environ.get("SQLITE_TEST_PATH") or str(
            named.with_name(f".test-{os.getpid()}-{named.name}")
        )
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Cache and sessions ---------------------------------------------------------------------
# CACHE_URL names a cache every process shares (Redis: redis://127.0.0.1:6379/1, rediss://…
# with TLS); unset, each process has a local-memory cache of its own.
CACHE_URL = os.environ.get("CACHE_URL", "")
if CACHE_URL:
    if not CACHE_URL.startswith(("redis://", "rediss://", "unix://")):
        raise ImproperlyConfigured(
            "CACHE_URL must be a Redis URL (redis://host:port/db, rediss://… or unix://…)."
        )
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": CACHE_URL,
            "KEY_PREFIX": os.environ.get("CACHE_KEY_PREFIX", "cardclub"),
        }
    }
    # Sessions are read from the shared cache (no query on most requests) and written through
    # to the database, so flushing the cache logs nobody out. Only with a shared cache: with a
    # local-memory cache per process, a session ended in one process (a logout) would stay in
    # the other processes' caches and go on working there.
    SESSION_ENGINE = "cardclub.accounts.sessions.cached_db"
else:
    # Each process's own cache holds a few keys per member online (when they were last noted as
    # seen, each table they hold open) beside the lobby's and the ratings' drawings. Django's
    # default of 300 entries is full with 150 members: every key added after that culls a third
    # of them, and a culled key is a write done again (a "last seen" note, a watcher's row) on
    # the member's next request, so a busy club wrote on nearly every request (issue 34).
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "OPTIONS": {"MAX_ENTRIES": env_int("LOCAL_CACHE_ENTRIES", 20_000)},
        }
    }
    # Django's database sessions, the row read by one plain statement (issue 34).
    SESSION_ENGINE = "cardclub.accounts.sessions.db"

# --- Auth -----------------------------------------------------------------------------------
AUTHENTICATION_BACKENDS = [
    # django-axes first, so a locked-out username+IP is refused before the password is checked.
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

AXES_FAILURE_LIMIT = 5
AXES_COOLOFF_TIME = 0.25  # hours: 15 minutes
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "accounts/locked_out.html"
AXES_ENABLED = env_bool("AXES_ENABLED", True)
# How many reverse proxies (the TLS proxy of the README is one) stand in front of the app and
# append to X-Forwarded-For. 0, the default, trusts no header: the connecting address counts.
TRUSTED_PROXY_COUNT = env_int("TRUSTED_PROXY_COUNT", 0)
# The lock-out counts the client that cardclub.http.client_ip finds under that rule (one rule
# for the whole app; django-ipware, axes' other way to read a proxy header, is not installed).
AXES_CLIENT_IP_CALLABLE = "cardclub.http.client_ip"

# --- Internationalisation -------------------------------------------------------------------
LANGUAGE_CODE = "es"
LANGUAGES = [("es", _("Spanish")), ("en", _("English"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
TIME_ZONE = os.environ.get("TIME_ZONE", "Europe/Madrid")
USE_TZ = True

# --- Static files ---------------------------------------------------------------------------
STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}
WHITENOISE_USE_FINDERS = DEBUG

# --- Live updates (server push) -------------------------------------------------------------
# How a committed move reaches the open pages of every server process (games/push.py):
# "local" (one machine, nothing to install: Unix datagram sockets), "redis" (Redis pub/sub,
# several app servers), "postgres" (LISTEN/NOTIFY on the default database) or "off" (poll only).
PUSH_BACKEND = os.environ.get("PUSH_BACKEND", "local")
PUSH_REDIS_URL = os.environ.get("PUSH_REDIS_URL", "redis://127.0.0.1:6379/0")
PUSH_CHANNEL = os.environ.get("PUSH_CHANNEL", "cardclub")
# Where the "local" backend's sockets live; by default a directory named after the database.
PUSH_SOCKET_DIR = os.environ.get("PUSH_SOCKET_DIR", "")
# A stream sends a comment this often when nothing happens, so proxies keep it open and a
# dead client is noticed.
PUSH_KEEPALIVE_SECONDS = env_float("PUSH_KEEPALIVE_SECONDS", 20)
# At most this many streams open at once per member in one process (0: no cap): past it a page
# is refused its stream (429) and polls. Ten tabs of tables and the lobby are a busy member.
PUSH_STREAMS_PER_MEMBER = env_int("PUSH_STREAMS_PER_MEMBER", 20)

# --- Overload (cardclub/overload.py) ----------------------------------------------------------
# At most this many requests at once per server process are let in to Django, served by at
# most REQUEST_THREADS threads (the others wait for one, holding none); the rest get a quick
# 503 with Retry-After. Streams are not counted (see above). 0: no limit.
MAX_REQUESTS_IN_FLIGHT = env_int("MAX_REQUESTS_IN_FLIGHT", 64)
# The threads of a server process that serve requests (cardclub/handler.py says why so few).
REQUEST_THREADS = env_int("REQUEST_THREADS", 4)
if REQUEST_THREADS < 1:
    raise ImproperlyConfigured("REQUEST_THREADS must be 1 or more: the threads serve every page.")
# With more than this many requests in flight, and this many more than the least busy other
# worker, a worker of several answers with "Connection: close", so the client's next request
# may go to that one (cardclub/spread.py; the A/B pairs are in the README, "Requests piled on a
# few connections"). 0: never.
SPREAD_CONNECTIONS_AFTER = env_int("SPREAD_CONNECTIONS_AFTER", 4)

# --- E-mail ---------------------------------------------------------------------------------
EMAIL_HOST = os.environ.get("EMAIL_HOST", "")
if EMAIL_HOST:
    EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    EMAIL_PORT = env_int("EMAIL_PORT", 587)
    EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
    EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
    EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", True)
else:
    EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "cardclub <club@localhost>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL

# --- Background work (games/tasks.py) --------------------------------------------------------
# Bot turns, mail and the periodic sweeps run in a worker on Django's tasks framework. The
# default keeps the queue in the database, so the embedded SQLite needs nothing more: run
# `manage.py db_worker` beside the web server (`make run` and `manage.py runclub` do). A club
# that outgrows one machine names another backend, e.g. TASKS_BACKEND=django_tasks_rq.RQBackend
# (package django-tasks-rq, plus its RQ_QUEUES setting and `manage.py rqworker`).
TASKS = {
    "default": {
        "BACKEND": os.environ.get("TASKS_BACKEND", "django_tasks_db.DatabaseBackend"),
        "QUEUES": [],
    }
}
# Seconds between two bot moves in a row, so that members see each bot move as its own step.
BOT_MOVE_PAUSE = env_float("BOT_MOVE_PAUSE", 0.4)
# A playing match whose bot has not moved for this long is handed to the worker again (a worker
# that died mid-way).
BOT_STUCK_AFTER = env_float("BOT_STUCK_AFTER", 30)
# A task RUNNING for longer than this was left by a worker that was killed: marked, queued again.
TASK_LOST_AFTER = env_float("TASK_LOST_AFTER", 300)
# What `manage.py scheduler` queues, and every how many seconds (it also queues each at start).
PERIODIC_TASKS = {
    "games.tasks.finish_stuck_bot_turns": env_float("BOT_SWEEP_EVERY", 30),
    # Tasks a killed worker left RUNNING (cardclub/club/queue.py).
    "cardclub.club.queue.requeue_lost_tasks": env_float("TASK_SWEEP_EVERY", 60),
    # Live clocks run out by the second: a member who lost on time should hear so soon.
    "games.tasks.sweep_clocks": env_float("CLOCK_SWEEP_EVERY", 10),
    "cardclub.leagues.tasks.record_overdue_fixtures": env_float("FIXTURE_SWEEP_EVERY", 300),
    # A round's start time is a minute's precision for the members waiting at their tables.
    "cardclub.leagues.tasks.start_fixtures_at_round_time": env_float("FIXTURE_START_EVERY", 60),
    "cardclub.notifications.tasks.notify_waiting_turns": env_float("TURN_SWEEP_EVERY", 60),
    "cardclub.notifications.tasks.notify_deadlines": env_float("DEADLINE_SWEEP_EVERY", 300),
}

# --- Table chat ----------------------------------------------------------------------------
# One short line per message; at most so many messages per so many seconds per member and table
# (counted in the database, so across every process); how many the table shows; how often a
# page without the push stream refreshes its chat.
CHAT_MAX_LENGTH = env_int("CHAT_MAX_LENGTH", 200)
CHAT_RATE_LIMITS = ((1, 2), (10, 60))
CHAT_SHOWN = 50
CHAT_POLL_SECONDS = 10

# --- Playing together (cardclub/social) --------------------------------------------------------
# A rematch offer lasts this many seconds; "Play again" is offered for this long after the end
# (the finished match's page keeps its stream open meanwhile, to hear the answers).
REMATCH_EXPIRY = env_float("REMATCH_EXPIRY", 300)
REMATCH_WITHIN = env_float("REMATCH_WITHIN", 3600)
# A challenge waits this long for its answer (a day: it may be read in an e-mail); one member
# may challenge another at most so many times per so many seconds ((count, seconds) pairs).
CHALLENGE_EXPIRY = env_float("CHALLENGE_EXPIRY", 86400)
CHALLENGE_RATE_LIMITS = ((3, 3600), (10, 86400))
# Who is online: the members who opened a page within this many seconds (more than
# LAST_SEEN_WRITE_EVERY, which is how often "last seen" is written); the lobby's list is drawn
# at most every PRESENCE_CACHE_SECONDS and shows at most ONLINE_SHOWN members.
ONLINE_WITHIN = env_float("ONLINE_WITHIN", 300)
PRESENCE_CACHE_SECONDS = 20
ONLINE_SHOWN = 100
# A member with a match's page open (fetched within WATCHING_WITHIN seconds) and no seat is
# watching it; that is written at most every WATCH_WRITE_EVERY seconds per member and match.
WATCHING_WITHIN = env_float("WATCHING_WITHIN", 300)
WATCH_WRITE_EVERY = 60
WATCHING_SHOWN = 50
WATCHING_CACHE_SECONDS = 10

# --- Notifications (cardclub/notifications) ----------------------------------------------------
# Links in e-mails need the site's address (the worker has no request to take it from):
# SITE_URL, else the address `manage.py runclub` (make run) serves, which it passes to its
# web server, worker and scheduler, else make run's default.
SITE_URL = (
    os.environ.get("SITE_URL") or os.environ.get("CARDCLUB_SERVED_URL") or "http://127.0.0.1:8000"
)
# A member to move for this many seconds hears "your turn" (on the site list; see the next).
YOUR_TURN_AFTER = env_float("YOUR_TURN_AFTER", 120)
# ...and by e-mail too only when not seen on the site for this many seconds.
SEEN_RECENTLY = env_float("SEEN_RECENTLY", 900)
# "Last seen" is written at most once per member in this many seconds (the cache says when).
LAST_SEEN_WRITE_EVERY = env_float("LAST_SEEN_WRITE_EVERY", 180)
# ...by a thread of each process, every this many seconds, off the request path (0: in the
# request, as the tests do; a failed write is kept and tried again either way).
LAST_SEEN_FLUSH_EVERY = env_float("LAST_SEEN_FLUSH_EVERY", 2)

# --- Security in production -----------------------------------------------------------------
# The scheme comes from X-Forwarded-Proto only behind a declared proxy (the one that sets it):
# otherwise the header is the client's word, as X-Forwarded-For is (cardclub.http.client_ip).
if TRUSTED_PROXY_COUNT > 0:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
if not DEBUG:
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31536000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

# Content-Security-Policy (django-csp): everything from this origin, nothing inline. No script,
# handler or style attribute lives in a template (behaviour is in static/js), and htmx is told
# not to inject its indicator <style> (the htmx-config meta in base.html; the rules are in
# club.css), so neither 'unsafe-inline' nor 'unsafe-eval' is needed.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF],
        "connect-src": [SELF],
        "font-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    },
}

MESSAGE_STORAGE = "django.contrib.messages.storage.session.SessionStorage"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}
