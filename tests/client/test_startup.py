"""The commands that only read files start at once: `governor --version`, `records` and `verify`
import neither the full screen (textual), nor the database driver (asyncpg), nor the network
discovery (zeroconf, ifaddr), nor the server. Each runs in a fresh interpreter, and what it
imported is read from sys.modules (bench/startup.py measures the time)."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from client.cli import main

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("textual", "asyncpg", "zeroconf", "ifaddr", "server")

# Runs `governor ARGS...` as the console script does, then prints the heavy packages imported.
PROBE = """
import json, sys
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


def imported(*args: str, data: Path) -> dict:
    run = subprocess.run([sys.executable, "-c", PROBE, *args], cwd=ROOT, capture_output=True, text=True,
                         env={"GOVERNOR_DATA": str(data), "PATH": "/usr/bin:/bin"}, timeout=120)
    return json.loads(run.stdout.splitlines()[-1])


@pytest.mark.parametrize("args", [["--version"], ["records"], ["verify", "game-0.govrec"]])
def test_the_quick_commands_import_nothing_heavy(saved, args):
    args = [str(saved / a) if a.endswith(".govrec") else a for a in args]
    got = imported(*args, data=saved)
    assert got["code"] == 0 and got["heavy"] == [], got


def test_the_probe_sees_a_heavy_import(saved):
    """The same probe on `serve --help`, whose module reads the server's settings: it must report
    what it imports, or the test above could pass by seeing nothing."""
    got = imported("serve", "--help", data=saved)
    assert "server" in got["heavy"]
