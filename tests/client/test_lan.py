"""Finding a game on a LAN, over a real network: two network namespaces joined by a veth pair,
a real `governor serve` or `governor play --host` in one announcing itself with multicast DNS,
and a real `governor join` with no address in the other, driven through pipes in plain lines.

Creating namespaces needs root (or CAP_NET_ADMIN): without it the tests are skipped, saying so.
"""
from __future__ import annotations

import json
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import threading
from dataclasses import dataclass, field

import pytest

import games
from client.discover import MAX_HEARD

from .hostile_announcer import FLOOD
from .live import ROOT, first_line, held_messages, wait_for
from .test_tls import self_signed

SERVER_IP, CLIENT_IP = "10.213.0.1", "10.213.0.2"
MACHINE = socket.gethostname().split(".")[0]      # `serve` announces "Governor on MACHINE"


def _ip(*args: str) -> None:
    done = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=20)
    if done.returncode:
        raise RuntimeError(f"ip {' '.join(args)}: {done.stderr.strip()}")


@dataclass
class Lan:
    server: str                     # the namespaces' names
    client: str
    procs: list = field(default_factory=list)

    def governor(self, ns: str, *args: str, stdin=subprocess.DEVNULL) -> subprocess.Popen:
        """`governor ARGS` in the namespace `ns`."""
        return self.python(ns, "-m", "client", *args, stdin=stdin)

    def python(self, ns: str, *args: str, stdin=subprocess.DEVNULL) -> subprocess.Popen:
        """`python ARGS` in the namespace `ns`, from the project's folder; stopped at the end."""
        env = {**os.environ, "NO_COLOR": "1", "PYTHONUNBUFFERED": "1"}
        proc = subprocess.Popen(["ip", "netns", "exec", ns, sys.executable, *args],
                                cwd=ROOT, env=env, text=True, stdin=stdin, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
        self.procs.append(proc)
        return proc

    def stop(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGINT)
        for proc in self.procs:
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)


@pytest.fixture
def lan():
    tag = f"gv{os.getpid() % 100000}{secrets.token_hex(2)}"    # veth names: 15 characters at most
    server, client = f"{tag}s", f"{tag}c"
    try:
        _ip("netns", "add", server)
    except (OSError, RuntimeError) as e:
        pytest.skip(f"this machine does not allow network namespaces here: {e}")
    made = [server]
    net = Lan(server, client)
    try:
        _ip("netns", "add", client)
        made.append(client)
        _ip("link", "add", f"{tag}a", "type", "veth", "peer", "name", f"{tag}b")
        for ns, end, address in ((server, "a", SERVER_IP), (client, "b", CLIENT_IP)):
            _ip("link", "set", f"{tag}{end}", "netns", ns)
            _ip("-n", ns, "addr", "add", f"{address}/24", "dev", f"{tag}{end}")
            _ip("-n", ns, "link", "set", f"{tag}{end}", "up")
            _ip("-n", ns, "link", "set", "lo", "up")
        yield net
    finally:
        net.stop()
        for ns in made:     # the veth pair goes with them
            _ip("netns", "del", ns)


class Output:
    """A process's stdout, read as it comes by a thread of its own."""

    def __init__(self, proc: subprocess.Popen) -> None:
        self.text = ""
        self.proc = proc
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.text += line

    def wait_for(self, pattern: str, timeout: float = 30) -> re.Match:
        try:
            wait_for(lambda: re.search(pattern, self.text), timeout)
        except AssertionError:
            raise AssertionError(f"no {pattern!r} in:\n{self.text[-3000:]}") from None
        return re.search(pattern, self.text)


def serve(lan: Lan, tmp_path, *flags: str) -> tuple[str, Output]:
    """A `governor serve` on the server's namespace address; its ws:// address."""
    proc = lan.governor(lan.server, "serve", "--host", SERVER_IP, "--port", "0",
                        "--data-dir", str(tmp_path / f"server{len(lan.procs)}"), *flags)
    out = Output(proc)
    url = out.wait_for(r"listening on (wss?://\S+)").group(1)
    return url, out


def short_key(served: Output) -> str:
    """The first groups of the key the server printed, as `join` lists them."""
    return ":".join(served.wait_for(r"server key fingerprint: (\S+)").group(1).split(":")[:4])


# What a server of this program announces it serves: every registered game's title.
SERVED = "(" + ", ".join(g.INFO.title for g in games.GAMES.values()) + ")"


def listed(text: str) -> list[str]:
    """The servers a `join` listed, one line each."""
    listing = text.split("Servers on this network:\n", 1)[1].split("\nType a number", 1)[0]
    return [line.strip() for line in listing.splitlines() if re.match(r" +\d+\. ", line)]


def test_join_with_no_address_finds_a_served_game_and_sits_at_it(lan, tmp_path):
    url, served = serve(lan, tmp_path)
    served.wait_for(f"announced on the local network as 'Governor on {MACHINE}'")
    # Someone waits at a table for a second player: a computer player's seat, dialled by address.
    waiting = lan.governor(lan.client, "join", url, "--bot", "random", "--no-input", "--json", "--pace", "0",
                           "--create", "sanjuan", "--seats", "2", "--data-dir", str(tmp_path / "first"))
    table = first_line(waiting)
    # No address: the server is heard, picked (1), and its lobby's only table too (1).
    join = lan.governor(lan.client, "join", "--plain", "--listen", "1", "--name", "Bo",
                        "--data-dir", str(tmp_path / "bo"), stdin=subprocess.PIPE)
    heard = Output(join)
    join.stdin.write("1\n1\n")
    join.stdin.flush()
    heard.wait_for(r"\(\? for help, q to quit\)")        # the game began: Bo is asked a question
    assert listed(heard.text) == [f"1. Governor on {MACHINE}  key {short_key(served)}  {url}  {SERVED}"]
    assert re.search(rf"\n +1\. {table}  San Juan, 2 seats, 1 free, blind, waiting", heard.text)
    join.stdin.close()
    assert join.wait(20) == 0
    assert "Input closed: your seat is saved." in heard.text
    assert "Traceback" not in join.stderr.read()


def test_join_lists_a_lan_party_and_makes_what_strangers_announce_harmless(lan, tmp_path):
    play = lan.governor(lan.server, "play", "--auto", "--host", SERVER_IP, "--port", "0", "--players", "2",
                        "--bots", "0", "--name", "Ana", "--data-dir", str(tmp_path / "ana"))
    hosting = Output(play)
    port = hosting.wait_for(rf"join ws://{SERVER_IP}:(\d+) --table").group(1)
    hosting.wait_for(r"or with .* join alone, which finds .Ana's San Juan. on this network")
    quiet_url, _ = serve(lan, tmp_path, "--no-announce")
    stranger = Output(lan.python(lan.server, "-m", "tests.client.hostile_announcer", SERVER_IP, "4242"))
    stranger.wait_for("announcing")
    join = lan.governor(lan.client, "join", "--plain", "--listen", "1.5", "--name", "Bo",
                        "--data-dir", str(tmp_path / "bo"), stdin=subprocess.PIPE)
    heard = Output(join)
    join.stdin.write("1\n1\n")
    join.stdin.flush()
    heard.wait_for(r"\(\? for help, q to quit\)")        # Bo sat at Ana's table: the game began
    # Ana's game, and the stranger's joinable entry with its name and games made harmless, dialled
    # at its address on this network; not the server that was asked not to announce itself.
    ana, zed = listed(heard.text)
    assert re.fullmatch(rf"1\. Ana's San Juan  key [0-9a-f]{{4}}(:[0-9a-f]{{4}}){{3}}  ws://{SERVER_IP}:{port}  "
                        + re.escape(SERVED), ana), ana
    assert zed == f"2. Zedevil spoof  key (none)  ws://{SERVER_IP}:4242  (San Juan)"
    assert quiet_url not in heard.text
    others = int(heard.wait_for(r"\((\d+) other announcements heard and not listed").group(1))
    assert FLOOD <= others <= MAX_HEARD
    assert "\x1b" not in heard.text and "\u202e" not in heard.text and "pwned" not in heard.text
    join.stdin.close()
    assert join.wait(20) == 0
    assert "Traceback" not in join.stderr.read()


def test_a_server_with_tls_is_listed_and_joined_with_wss(lan, tmp_path):
    cert, key = self_signed(tmp_path, address=SERVER_IP)
    url, served = serve(lan, tmp_path, "--cert", str(cert), "--key", str(key))
    assert url.startswith("wss://")
    join = lan.governor(lan.client, "join", "--plain", "--listen", "1", "--cafile", str(cert),
                        "--data-dir", str(tmp_path / "bo"), stdin=subprocess.PIPE)
    heard = Output(join)
    join.stdin.write("1\nq\n")
    join.stdin.close()
    assert join.wait(20) == 0
    assert listed(heard.text) == [f"1. Governor on {MACHINE}  key {short_key(served)}  {url}  {SERVED}"]
    assert f"Connected to {url}, server key fingerprint" in heard.text and "lobby> " in heard.text


def test_join_hears_no_server_that_was_asked_not_to_announce_itself(lan, tmp_path):
    url, served = serve(lan, tmp_path, "--no-announce")
    join = lan.governor(lan.client, "join", "--plain", "--listen", "0.5", "--data-dir", str(tmp_path / "bo"),
                        stdin=subprocess.PIPE)
    heard = Output(join)
    join.stdin.write("1\n\nq\n")      # 1 is no choice here; Enter listens again; q quits
    join.stdin.close()
    assert join.wait(20) == 0
    assert heard.text.count("No Governor server answered.") == 2
    assert "'1' is not one of the choices." in heard.text and url not in heard.text
    assert "announced" not in served.text


def test_a_friends_client_finds_the_host_again_on_another_port_by_its_key(lan, tmp_path):
    """The host leaves mid-game and starts again on another port: the friend's client, which
    nobody answers at the old address any more, hears the server's key announced at the new one
    and plays on there to the end, without being told the new address."""
    ana, bo = tmp_path / "ana", tmp_path / "bo"

    def host(port: str, answers: str = "") -> tuple[subprocess.Popen, Output]:
        proc = lan.governor(lan.server, "play", "--auto", "--host", SERVER_IP, "--port", port, "--players", "2",
                            "--bots", "0", "--name", "Ana", "--data-dir", str(ana), stdin=subprocess.PIPE)
        proc.stdin.write(answers)
        proc.stdin.close()
        return proc, Output(proc)

    first, said = host("0")
    url, table = said.wait_for(rf"Friends can join with: .* join (ws://{SERVER_IP}:\d+) --table (\w+)").groups()
    friend = lan.governor(lan.client, "join", url, "--table", table, "--bot", "random", "--no-input", "--json",
                          "--think", "0.05", "--pace", "0", "--patience", "60", "--data-dir", str(bo))
    played = Output(friend)
    wait_for(lambda: held_messages(bo) >= 6, 30)          # the match is under way
    first.send_signal(signal.SIGINT)
    assert first.wait(30) == 130
    second, back = host("0", answers="y\n")
    moved = back.wait_for(rf"Connected to ws://{SERVER_IP}:(\d+)").group(1)
    assert f":{moved}" not in url
    back.wait_for(r"Resuming your seat")
    assert friend.wait(90) == 0, friend.stderr.read()
    result = json.loads(played.text.strip().splitlines()[-1])
    assert result["finished"] and result["verified"] and result["table"] == table
    assert second.wait(60) == 0
    [saved] = [json.loads(p.read_text()) for p in (bo / "sessions").glob("*.json")] or [None]
    assert saved is None          # the seat ended with its match: nothing kept to resume
