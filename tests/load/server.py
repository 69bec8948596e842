"""The one place that says how the race suite serves the club: change the command here when the
site moves to another server (issue 19: ASGI under uvicorn)."""

from __future__ import annotations

import http.client
import os
import subprocess
import sys
import time
from pathlib import Path

from tests.servers import spawn

ROOT = Path(__file__).resolve().parents[2]
WORKERS = 4


def server_command(port: int, workers: int = WORKERS) -> list[str]:
    """A real multi-process server on the loopback address, as production runs one."""
    bin_dir = Path(sys.executable).parent
    return [
        str(bin_dir / "gunicorn"),
        "cardclub.wsgi:application",
        "--workers",
        str(workers),
        "--bind",
        f"127.0.0.1:{port}",
        "--timeout",
        "90",
        "--graceful-timeout",
        "5",
        "--log-level",
        "warning",
    ]


class Server:
    """Start the server, wait until it answers, stop it (only the process it started)."""

    def __init__(
        self, port: int, env: dict[str, str], log_path: Path, command=None, pass_fds=(), root=ROOT
    ):
        """``root``: the checkout served (another commit's worktree, to compare with it)."""
        self.port = port
        self.root = root
        self.pass_fds = tuple(pass_fds)  # a listening socket the server inherits
        self.env = env
        self.log_path = log_path
        # The benchmarks serve the club as production does (uvicorn workers): their command.
        self.command = command or server_command(port)
        self.process: subprocess.Popen | None = None

    def __enter__(self) -> Server:
        self.log = open(self.log_path, "wb")  # noqa: SIM115  (closed in __exit__)
        self.process = spawn(
            self.command,
            cwd=self.root,
            env=self.env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            pass_fds=self.pass_fds,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited; see {self.log_path}")
            try:
                connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5)
                connection.request("GET", "/accounts/login/")
                if connection.getresponse().status == 200:
                    return self
            except OSError:
                pass
            time.sleep(0.25)
        self.__exit__(None, None, None)
        tail = self.log_path.read_text(errors="replace")[-3000:]
        raise RuntimeError(f"the server did not answer within 60 s; {self.log_path} ends:\n{tail}")

    def __exit__(self, *exc) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


def base_env(**extra: str) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DATABASE_URL", "SQLITE_PATH", "SQLITE_TEST_PATH"}
    }
    env.update(
        DJANGO_SETTINGS_MODULE="cardclub.settings",
        # DEBUG keeps static files served from the finders (no collectstatic needed); a 500 is
        # a 500 either way, and the suite counts them by status.
        DEBUG="1",
        SECRET_KEY="race-suite-secret-key-not-for-production-0123456789",
        ALLOWED_HOSTS="127.0.0.1,localhost",
        LOG_LEVEL="ERROR",
    )
    env.update(extra)
    return env
