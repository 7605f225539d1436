"""No traceback reaches a user: Ctrl-C with bot workers running, malformed addresses, absurd
answers; hints print commands that work as printed; --version; the Makefile's quiet install."""
import argparse
import os
import signal
import subprocess
import sys

import pytest

from client import hints
from client.cli import main
from client.session import server_address
from tests.client.live import ROOT


def test_ctrl_c_in_play_prints_no_traceback_from_the_bot_workers(tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "client", "play", "--port", "0", "--data-dir", str(tmp_path)],
                            cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True, env={**os.environ, "NO_COLOR": "1"})
    try:
        seen = ""
        # Answer until a question comes after a computer player moved: its worker process is up.
        while True:
            line = proc.stdout.readline()
            assert line, "the game ended before a computer player moved"
            seen += line
            if "(? for help" in line:
                if seen.count("(? for help") >= 2 and "Bot" in seen.split("You are seat")[-1]:
                    break
                proc.stdin.write("1\n")
                proc.stdin.flush()
        os.killpg(proc.pid, signal.SIGINT)        # what Ctrl-C at a terminal does: the whole group
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert "Interrupted: your game is saved" in err


@pytest.mark.parametrize("address, why", [
    ("ws://127.0.0.1:99999", "a port is a number from 1 to 65535"),
    (":abc", "the port is not a number"),
    ("ws://[::1", "an IPv6 address in [brackets] is not closed"),
    ("http://example.org:80", "is not a server address"),
    ("ws://", "is not a server address"),
    ("ws://host:0", "port 0 is no server's port"),
    ("ws://a b:1", "is not a server address"),
    ("ws://h:1/path", "more than a host and a port"),
    ("x" * 5000, "is not a server address"),
])
def test_a_malformed_address_is_named_and_explained(address, why):
    with pytest.raises(argparse.ArgumentTypeError) as e:
        server_address(address)
    assert why in str(e.value) and "use ws://HOST:PORT" in str(e.value)
    assert len(str(e.value)) < 250


@pytest.mark.parametrize("address, url", [("127.0.0.1:8765", "ws://127.0.0.1:8765"),
                                          ("wss://games.example.org", "wss://games.example.org"),
                                          ("ws://[::1]:8765/", "ws://[::1]:8765")])
def test_good_addresses_pass(address, url):
    assert server_address(address) == url


@pytest.mark.parametrize("command", ["join", "watch"])
def test_the_commands_refuse_a_bad_address_without_a_traceback(command, capsys):
    with pytest.raises(SystemExit) as e:
        main([command, "ws://[::1", *(["T"] if command == "watch" else [])])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "is not a server address" in err and "Traceback" not in err


def test_version(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0
    assert capsys.readouterr().out.startswith("governor ")


def test_hints_name_a_command_that_runs_as_printed(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    venv = tmp_path / ".venv" / "bin"
    venv.mkdir(parents=True)
    (venv / "governor").write_text("#!/bin/sh\n")
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setattr(sys, "argv", [str(venv / "governor"), "play"])
    assert hints.command("verify", "a b.govrec") == ".venv/bin/governor verify 'a b.govrec'"
    monkeypatch.setattr(sys, "argv", [str(ROOT / "client" / "__main__.py"), "play"])
    assert hints.command("play").endswith(" -m client play")


@pytest.mark.parametrize("command, shown", [
    ("play", ".venv/bin/governor play --bots heuristic,ismcts"),
    ("records", ".venv/bin/governor replay 1"),
    ("replay", "its number in `.venv/bin/governor records`"),
])
def test_help_spells_its_commands_as_they_run(monkeypatch, tmp_path, capsys, command, shown):
    """After `make play` the command is .venv/bin/governor, not on the PATH: --help says so."""
    from client import cli
    monkeypatch.chdir(tmp_path)
    venv = tmp_path / ".venv" / "bin"
    venv.mkdir(parents=True)
    (venv / "governor").write_text("#!/bin/sh\n")
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setattr(sys, "argv", [str(venv / "governor"), command, "--help"])
    with pytest.raises(SystemExit):
        cli.parser().parse_args([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())      # argparse wraps the arguments' help
    assert shown in text
    assert "`governor" not in text and " governor play" not in text and " governor replay" not in text


def test_make_play_hides_the_installers_chatter():
    # -B: the recipe as on a fresh clone, even where the project is installed already
    recipe = subprocess.run(["make", "-n", "-B", "play"], cwd=ROOT, capture_output=True, text=True).stdout
    assert "pip install" in recipe
    assert "> .venv/install.log 2>&1" in recipe


def serving(data_dir, env: dict, *args: str) -> tuple[subprocess.Popen, str]:
    """A real `governor serve` in a session of its own (a terminal's Ctrl-C reaches its whole
    process group), and the address it listens on once it says so."""
    import re
    server = subprocess.Popen([sys.executable, "-m", "client", "serve", "--port", "0", "--data-dir", str(data_dir),
                               *args], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              start_new_session=True, env=env)
    while True:
        line = server.stdout.readline()
        if not line:
            server.kill()
            raise AssertionError("the server ended before it listened")
        found = re.search(r"listening on (ws://[\d.:]+)", line)
        if found:
            return server, found.group(1)


def test_ctrl_c_in_serve_prints_no_traceback_from_the_bot_workers(tmp_path):
    env = {**os.environ, "NO_COLOR": "1"}
    server, url = serving(tmp_path / "s", env)
    try:
        # A match with a computer seat: the server's bot worker processes are up once it is over.
        seat = subprocess.run([sys.executable, "-m", "client", "join", url, "--bot", "random", "--create", "sanjuan",
                               "--seats", "2", "--bots", "1", "--level", "random", "--no-input", "--json",
                               "--data-dir", str(tmp_path / "c")], cwd=ROOT, capture_output=True, text=True,
                              timeout=120, env=env)
        assert seat.returncode == 0, seat.stderr
        os.killpg(server.pid, signal.SIGINT)
        out = server.communicate(timeout=60)[0]
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGKILL)
    assert "Traceback" not in out and "KeyboardInterrupt" not in out, out
    assert "1 bots (random)" in out


def test_ctrl_c_in_serve_while_searching_bots_think_stops_cleanly(tmp_path):
    """Ctrl-C (SIGINT to the terminal's process group) at the moment the `ismcts` bots search in
    the worker processes: the server ends with 0, printing no traceback, and no bot's decision is
    logged as failed or replaced by a random move."""
    import io
    import re
    import time

    import msgpack

    from .real_terminal import descendants
    env = {**os.environ, "NO_COLOR": "1", "PYTHONUNBUFFERED": "1"}
    server, url = serving(tmp_path / "s", env, "--no-announce")
    seat = None
    try:
        seat = subprocess.Popen([sys.executable, "-m", "client", "join", url, "--bot", "random", "--create",
                                 "sanjuan", "--seats", "4", "--bots", "3", "--level", "ismcts", "--no-input",
                                 "--json", "--pace", "0", "--data-dir", str(tmp_path / "c")], cwd=ROOT,
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True, env=env)

        def thinking() -> bool:
            """The bots have made moves (the seat was shown a dozen views: its workers are up, not
            starting), and a bot worker process uses the CPU now: a search is under way."""
            shown = list((tmp_path / "c" / "sessions").glob("*.shown"))
            if not shown or sum(1 for _ in msgpack.Unpacker(io.BytesIO(shown[0].read_bytes()))) < 12:
                time.sleep(0.1)
                return False
            workers = [p.pid for p in descendants(server.pid) if "multiprocessing.spawn" in p.cmdline]
            before = {pid: cpu(pid) for pid in workers}
            time.sleep(0.2)
            return any(cpu(pid) - before[pid] >= 5 for pid in workers)     # 50 ms of the 200 at least
        deadline = time.monotonic() + 120
        while not thinking():
            assert time.monotonic() < deadline and seat.poll() is None, "no bot worker was seen searching"
        os.killpg(server.pid, signal.SIGINT)
        out = server.communicate(timeout=60)[0]
    finally:
        for proc in (server, seat):
            if proc is not None and proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
    assert server.returncode == 0, out
    assert "Traceback" not in out and "KeyboardInterrupt" not in out, out
    assert "shutting down" in out and not re.search(r"failed|random move", out), out


def cpu(pid: int) -> int:
    """The CPU time a process has used, in clock ticks (0 once it is gone)."""
    try:
        stat = open(f"/proc/{pid}/stat").read()
    except OSError:
        return 0
    return sum(map(int, stat[stat.rindex(")") + 2:].split()[11:13]))


def test_bot_workers_are_born_ignoring_ctrl_c():
    """What keeps a Ctrl-C that comes while a worker is still starting from printing a traceback:
    a process started there begins with SIGINT ignored, and Python leaves it so."""
    from server.deciders import _born_ignoring_ctrl_c
    before = signal.getsignal(signal.SIGINT)
    probe = [sys.executable, "-c", "import signal; print(signal.getsignal(signal.SIGINT) == signal.SIG_IGN)"]
    with _born_ignoring_ctrl_c():
        inside = subprocess.run(probe, capture_output=True, text=True).stdout
    assert inside.strip() == "True"
    assert signal.getsignal(signal.SIGINT) is before       # the server's own Ctrl-C is back
    assert subprocess.run(probe, capture_output=True, text=True).stdout.strip() == "False"


def test_ctrl_c_while_join_listens_for_servers_prints_no_traceback():
    proc = subprocess.Popen([sys.executable, "-m", "client", "join", "--listen", "30"], cwd=ROOT,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True, env={**os.environ, "NO_COLOR": "1"})
    try:
        assert "Listening for Governor servers" in proc.stdout.readline()
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130
    assert err.strip() == "Interrupted." and "Servers on this network" not in out
