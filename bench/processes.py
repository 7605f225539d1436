"""What the multi-process benchmarks share: a private PostgreSQL for the run, `governor serve`
processes started and stopped, and the CPU time a process has used."""
from __future__ import annotations

import contextlib
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# Every client of a benchmark comes from 127.0.0.1: the per-address limits are lifted.
FAST = ["rate=10000", "burst=10000", "conn_rate=10000", "conn_burst=10000", "conns_per_addr=100000",
        "max_connections=100000", "tables_per_addr=100000", "tables_per_window=100000", "max_tables=100000",
        "watch_rate=10000", "watch_burst=10000"]


@contextlib.contextmanager
def private_postgres(folder: Path):
    """A PostgreSQL server of its own in `folder` (the pgserver package of the test extra carries
    its binaries), stopped when the block ends."""
    import pgserver
    postgres = pgserver.get_server(folder, cleanup_mode="stop")
    try:
        yield postgres
    finally:
        postgres.cleanup()   # before its folder goes


def free_port() -> int:
    # the port is free now; `serve` binds it a moment later, nothing else on a bench machine wants it
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(data_dir: Path, database: str, *limits: str, public: bool = False,
          fast: bool = True) -> tuple[subprocess.Popen, str]:
    """`governor serve` on a loopback port, its tables in `database` ("sqlite" or a PostgreSQL URI),
    with the FAST limits (unless not `fast`: the defaults, as users run it) and then `limits`
    ("NAME=VALUE"); with `public`, on a port chosen here and told as its --public-url. Returns the
    process and the address it listens at."""
    port = free_port() if public else 0
    extra = ["--public-url", f"ws://127.0.0.1:{port}"] if public else []
    proc = subprocess.Popen([sys.executable, "-m", "client", "serve", "--port", str(port), "--data-dir",
                             str(data_dir), "--no-announce", "--database", database, *extra,
                             *(f"--limit={x}" for x in (*(FAST if fast else ()), *limits))],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    for line in proc.stdout:
        m = re.match(r"listening on (ws://\S+)", line)
        if m:
            return proc, m.group(1)
    raise SystemExit("a server did not start")


def cpu_seconds(pid: int) -> float:
    """User and system CPU time the process has used so far (/proc/PID/stat, fields 14 and 15)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
