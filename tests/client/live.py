"""Helpers for end-to-end client tests: a real server.app.Server on 127.0.0.1 in a thread of
its own, and `governor` client processes."""
from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from server.app import Server

ROOT = Path(__file__).resolve().parents[2]
# Tests play fast: the server's rate limit is raised and the clients do not pace themselves.
FAST = {"rate": 2000.0, "burst": 4000,   # headless clients, all from one address
        "tables_per_addr": 1000, "tables_per_net": 1000, "tables_per_window": 1000, "watch_rate": 2000.0, "watch_burst": 4000,
        "conn_rate": 2000.0, "conn_burst": 4000}


class LiveServer:
    """The real server, in-process, on its own event loop thread; can be stopped and started
    again on the same port and data directory (a restart, as far as clients can tell)."""

    def __init__(self, data_dir: Path, grace: float = 60.0, tls=None, **limits) -> None:
        self.data_dir = Path(data_dir)
        self.grace = grace
        self.tls = tls
        self.limits = {**FAST, **limits}
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.server: Server | None = None
        self.port = 0

    def _call(self, coro, timeout: float = 30):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def start(self) -> int:
        self.server = Server(self.data_dir, "127.0.0.1", self.port, grace=self.grace,
                             bot_processes=False, tls=self.tls, **self.limits)
        self.port = self._call(self.server.start())
        return self.port

    def stop(self) -> None:
        if self.server is not None:
            self._call(self.server.stop())
            self.server = None

    def close(self) -> None:
        self.stop()
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)

    @property
    def url(self) -> str:
        return f"{'wss' if self.tls else 'ws'}://127.0.0.1:{self.port}"


def governor(*args: str, program: str = "client", **kw) -> subprocess.Popen:
    """`governor ARGS` (`python -m client`), or another module that runs it (`program`)."""
    env = {**os.environ, "NO_COLOR": "1", "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen([sys.executable, "-m", program, *args], cwd=ROOT, env=env, text=True,
                            stdin=kw.pop("stdin", subprocess.DEVNULL), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, **kw)


def bot_seat(url: str, data_dir: Path, *args: str, **kw) -> subprocess.Popen:
    """A headless client whose seat a random bot plays."""
    return governor("join", url, "--bot", "random", "--no-input", "--json", "--pace", "0",
                    "--data-dir", str(data_dir), *args, **kw)


def first_line(proc: subprocess.Popen, timeout: float = 20, stream: str = "stdout") -> str:
    """The first line of stdout (the table id of a --create), or of stderr, without waiting
    for the end."""
    box: list[str] = []
    t = threading.Thread(target=lambda: box.append(getattr(proc, stream).readline()), daemon=True)
    t.start()
    t.join(timeout)
    assert box and box[0], f"no first line; stderr: {proc.stderr.read() if proc.poll() is not None else ''}"
    return box[0].strip()


def outcome(proc: subprocess.Popen, timeout: float = 60) -> dict:
    """The JSON object a headless client prints at the end; asserts it exited 0."""
    out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, f"exit {proc.returncode}\nstdout: {out[-2000:]}\nstderr: {err[-3000:]}"
    assert "Traceback" not in err, err
    result = json.loads(out.strip().splitlines()[-1])
    result["_stderr"] = err
    return result


def wait_for(predicate, timeout: float = 20, every: float = 0.02) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(every)


def held_messages(data_dir: Path) -> int:
    """Signed messages a client has saved for its (only) seat so far."""
    from client.session import SeatSession
    files = list((Path(data_dir) / "sessions").glob("*.json"))
    if not files:
        return 0
    try:
        return len(SeatSession.load(files[0]).messages)
    except Exception:
        return 0
