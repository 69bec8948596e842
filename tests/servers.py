"""Real app-server processes (uvicorn, ASGI) against the test database, for the live-table
tests and benchmarks: the push must cross process boundaries, so the servers are not threads
of the test process.

Members log in by a session made in the test process (``session_cookie``): the servers share
the database and the secret key, and the tests' fast password hasher is not theirs.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from django.conf import settings
from django.db import connection

from tests import reaper

ROOT = Path(__file__).resolve().parent.parent

# Every process the tests start (servers, workers, brokers), so that none outlives the run.
_children: list[subprocess.Popen] = []


def spawn(command, **kwargs) -> subprocess.Popen:
    """``subprocess.Popen(command, **kwargs)`` for a server, worker or broker of the tests,
    which never outlives them: it is ended when the test process exits (a Ctrl-C may stop the
    run in the middle of a teardown, before the process's own ``stop()``), and, in a process
    group of its own with whatever it forks, by ``tests.reaper`` when the test process is
    killed (a SIGTERM runs no exit code). Not by PR_SET_PDEATHSIG: that ends a child when the
    *thread* that started it ends, and it made the chat browser test's cross-process push fail
    about one run in three."""
    kwargs.setdefault("process_group", 0)
    process = subprocess.Popen(command, **kwargs)
    reaper.watch(process)
    _children[:] = [child for child in _children if child.poll() is None]
    _children.append(process)
    return process


@atexit.register
def _end_children() -> None:
    running = [child for child in _children if child.poll() is None]
    for child in running:
        with contextlib.suppress(OSError):
            child.send_signal(signal.SIGCONT)  # a paused broker (SIGSTOP) must hear it
            child.terminate()
    for child in running:
        try:
            child.wait(timeout=5)
        except subprocess.TimeoutExpired:
            child.kill()


def bound_socket(port: int | None = None, low: int = 8400, high: int = 8499) -> socket.socket:
    """A listening socket on ``port``, or on the first free port of this project's range, for a
    server process to inherit: held from the moment it is found, so that no other process on
    the shared machine can take the port between finding it and the server binding it."""
    for candidate in [port] if port else range(low, high + 1):
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", candidate))
        except OSError:
            sock.close()
            continue
        sock.listen(128)
        sock.set_inheritable(True)
        return sock
    raise RuntimeError(f"port {port} is taken" if port else f"no free port in {low}-{high}")


def database_env() -> dict[str, str]:
    """Environment that points a server at the database the test process uses now."""
    data = connection.settings_dict
    if connection.vendor == "sqlite":
        return {"SQLITE_PATH": str(data["NAME"]), "DATABASE_URL": ""}
    user = data.get("USER") or "postgres"
    host = data.get("HOST") or "127.0.0.1"
    port = data.get("PORT") or "5432"
    password = f":{data['PASSWORD']}" if data.get("PASSWORD") else ""
    return {"DATABASE_URL": f"postgres://{user}{password}@{host}:{port}/{data['NAME']}"}


class AppServer:
    def __init__(self, port: int, process: subprocess.Popen, log: Path):
        self.port, self.process, self.log = port, process, log
        self.url = f"http://127.0.0.1:{port}"

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start_app_server(
    env: dict[str, str] | None = None,
    port: int | None = None,
    workers: int = 1,
    listening: socket.socket | None = None,
):
    """uvicorn on ``port`` (by default a free one), on a socket bound here and inherited (never
    a port that another test's server could take first: it would answer in its place).

    ``listening``: a socket the caller bound and keeps open, as a supervisor holds one across a
    deploy (gunicorn's master, systemd): connections wait in its queue while no server answers,
    and the next server started on it takes them."""
    kept = listening is not None
    listening = listening if kept else bound_socket(port)
    port = listening.getsockname()[1]
    log = Path(os.environ.get("TMPDIR", "/tmp")) / f"cardclub-uvicorn-{port}.log"
    full_env = {
        **os.environ,
        **database_env(),
        "DEBUG": "1",
        "AXES_ENABLED": "0",
        "PUSH_BACKEND": getattr(settings, "PUSH_BACKEND", "local"),
        "PUSH_CHANNEL": getattr(settings, "PUSH_CHANNEL", "cardclub"),
        "PUSH_REDIS_URL": getattr(settings, "PUSH_REDIS_URL", ""),
        **(env or {}),
    }
    full_env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    command = [
        sys.executable,
        "-m",
        "uvicorn",
        "cardclub.asgi:application",
        "--host",
        "127.0.0.1",
        "--fd",
        str(listening.fileno()),
        "--lifespan",
        "off",
        # As manage.py runclub serves.
        "--http",
        "cardclub.server:HttpToolsProtocol",
        "--timeout-keep-alive",
        "75",
        "--log-level",
        "warning",
        "--workers",
        str(workers),
    ]
    with open(log, "wb") as out, contextlib.nullcontext() if kept else listening:
        process = spawn(
            command,
            cwd=ROOT,
            env=full_env,
            stdout=out,
            stderr=out,
            pass_fds=[listening.fileno()],
        )
    server = AppServer(port, process, log)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"uvicorn exited: {log.read_text()[-2000:]}")
        # The socket accepts connections from the start (it is bound here): the server is up
        # once it answers one.
        if _answers_http(port):
            return server
        time.sleep(0.1)
    server.stop()
    raise RuntimeError(f"uvicorn did not start on {port}: {log.read_text()[-2000:]}")


def _answers_http(port: int) -> bool:
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 2) as sock:
        sock.sendall(b"HEAD /static/css/club.css HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
        return sock.recv(12).startswith(b"HTTP/")
    return False


def session_cookie(user) -> dict[str, str]:
    """Cookies of a logged-in session for ``user``, made here and valid on every server."""
    from django.test import Client

    client = Client()
    client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    return {settings.SESSION_COOKIE_NAME: client.cookies[settings.SESSION_COOKIE_NAME].value}


def run_in_new_loop(coroutine):
    """``asyncio.run(coroutine)`` in a thread of its own: the browser tests' Playwright keeps an
    event loop running in the main thread for the whole session, where ``asyncio.run`` refuses
    to start."""
    import asyncio
    import threading

    result = {}

    def target():
        try:
            result["value"] = asyncio.run(coroutine)
        except BaseException as error:  # re-raised in the caller's thread
            result["error"] = error

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if "error" in result:
        raise result["error"]
    return result.get("value")


REDIS = ("127.0.0.1", 6379)


def redis_answers() -> bool:
    """Whether a Redis server answers on 127.0.0.1:6379 (the tests that need one skip without)."""
    try:
        with socket.create_connection(REDIS, timeout=0.5) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


class RedisProcess:
    """A Redis server of the test's own (never the shared one on 6379), to kill and pause:
    no persistence, on a port of ``ports``. The port is not looked for first and let go (another
    process could take it in between): Redis is started on a candidate, and one that cannot
    bind it exits, so the next is tried; the one that answers must be this process."""

    def __init__(self, ports: range):
        import random

        self.candidates = list(ports)
        random.shuffle(self.candidates)
        self.port: int | None = None
        self.url = ""
        self.process: subprocess.Popen | None = None

    def start(self) -> RedisProcess:
        """Start it (again: on the port it had, which it held until it was killed)."""
        for port in [self.port] if self.port else self.candidates:
            self.process = spawn(
                ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", ""]
                + ["--appendonly", "no"],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            self.port, self.url = port, f"redis://127.0.0.1:{port}/0"
            # Wait for the one of two events: it answers as itself, or it exits (port taken).
            deadline = time.monotonic() + 30
            while self.process.poll() is None and time.monotonic() < deadline:
                if self.answers():
                    return self
                time.sleep(0.05)
            self.kill()
        raise RuntimeError(f"redis-server did not start on a port of {self.candidates}")

    def answers(self) -> bool:
        """Whether this very process answers on its port (not another Redis holding it)."""
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
                sock.sendall(b"INFO server\r\n")
                reply = b""
                while b"process_id:" not in reply or not reply.endswith(b"\r\n"):
                    chunk = sock.recv(65536)
                    if not chunk:
                        break
                    reply += chunk
                return f"process_id:{self.process.pid}\r\n".encode() in reply
        except OSError:
            return False

    def kill(self) -> None:
        """SIGKILL: the broker is gone at once, its connections reset."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def pause(self) -> None:
        """SIGSTOP: the broker hangs, its connections open and silent."""
        self.process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        self.process.send_signal(signal.SIGCONT)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.resume()
        self.kill()
