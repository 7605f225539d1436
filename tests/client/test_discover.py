"""What `governor join` makes of the announcements it hears (client/discover.py): a stranger's
data, listed only when it is a server this client can join, and never shown with control
characters or at any length. The announcements heard over a real network are tested in
test_lan.py."""
import asyncio
import ipaddress
import os
import sys

import pytest

from client.cli import main
from client.discover import MAX_GAMES, NAME_CHARS, found, shortened
from protocol import wire
from server.announce import SERVICE

GOOD = {b"proto": wire.VERSION.encode(), b"scheme": b"ws", b"path": b"/", b"games": b"sanjuan,puertorico"}


def heard(name="Ana's San Juan", addresses=("192.168.1.20",), port=8765, networks=(), **txt):
    record = {**GOOD, **{k.encode(): v for k, v in txt.items()}}
    return found(f"{name}.{SERVICE}", list(addresses), port, record, networks)


def test_a_good_announcement_is_listed_with_its_address_and_games():
    f = heard()
    assert (f.name, f.url, f.games) == ("Ana's San Juan", "ws://192.168.1.20:8765", ("San Juan", "Puerto Rico"))
    assert f.describe() == "Ana's San Juan  ws://192.168.1.20:8765  (San Juan, Puerto Rico)"
    assert heard(scheme=b"wss").url == "wss://192.168.1.20:8765"


@pytest.mark.parametrize("name, shown", [
    ("\x1b[2J\x1b]0;pwned\x07Evil", "[2J]0;pwnedEvil"),               # clear screen, retitle, bell
    ("Left\u202eright\u200b", "Leftright"),                            # bidi override, zero width
    ("tab\tnew\nline\r  spaced   out ", "tabnewline spaced out"),
    ("x" * 500, "x" * (NAME_CHARS - 1) + "…"),
    ("\x00\x1b", "(no name)"),
])
def test_a_hostile_name_is_shown_without_control_characters_and_short(name, shown):
    f = heard(name=name)
    assert f.name == shown and f.name.isprintable() and len(f.name) <= NAME_CHARS


@pytest.mark.parametrize("change", [
    {"proto": b"governor/1"},                    # another version: it would refuse our hello
    {"proto": b"\xff\xfe"},                      # not even UTF-8
    {"scheme": b"http"},
    {"scheme": b"ws://evil.example:1/#"},
    {"path": b"/admin"},
    {"path": b"\x1b[2J"},
    {"path": b"?x=1"},
    {"port": 0},
    {"port": 70000},
    {"port": "8765"},
    {"port": None},
    {"addresses": ()},
    {"addresses": ("fe80::1",)},                 # IPv6 is not announced
    {"addresses": ("evil.example", "\x1b[2J")},  # an address is an address
])
def test_an_announcement_this_client_cannot_join_is_not_listed(change):
    args = {k: v for k, v in change.items() if k in ("port", "addresses")}
    txt = {k: v for k, v in change.items() if k not in args}
    assert heard(**args, **txt) is None


def test_a_missing_txt_record_is_not_listed():
    assert found(f"x.{SERVICE}", ["192.168.1.20"], 8765, {}) is None
    assert found(f"x.{SERVICE}", ["192.168.1.20"], 8765, {b"proto": None}) is None


def test_games_are_only_those_this_client_has_each_once_and_few_are_read():
    assert heard(games=b"puertorico,\x1b[2J,chess,puertorico," + b"x" * 10_000).games == ("Puerto Rico",)
    assert heard(games=b",".join([b"nope"] * MAX_GAMES + [b"sanjuan"])).games == ()
    assert heard(games=b"\xff\xfe").games == ()


def test_the_address_on_a_network_of_this_machine_is_dialled_first():
    networks = [ipaddress.IPv4Network("192.168.1.0/24")]
    f = heard(addresses=("172.17.0.1", "192.168.1.20"), networks=networks)
    assert f.url == "ws://192.168.1.20:8765"
    # None of them near: the first IPv4 address.
    assert heard(addresses=("fe80::1", "10.0.0.5", "10.0.0.6")).url == "ws://10.0.0.5:8765"


def test_shortened():
    assert shortened("  a \x1b b  ", 10) == "a b"
    assert shortened("abcdef", 4) == "abc…"


def test_a_bot_seat_needs_an_address(capsys):
    assert main(["join", "--bot", "random", "--no-input"]) == 2
    err = capsys.readouterr().err
    assert "--bot needs the server's address" in err and "Traceback" not in err


@pytest.mark.parametrize("seconds", ["0", "-1", "61", "abc", "nan", "inf"])
def test_listen_takes_a_sensible_number_of_seconds(seconds, capsys):
    with pytest.raises(SystemExit) as e:
        main(["join", "--listen", seconds])
    assert e.value.code == 2 and "--listen is 0.1 to 60 seconds" in capsys.readouterr().err


async def test_the_server_picked_takes_one_line_and_leaves_the_next_keys_to_the_lobby(monkeypatch, capsys):
    """`join` with no address reads the pick and stops reading: what is typed next (a name in the
    lobby's dialog) is the lobby's, and never waits, read by a thread left behind, to answer the
    table's first question."""
    from client import discover

    async def one_server(seconds):
        return [heard()], 0
    monkeypatch.setattr(discover, "listen", one_server)
    r, w = os.pipe()
    os.write(w, b"1\nBo\n")
    os.close(w)
    stream = os.fdopen(r, "r")
    monkeypatch.setattr(sys, "stdin", stream)
    assert await discover.choose_server(0.1) == "ws://192.168.1.20:8765"
    await asyncio.sleep(0.3)          # a reader left behind would have taken the next line by now
    assert stream.readline() == "Bo\n"
    assert "1. Ana's San Juan  ws://192.168.1.20:8765" in capsys.readouterr().out


def test_the_announcement_names_the_servers_key():
    assert heard(key=b"ab12:cd34").fingerprint == "ab12:cd34"
    assert heard().fingerprint == ""
