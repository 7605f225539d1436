"""What `governor join` makes of the announcements it hears (client/discover.py): a stranger's
data, listed only when it is a server this client can join, and never shown with control
characters or at any length. The announcements heard over a real network are tested in
test_lan.py."""
import asyncio
import json
import ipaddress
import os
import sys

import pytest

from client import discover
from client.cli import main
from client.errors import ClientError
from client.session import read_announced
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
    assert f.describe() == "Ana's San Juan  key (none)  ws://192.168.1.20:8765  (San Juan, Puerto Rico)"
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


async def test_the_server_picked_takes_one_line_and_leaves_the_next_keys_to_the_lobby(monkeypatch, capsys, tmp_path):
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
    assert (await discover.choose_server(0.1, tmp_path)).url == "ws://192.168.1.20:8765"
    await asyncio.sleep(0.3)          # a reader left behind would have taken the next line by now
    assert stream.readline() == "Bo\n"
    assert "1. Ana's San Juan  key (none)  ws://192.168.1.20:8765" in capsys.readouterr().out


def test_the_announcement_names_the_servers_key():
    assert heard(key=b"ab12:cd34").fingerprint == "ab12:cd34"
    assert heard().fingerprint == ""


# --- keys: who is behind a name -------------------------------------------------------------

KEY_A = "ab12:cd34:ef56:7890:1111:2222:3333:4444"
KEY_B = "ff00:ee11:dd22:cc33:1111:2222:3333:4444"     # the same last groups: only the first are listed


async def listing(monkeypatch, capsys, data_dir, *servers, answer="q") -> tuple[str, object]:
    """`join`'s listing of these servers (as announced) with data_dir's memory, and what was picked."""
    from client import discover

    async def these(seconds):
        return list(servers), 0

    async def read(prompt):
        return answer
    monkeypatch.setattr(discover, "listen", these)
    picked = await discover.choose_server(0.1, data_dir, read=read)
    return capsys.readouterr().out, picked


def test_each_server_is_listed_with_the_first_groups_of_its_key():
    f = heard(key=KEY_A.encode())
    assert f.describe() == "Ana's San Juan  key ab12:cd34:ef56:7890  ws://192.168.1.20:8765  (San Juan, Puerto Rico)"


async def test_a_name_is_remembered_with_its_key_and_another_key_under_it_is_warned_of(monkeypatch, capsys, tmp_path):
    from client.discover import today
    out, _ = await listing(monkeypatch, capsys, tmp_path, heard(key=KEY_A.encode()))
    assert "!" not in out
    assert read_announced(tmp_path)["Ana's San Juan"].key == KEY_A
    out, _ = await listing(monkeypatch, capsys, tmp_path, heard(key=KEY_B.encode(), addresses=("192.168.1.66",)))
    assert "1. Ana's San Juan  key ff00:ee11:dd22:cc33  ws://192.168.1.66:8765" in out
    assert (f"! 1. Ana's San Juan announced a different key than on {today()} (key ab12:cd34:ef56:7890, now "
            "ff00:ee11:dd22:cc33): it may not be the same server.") in out
    # The key first heard stays remembered: the stranger's is warned of every time it is heard.
    assert read_announced(tmp_path)["Ana's San Juan"].key == KEY_A
    out, _ = await listing(monkeypatch, capsys, tmp_path, heard(key=KEY_B.encode()))
    assert "announced a different key" in out
    out, _ = await listing(monkeypatch, capsys, tmp_path, heard(key=KEY_A.encode()))
    assert "!" not in out


async def test_two_servers_announcing_one_name_are_both_listed_and_the_collision_said(monkeypatch, capsys, tmp_path):
    squatter = heard(key=KEY_B.encode(), addresses=("192.168.1.66",))
    real = heard(name="Ana's San Juan-2", key=KEY_A.encode())
    out, picked = await listing(monkeypatch, capsys, tmp_path, squatter, real, answer="2")
    assert "1. Ana's San Juan  key ff00:ee11:dd22:cc33  ws://192.168.1.66:8765" in out
    assert "2. Ana's San Juan-2  key ab12:cd34:ef56:7890  ws://192.168.1.20:8765" in out
    assert ("! 2 servers announce the same name (1. Ana's San Juan key ff00:ee11:dd22:cc33, 2. Ana's San Juan-2 "
            "key ab12:cd34:ef56:7890): one may be a stranger's using another's name.") in out
    assert picked == real
    assert read_announced(tmp_path) == {}      # neither is learnt while both are heard


@pytest.mark.parametrize("later", [heard(key=KEY_A.encode()),                                # the same name and key
                                   heard(name="Bo's table", key=KEY_A.encode()),           # the key, another name
                                   heard(key=KEY_B.encode())])                              # the name, another key
async def test_ws_where_wss_was_heard_before_is_flagged(monkeypatch, capsys, tmp_path, later):
    out, _ = await listing(monkeypatch, capsys, tmp_path, heard(key=KEY_A.encode(), scheme=b"wss"))
    assert "!" not in out
    out, _ = await listing(monkeypatch, capsys, tmp_path, later)
    assert (f"! 1. {later.name} was announced with wss:// (encrypted) before and now with ws://: what you send it "
            "and are sent, your cards too, would travel in clear.") in out


async def test_wss_heard_again_is_not_flagged(monkeypatch, capsys, tmp_path):
    await listing(monkeypatch, capsys, tmp_path, heard(key=KEY_A.encode(), scheme=b"wss"))
    out, _ = await listing(monkeypatch, capsys, tmp_path, heard(key=KEY_A.encode(), scheme=b"wss"))
    assert "!" not in out


class FakeLink:
    def __init__(self, key: str) -> None:
        self.welcome = {"server": key}
        self.closed = False

    async def close(self) -> None:
        self.closed = True


async def test_the_server_picked_must_show_the_key_it_announced(tmp_path):
    from client.errors import ClientError
    from client.join import check_announced_key
    picked = heard(key=KEY_A.encode())
    link = FakeLink(KEY_B)
    with pytest.raises(ClientError) as e:
        await check_announced_key(link, picked, tmp_path)
    assert link.closed
    assert (f"Ana's San Juan announced the key {KEY_A}, but the server at ws://192.168.1.20:8765 has the key "
            f"{KEY_B}: it is not the server announced, so this client does not join it.") in str(e.value)
    assert read_announced(tmp_path) == {}
    with pytest.raises(ClientError, match="announced the key \\(none\\)"):
        await check_announced_key(FakeLink(KEY_B), heard(), tmp_path)


async def test_joining_the_server_announced_remembers_its_key_under_its_name(monkeypatch, capsys, tmp_path):
    from client.join import check_announced_key
    await listing(monkeypatch, capsys, tmp_path, heard(key=KEY_A.encode()))
    picked = heard(key=KEY_B.encode())          # the host made a new key, and says so
    link = FakeLink(KEY_B)
    await check_announced_key(link, picked, tmp_path)
    assert not link.closed and read_announced(tmp_path)["Ana's San Juan"].key == KEY_B
    out, _ = await listing(monkeypatch, capsys, tmp_path, picked)
    assert "!" not in out


def test_a_damaged_memory_of_names_is_nothing_remembered(tmp_path):
    (tmp_path / "announced.json").write_text('{"Ana": {"key": 5}, "Bo": "x"')
    assert read_announced(tmp_path) == {}
    (tmp_path / "announced.json").write_text('{"Ana": {"key": 5}, "Bo": {"key": "k", "since": "d", "seen": "d", "tls": false}}')
    assert list(read_announced(tmp_path)) == ["Bo"]


async def test_a_machine_that_cannot_listen_on_the_network_is_told_so(monkeypatch):
    def no_multicast(*args, **kw):
        raise OSError(19, "No such device")
    monkeypatch.setattr(discover, "AsyncZeroconf", no_multicast)
    with pytest.raises(ClientError) as refused:
        await discover.listen(0.1)
    assert refused.value.code == "no_multicast" and "cannot listen on the local network" in str(refused.value)
    assert await discover.addresses_of("aa:bb", 0.1) == []      # a seat looking for its server goes on


@pytest.mark.parametrize("damage, kept", [(b'{"Ana\'s San Juan": {"key": ', set()),
                                          (b'["a list"]', set()),
                                          (None, {"Bo's table"})])
async def test_a_damaged_memory_of_keys_is_set_aside_and_the_user_told(monkeypatch, capsys, tmp_path, damage, kept):
    """Not overwritten in silence: the file is renamed beside itself, stderr says what is lost,
    and what could be read of it is still remembered."""
    from client.session import ANNOUNCED_FILE
    path = tmp_path / ANNOUNCED_FILE
    if damage is None:          # one good name, one whose key is a number
        path.write_text(json.dumps({"Bo's table": {"key": KEY_A, "since": "2025-01-01", "seen": "2025-01-02",
                                                   "tls": False},
                                    "Ana's San Juan": {"key": 5, "since": "2025-01-01", "seen": "2025-01-02",
                                                       "tls": False}}))
    else:
        path.write_bytes(damage)
    before = path.read_bytes()
    assert set(read_announced(tmp_path)) == kept
    err = capsys.readouterr().err
    aside = [p for p in tmp_path.iterdir() if p.name.startswith(f"{ANNOUNCED_FILE}.damaged-")]
    assert len(aside) == 1 and aside[0].read_bytes() == before
    assert set(read_announced(tmp_path)) == kept and not capsys.readouterr().err   # what was read, kept whole
    assert f"in {path}, are damaged" in err and f"it is kept as {aside[0]}" in err
    out, _ = await listing(monkeypatch, capsys, tmp_path, heard(key=KEY_B.encode()))
    assert set(read_announced(tmp_path)) == kept | {"Ana's San Juan"}
    assert not capsys.readouterr().err          # the file written anew reads whole
