"""Serve the club: the web server, the task worker and the scheduler, together.

``make run`` uses this. Each of the three runs as a child process in its own process group;
Ctrl-C (or SIGTERM) stops all three and waits for them, and if one of them dies the others are
stopped too, so no orphan keeps a port or the database busy. On Linux the children are also
told to stop if this supervisor is killed outright.

The web command is set in one place, :data:`WEB_COMMAND`.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import socket
import subprocess
import sys
import time

from django.conf import settings
from django.core.management.base import BaseCommand

# The web server: uvicorn serving the ASGI application, so server push (SSE) streams stay open
# without holding a thread each. {host} and {port} come from the address on the command line.
# No --reload: the worker and scheduler would keep running the old code anyway; restart all three.
WEB_COMMAND = [
    "{python}",
    "-m",
    "uvicorn",
    "cardclub.asgi:application",
    "--host",
    "{host}",
    "--port",
    "{port}",
    "--lifespan",
    "off",
    # uvicorn would otherwise take the client's address and scheme from X-Forwarded-For and
    # -Proto on loopback connections: the site applies TRUSTED_PROXY_COUNT to them itself
    # (cardclub.http.client_ip, SECURE_PROXY_SSL_HEADER), so no header is trusted here.
    "--no-proxy-headers",
    # Headers within 10 s, idle connections kept 75 s (cardclub/server.py says why).
    "--http",
    "cardclub.server:HttpToolsProtocol",
    "--timeout-keep-alive",
    "75",
]
# The database backend's worker; a club on another backend runs that backend's worker instead.
WORKER_COMMAND = ["{python}", "manage.py", "db_worker", "--interval", "0.1", "--no-reload"]
SCHEDULER_COMMAND = ["{python}", "manage.py", "scheduler"]
# Without SITE_URL, the links in the worker's e-mails follow the address served here: the
# children are told it (cardclub/settings.py reads it when SITE_URL is unset).
SERVED_URL_VARIABLE = "CARDCLUB_SERVED_URL"
STOP_GRACE = 10.0  # seconds a child has to finish (a worker finishes its task) before a kill


def served_environment(host: str, port: str, environ=os.environ) -> dict[str, str]:
    """The children's environment: this one, plus the address served when SITE_URL is unset.
    A wildcard host is no address to link to: the machine's name stands for it."""
    env = dict(environ)
    if not env.get("SITE_URL"):
        if host in ("", "0.0.0.0", "::", "[::]"):
            host = socket.gethostname()
        env[SERVED_URL_VARIABLE] = f"http://{host}:{port}"
    return env


def _die_with_parent() -> None:  # pragma: no cover - runs in the child before exec
    os.setsid()
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG: SIGTERM when the supervisor dies


class Command(BaseCommand):
    help = "Run the web server, the task worker and the scheduler together; Ctrl-C stops all."

    def add_arguments(self, parser):
        parser.add_argument("addr", nargs="?", default="127.0.0.1:8000")

    def handle(self, *args, addr="127.0.0.1:8000", **options):
        host, _, port = addr.rpartition(":")
        fill = {"python": sys.executable, "addr": addr, "host": host or "127.0.0.1", "port": port}
        commands = {"web": WEB_COMMAND, "scheduler": SCHEDULER_COMMAND}
        if settings.TASKS["default"]["BACKEND"] == "django_tasks_db.DatabaseBackend":
            commands["worker"] = WORKER_COMMAND
        else:
            self.stderr.write(
                "TASKS_BACKEND is not the database backend: start that backend's own worker."
            )
        stopping = []
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, lambda *_: stopping.append(True))
        children: dict[str, subprocess.Popen] = {}
        env = served_environment(fill["host"], port)
        for name, command in commands.items():
            argv = [part.format(**fill) for part in command]
            children[name] = subprocess.Popen(argv, env=env, preexec_fn=_die_with_parent)
            self.stdout.write(f"{name}: pid {children[name].pid}: {' '.join(argv[1:])}")
        failed = None
        while not stopping and failed is None:
            for name, child in children.items():
                if child.poll() is not None:
                    failed = name
                    break
            time.sleep(0.2)
        if failed:
            self.stderr.write(f"{failed} stopped (exit {children[failed].returncode}): stopping")
        self._stop(children)
        if failed:
            sys.exit(1)

    def _stop(self, children: dict[str, subprocess.Popen]) -> None:
        for child in children.values():
            if child.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(child.pid, signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE
        for child in children.values():
            try:
                child.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(child.pid, signal.SIGKILL)
                child.wait()
        self.stdout.write("stopped")
