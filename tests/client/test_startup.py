"""The commands that only read files start at once: `governor --version`, `records` and `verify`
import neither the full screen (textual), nor the database driver (asyncpg), nor the network
discovery (zeroconf, ifaddr), nor the server. Each runs in a fresh interpreter, and what it
imported is read from sys.modules (bench/startup.py measures the time).

The PostgreSQL driver is an optional extra (pyproject.toml): a server on SQLite runs without it,
and one asked for a PostgreSQL database without it refuses to start, saying what to install."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from client.cli import main

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("textual", "asyncpg", "zeroconf", "ifaddr", "server")

# Runs `governor ARGS...` as the console script does, then prints the heavy packages imported.
# With `{"asyncpg": None}` in sys.modules, importing asyncpg fails as it does where it is not installed.
# A server is stopped as Ctrl-C stops it, once it listens (its handler of SIGTERM is then in place).
PROBE = """
import json, os, signal, sys, threading, time
if os.environ.get("PROBE_NO_ASYNCPG"):
    sys.modules["asyncpg"] = None

def stop_when_listening():
    while signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        time.sleep(0.01)
    os.kill(os.getpid(), signal.SIGTERM)

threading.Thread(target=stop_when_listening, daemon=True).start()
from client.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as e:
    code = e.code
heavy = sorted({name.split(".")[0] for name in sys.modules} & set(%r))
print(json.dumps({"code": code, "heavy": heavy}))
""" % (HEAVY,)


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    folder = tmp_path_factory.mktemp("startup")
    assert main(["selfplay", "--players", "2", "--games", "1", "--seed", "startup", "--record-dir", str(folder)]) == 0
    return folder


def imported(*args: str, data: Path, no_asyncpg: bool = False) -> dict:
    """What `governor ARGS...` returned and imported, and what it printed."""
    env = {"GOVERNOR_DATA": str(data), "PATH": "/usr/bin:/bin"} | ({"PROBE_NO_ASYNCPG": "1"} if no_asyncpg else {})
    run = subprocess.run([sys.executable, "-c", PROBE, *args], cwd=ROOT, capture_output=True, text=True,
                         env=env, timeout=120)
    assert run.stdout, run.stderr      # the probe's report, or why it has none
    return json.loads(run.stdout.splitlines()[-1]) | {"stdout": run.stdout, "stderr": run.stderr}


@pytest.mark.parametrize("args", [["--version"], ["records"], ["verify", "game-0.govrec"], ["play", "--help"]])
def test_the_quick_commands_import_nothing_heavy(saved, args):
    args = [str(saved / a) if a.endswith(".govrec") else a for a in args]
    got = imported(*args, data=saved)
    assert got["code"] == 0 and got["heavy"] == [], got


def test_a_server_on_sqlite_never_imports_the_postgresql_driver(tmp_path):
    """A real `governor serve` that starts, listens and stops, as `governor play` hosts its own."""
    got = imported("serve", "--port", "0", "--no-announce", "--data-dir", str(tmp_path / "data"), data=tmp_path)
    assert got["code"] == 0, got
    assert "listening on ws://127.0.0.1:" in got["stdout"], got
    assert "server" in got["heavy"] and "asyncpg" not in got["heavy"], got


def test_a_server_on_postgresql_without_its_driver_says_what_to_install(tmp_path):
    data = tmp_path / "data"
    got = imported("serve", "--port", "0", "--no-announce", "--data-dir", str(data),
                   "--database", "postgresql://governor:hunter2@127.0.0.1:1/governor", data=tmp_path, no_asyncpg=True)
    assert got["code"] == 2, got
    assert "governor serve: a PostgreSQL database needs the driver asyncpg, which is not installed" in got["stderr"]
    assert "pip install 'governor[postgres]'" in got["stderr"] and "make test" in got["stderr"]
    assert "hunter2" not in got["stderr"] + got["stdout"]
    assert "listening" not in got["stdout"] and not data.exists()    # it started nothing, wrote nothing


def test_the_probe_sees_a_heavy_import(saved):
    """The same probe on `serve --help`, whose module reads the server's settings: it must report
    what it imports, or the test above could pass by seeing nothing."""
    got = imported("serve", "--help", data=saved)
    assert "server" in got["heavy"]
