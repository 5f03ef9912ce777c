"""A real ``referee serve`` (gunicorn) on a free port of 127.0.0.1, for load
tests, benchmarks and reliability tests. Nothing here imports locust."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any


def call_api(
    base: str,
    method: str,
    path: str,
    body: Any = None,
    token: str | None = None,
    timeout: float = 60,
) -> tuple[int, Any]:
    """One JSON request to the server at ``base`` (``http://host:port``), for
    ``path`` such as ``/api/matches``: the answer's status and decoded body,
    error answers included."""
    req = urllib.request.Request(
        base + path,
        data=json.dumps({} if body is None else body).encode(),
        method=method,
        headers={"Content-Type": "application/json"},
    )
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"null")


def api(
    base: str,
    method: str,
    path: str,
    body: Any = None,
    token: str | None = None,
    timeout: float = 60,
) -> Any:
    """Like :func:`call_api`, for a call that must succeed: its decoded body."""
    status, answer = call_api(base, method, path, body, token, timeout)
    if status >= 400:
        raise RuntimeError(f"{method} {path} answered {status}: {answer}")
    return answer


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def referee_command() -> list[str]:
    """How to run the ``referee`` command of this Python environment."""
    script = Path(sys.executable).with_name("referee")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "from referee.cli import main; main()"]


def referee_env(database_url: str, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    env = {**os.environ, "REFEREE_DATABASE_URL": database_url}
    env.setdefault("REFEREE_SECRET_KEY", "load-test")
    env.pop("REFEREE_FAULT_SLEEP_IN_CLOSE", None)
    env.update(extra or {})
    return env


@contextmanager
def running_server(
    database_url: str,
    workers: int = 1,
    *,
    log_path: Path | None = None,
    env: Mapping[str, str] | None = None,
    start_timeout: float = 60.0,
) -> Iterator[str]:
    """Start ``referee serve`` with ``workers`` gunicorn workers on a free port of
    127.0.0.1 and yield its base URL; stop it (SIGTERM, then SIGKILL) afterwards.
    The server's log (gunicorn's access log too) goes to ``log_path`` or nowhere.
    With several workers and no shared rate-limit storage in ``env``, rate limits
    are turned off (``referee serve`` refuses per-process counts otherwise)."""
    env = dict(env or {})
    if workers > 1 and "REFEREE_RATELIMIT_STORAGE_URI" not in env:
        env.setdefault("REFEREE_RATELIMIT_ENABLED", "false")
    with serving(
        referee_command(),
        referee_env(database_url, env),
        args=("--workers", str(workers)),
        log_path=log_path,
        start_timeout=start_timeout,
    ) as url:
        yield url


@contextmanager
def serving(
    command: list[str],
    env: Mapping[str, str],
    *,
    args: tuple[str, ...] = (),
    cwd: Path | None = None,
    log_path: Path | None = None,
    start_timeout: float = 60.0,
) -> Iterator[str]:
    """``COMMAND serve --port P ARGS`` (a ``referee`` of any installation) with
    exactly ``env``, on a free port of 127.0.0.1: its base URL once it answers,
    stopped (SIGTERM, then SIGKILL) afterwards."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = log_path.open("wb") if log_path is not None else subprocess.DEVNULL
    process = subprocess.Popen(
        [*command, "serve", "--port", str(port), *args],
        env=dict(env),
        cwd=cwd,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        _wait_until_up(url, process, start_timeout, log_path)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if log_path is not None and not isinstance(log, int):
            log.close()


def _wait_until_up(
    url: str, process: subprocess.Popen[bytes], timeout: float, log_path: Path | None
) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url + "/", timeout=2) as resp:
                if resp.status == 200:
                    return
        except OSError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            log = log_path.read_text(errors="replace") if log_path is not None else ""
            raise RuntimeError(f"referee serve did not start on {url}\n{log}")
        time.sleep(0.2)
