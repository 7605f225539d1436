"""Finding a game on the local network: `governor join` with no address listens for a moment to
the servers that announce themselves (server/announce.py), lists them, and the person picks one.

Anyone on the network can announce anything, so what is heard is a stranger's data: at most
MAX_HEARD names are remembered and MAX_ASKED of them asked about, MAX_LISTED servers are listed,
names lose their control characters and are cut short before they are shown, and a server is
listed only when its address passes the same check as one typed on the command line
(client/session.py). A flood of names cannot hide a real server: a server answers with its name,
address and TXT record together, and those complete answers are listed whatever else was heard.

Nor can anyone's name be trusted: a stranger may announce the name of a friend's server (whose
own announcement then gets "-2"), and relay it. So each server is listed with its key's
fingerprint, the key announced under each name is remembered (client/session.py), and the
listing says so when two servers announce one name, when a name announces another key than
before, and when a name or key heard with wss:// before now announces ws://. The server picked
must then show the key it announced (join.py), or the client does not join it.
"""
from __future__ import annotations

import argparse
import asyncio
import datetime
import ipaddress
import re
from dataclasses import dataclass, replace
from pathlib import Path

import ifaddr
from zeroconf import Error as ZeroconfError, IPVersion, ServiceStateChange
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

import games
from protocol import wire
from protocol.messages import printable
from server.announce import SERVICE

from .answers import QUIT_WORDS, number_in
from .errors import ClientError
from .hints import command
from .render import plural, short_key
from .session import Announced, keep_announced, read_announced, server_address
from .terminal import ask_once

LISTEN_SECONDS = 2.0     # how long `join` listens by default: servers answer a query at once
RESOLVE_MS = 1000        # then how long it waits for a server's address and TXT record, if not heard yet
MAX_HEARD = 10_000       # names remembered (a flood of them is cut here; zeroconf holds them too)
MAX_ASKED = 16           # names heard without their address and TXT record, asked about
MAX_LISTED = 20          # servers listed, by name
NAME_CHARS = 40          # a server's name as listed
MAX_GAMES = 8            # game ids read from one announcement


@dataclass(frozen=True)
class Found:
    """A server heard on the network that this client can join."""
    name: str                 # as announced, printable and at most NAME_CHARS long
    url: str                  # checked as a typed address is
    games: tuple[str, ...]    # the titles of the games it offers that this client has
    fingerprint: str = ""     # its key's, as announced (a claim: the welcome proves the key)

    @property
    def tls(self) -> bool:
        return self.url.startswith("wss://")

    def describe(self) -> str:
        offered = f"  ({', '.join(self.games)})" if self.games else ""
        return f"{self.name}  key {short_key(self.fingerprint)}  {self.url}{offered}"


def _same_name(name: str) -> str:
    """What a name is compared by: case aside, and without the "-2" that multicast DNS gives a
    server whose name another had taken first."""
    return re.sub(r"-\d+$", "", name).casefold()


def warnings(servers: list[Found], remembered: dict[str, Announced]) -> list[str]:
    """What the listing of `servers` (numbered from 1) must say: names announced by more than one
    server, and names announcing another key, or ws:// where wss:// was heard, than before."""
    out = []
    groups: dict[str, list[int]] = {}
    for i, s in enumerate(servers, 1):
        groups.setdefault(_same_name(s.name), []).append(i)
    for numbers in groups.values():
        if len(numbers) > 1:
            which = ", ".join(f"{i}. {servers[i - 1].name} key {short_key(servers[i - 1].fingerprint)}" for i in numbers)
            out.append(f"{len(numbers)} servers announce the same name ({which}): one may be a stranger's "
                       "using another's name. Ask the host which key their server shows.")
    for i, s in enumerate(servers, 1):
        before = remembered.get(s.name)
        if before is not None and before.key != s.fingerprint:
            out.append(f"{i}. {s.name} announced a different key than on {before.since} (key "
                       f"{short_key(before.key)}, now {short_key(s.fingerprint)}): it may not be the same server.")
        if not s.tls and any(a.tls and (name == s.name or (s.fingerprint and a.key == s.fingerprint))
                             for name, a in remembered.items()):
            out.append(f"{i}. {s.name} was announced with wss:// (encrypted) before and now with ws://: "
                       "what you send it and are sent, your cards too, would travel in clear. It may not be the same "
                       "server.")
    return out


def heard_now(remembered: dict[str, Announced], servers: list[Found], today: str) -> dict[str, Announced]:
    """What to remember once `servers` were heard: a new name with its key; a name heard again with
    the same key, when, and whether with wss://. A name that announces another key keeps the key
    it had (the warning stays until the person joins the server: joined), and names announced
    by more than one server are not learnt from this listing."""
    out = dict(remembered)
    counts: dict[str, int] = {}
    for s in servers:
        counts[_same_name(s.name)] = counts.get(_same_name(s.name), 0) + 1
    for s in servers:
        before = out.get(s.name)
        if before is None:
            if counts[_same_name(s.name)] == 1:
                out[s.name] = Announced(s.fingerprint, today, today, s.tls)
        elif before.key == s.fingerprint:
            out[s.name] = replace(before, seen=today, tls=before.tls or s.tls)
        else:
            out[s.name] = replace(before, seen=today)
    return out


def joined(remembered: dict[str, Announced], server: Found, today: str) -> dict[str, Announced]:
    """What to remember once the person joined `server` and its welcome showed the key announced:
    that key under its name, whatever was remembered before."""
    before = remembered.get(server.name)
    same = before is not None and before.key == server.fingerprint
    out = dict(remembered)
    out[server.name] = Announced(server.fingerprint, before.since if same else today, today,
                                 server.tls or (same and before.tls))
    return out


def today() -> str:
    return datetime.date.today().isoformat()


def shortened(text: str, limit: int) -> str:
    """A stranger's text as it may be shown: no control characters, at most `limit` long."""
    text = " ".join(printable(text).split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def found(name: str, addresses: list[str], port, txt: dict, networks=()) -> Found | None:
    """One announcement (its instance name, addresses, port and TXT record) as a server to list,
    or None when this client cannot join it: another protocol version, no address, or an
    address, port, scheme or path that is no server address. `networks`: this machine's, where
    an address is dialled first."""
    def field(key: str) -> str:
        value = txt.get(key.encode())
        return value.decode("utf-8", "replace")[:100] if isinstance(value, bytes) else ""

    if field("proto") != wire.VERSION or type(port) is not int:
        return None
    address = dialled(addresses, networks)
    if address is None:
        return None
    try:
        url = server_address(f"{field('scheme')}://{address}:{port}{field('path')}")
    except argparse.ArgumentTypeError:
        return None
    ids = field("games").split(",")[:MAX_GAMES]
    titles = tuple(dict.fromkeys(games.GAMES[g].INFO.title for g in ids if g in games.GAMES))
    return Found(shortened(name.removesuffix("." + SERVICE), NAME_CHARS) or "(no name)", url, titles,
                 shortened(field("key"), NAME_CHARS))


def dialled(addresses: list[str], networks) -> str | None:
    """The IPv4 address to dial: the first on one of `networks`, else the first; None if none is
    an IPv4 address."""
    ips = []
    for a in addresses[:MAX_HEARD]:
        try:
            ips.append(ipaddress.IPv4Address(a))
        except ValueError:
            continue
    near = [ip for ip in ips if any(ip in net for net in networks)]
    return str((near or ips)[0]) if ips else None


def local_networks() -> list[ipaddress.IPv4Network]:
    """The IPv4 networks this machine is on."""
    return [ipaddress.IPv4Network(f"{ip.ip}/{ip.network_prefix}", strict=False)
            for adapter in ifaddr.get_adapters() for ip in adapter.ips if ip.is_IPv4]


async def listen(seconds: float) -> tuple[list[Found], int]:
    """The servers heard within `seconds` that this client can join, by name, and how many other
    announcements were heard."""
    try:
        zeroconf = AsyncZeroconf(ip_version=IPVersion.V4Only)
    except (OSError, ZeroconfError) as e:
        raise ClientError("no_multicast", f"cannot listen on the local network: {e}") from None
    heard: list[str] = []

    def on_change(zeroconf, service_type: str, name: str, state_change: ServiceStateChange) -> None:
        if state_change is ServiceStateChange.Added and name not in heard and len(heard) < MAX_HEARD:
            heard.append(name)

    browser = AsyncServiceBrowser(zeroconf.zeroconf, SERVICE, handlers=[on_change])
    try:
        await asyncio.sleep(seconds)
        infos = await _resolved(zeroconf, heard)
    finally:
        await browser.async_cancel()
        await zeroconf.async_close()
    networks = local_networks()
    servers = [f for info in infos
               if (f := found(info.name, info.parsed_addresses(), info.port, info.properties, networks))]
    servers = sorted(servers, key=lambda f: (f.name.casefold(), f.url))[:MAX_LISTED]
    return servers, len(heard) - len(servers)


async def _resolved(zeroconf: AsyncZeroconf, names: list[str]) -> list[AsyncServiceInfo]:
    """The announcements among `names` whose address, port and TXT record are known: heard with
    the name, as a server sends them, or else asked about (at most MAX_ASKED of them)."""
    known, unknown = [], []
    for name in names:
        try:
            info = AsyncServiceInfo(SERVICE, name)
        except ZeroconfError:       # a name zeroconf refuses: one with control characters, say
            continue
        (known if info.load_from_cache(zeroconf.zeroconf) else unknown).append(info)
    asked = unknown[:MAX_ASKED]
    answered = await asyncio.gather(*(info.async_request(zeroconf.zeroconf, RESOLVE_MS) for info in asked))
    return known + [info for info, ok in zip(asked, answered) if ok]


async def addresses_of(fingerprint: str, seconds: float = LISTEN_SECONDS) -> list[str]:
    """The addresses of the servers heard on the network that announce this key's fingerprint:
    where a server that moved (a `governor play` started again on another port) is now. An
    announcement is anyone's claim; the welcome there proves the key (client/seat.py checks it)."""
    try:
        servers, _ = await listen(seconds)
    except ClientError:
        return []        # no multicast here: nothing to find
    return [s.url for s in servers if fingerprint and s.fingerprint == fingerprint]


async def choose_server(seconds: float, data_dir: Path, read=ask_once) -> Found | None:
    """The server the person picks among those heard; None to quit. What was heard is remembered
    in `data_dir`. Each answer is read by `read(prompt)`, which reads one line and stops reading:
    the keys typed next are the lobby's, on the full screen, and no thread left reading takes them."""
    while True:
        print(f"Listening for Governor servers on the local network ({seconds:g} s)...")
        servers, others = await listen(seconds)
        remembered = read_announced(data_dir)
        if servers:
            print("Servers on this network:")
            for i, s in enumerate(servers, 1):
                print(f"  {i:>2}. {s.describe()}")
            for warning in warnings(servers, remembered):
                print(f"  ! {warning}")
            keep_announced(data_dir, heard_now(remembered, servers, today()))
        else:
            print("No Governor server answered.")
        if others:
            print(f"({plural(others, 'other announcement')} heard and not listed: another version, "
                  f"no usable address, or more than {MAX_LISTED}.)")
        print(("Type a number to join that server, " if servers else "")
              + f"Enter to listen again, q to quit (or give an address: {command('join', 'ws://HOST:PORT')}).")
        while True:
            choice = (await read("server> ")).strip().lower()
            if choice in QUIT_WORDS:
                return None
            if choice == "":
                break
            picked = number_in(choice, 1, len(servers))
            if picked is not None:
                return servers[picked - 1]
            print(f"{shortened(choice, 20)!r} is not one of the choices.")
