"""Every file the client reads or writes, and nothing else does: the client data directory, the
saved seat (`SeatSession`: token, secret seed, and every signed message received, so a killed
client resumes its seat; found by its server's key and table), the match records written when a
match ends (and read by `governor verify`), the certificates trusted with --cafile, the operator
key of `governor admin`, the keys servers announced on the local network under each name, and
the scratch folder of the server that `governor play` runs
in-process, with the port its host had last."""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import stat
import sys
import tempfile
import time
import urllib.parse
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import msgpack

from games.errors import Refused
from protocol import record
from protocol.codec import pack, unpacker
from protocol.messages import Signed
from protocol.shown import Shown, Step, step_from_list
from protocol.signing import PLAYER_KEY_FILE, Signer, load_or_create


def default_data_dir() -> Path:
    """$GOVERNOR_DATA, else ~/.local/share/governor/client."""
    env = os.environ.get("GOVERNOR_DATA")
    return Path(env).expanduser() if env else Path.home() / ".local" / "share" / "governor" / "client"


def normalize_url(url: str) -> str:
    """The one spelling of a server address ("host:port/" -> "ws://host:port"). It lives here
    because a saved seat is found by it: the same server typed another way finds the same seat."""
    url = url.strip()
    if "://" not in url:
        url = "ws://" + url
    return url.rstrip("/")


def server_address(text: str) -> str:
    """A server address as typed, checked and in its one spelling (argparse type of `join` and
    `watch`): ws:// or wss://, a host, a port from 1 to 65535. Raises ArgumentTypeError saying
    what is wrong, never letting a malformed address reach the network code."""
    shown = text if len(text) <= 60 else text[:57] + "..."
    how = "use ws://HOST:PORT, e.g. ws://192.168.1.20:8765 (wss:// for a server with TLS)"
    url = normalize_url(text) if text.strip() not in ("", "ws://", "wss://") else ""
    try:
        parts = urllib.parse.urlsplit(url)
        port = parts.port
    except ValueError as e:       # "Port out of range", "Invalid IPv6 URL", a port not a number
        why = str(e).replace("Port could not be cast to integer value as", "the port is not a number:") \
            .replace("Port out of range 0-65535", "a port is a number from 1 to 65535") \
            .replace("Invalid IPv6 URL", "an IPv6 address in [brackets] is not closed")
        raise argparse.ArgumentTypeError(f"{shown!r} is not a server address ({why}): {how}") from None
    if parts.scheme not in ("ws", "wss") or not parts.hostname or not text.isprintable() \
            or any(c.isspace() for c in url):
        raise argparse.ArgumentTypeError(f"{shown!r} is not a server address: {how}")
    if len(parts.hostname) > 253:      # the longest name DNS can carry
        raise argparse.ArgumentTypeError(f"{shown!r} is not a server address (the host name is too long): {how}")
    if port == 0:     # no port at all is the scheme's own (80, or 443 for wss://): it may be right
        raise argparse.ArgumentTypeError(f"{shown!r}: port 0 is no server's port: {how}")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise argparse.ArgumentTypeError(f"{shown!r} has more than a host and a port: {how}")
    return url


def player_key(data_dir: Path) -> Signer:
    """The player's long-term Ed25519 key, `player_key.pem` in the data folder, made on first use
    (the file 0600, the folder 0700). Every seat this client takes is this key's."""
    _private_dir(Path(data_dir))
    return load_or_create(data_dir, PLAYER_KEY_FILE)


def player_key_path(data_dir: Path) -> tuple[Path, bool]:
    """Where the player key of a data folder is kept, and whether it is there yet."""
    path = Path(data_dir) / PLAYER_KEY_FILE
    return path, path.exists()


def _private_dir(path: Path) -> Path:
    """A directory only we can read (tightened if it exists): it holds the player key, the
    sessions secret seeds, the records every card dealt to our seat."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    path.chmod(0o700)
    return path


def _write_json(path: Path, data: dict) -> None:
    """Write through a temporary file and rename it: a kill mid-write leaves the old file whole."""
    record.write_private(path, json.dumps(data, indent=1, sort_keys=True).encode())


@dataclass
class SeatSession:
    """A seat at a table of a server, as saved in the client data directory.

    `<data>/sessions/<key>.json` holds url, table, seat, player id, our seed and, for a blind
    table, our deal seed (docs/fairness.md §10: each secret until revealed, so the file is 0600),
    the next command id, the server key seen, the
addresses of the other processes of the server's cluster (to come back through when the one at
url is gone, by a client started again too); the
    signed messages received are appended to `<key>.msgs` in the record format as they arrive,
    and the game's log as it was shown, one event a line in JSON, to `<key>.log`: a move's entry
    signs only a digest of its public events, not their words, so a client started again shows
    the whole game's log from here (the server's snapshot carries only the latest events); and
    what was shown, one step per view applied (protocol.shown), to `<key>.shown`, for the audit.
    """
    data_dir: Path
    url: str
    table: str
    seat: int
    player_id: str
    name: str
    seed: bytes
    server_key: bytes | None = None
    # the secret our deal key, shuffle steps and shares derive from on a blind table; made when
    # the seat is taken (a seat saved by an older client gets one when its table turns out blind)
    deal_seed: bytes | None = None
    next_id: int = 1
    finished: bool = False
    committed: bool = False               # we sent our commitment: nobody may replace it
    seed_made_by_server: bool = False     # the server said so: our own seed is not in this deal
    messages: list[Signed] = field(default_factory=list)
    log: list[dict] = field(default_factory=list)    # the events shown at this seat, in order
    steps: list[Step] = field(default_factory=list)  # what was shown, as digests (protocol.shown)
    cluster: list[str] = field(default_factory=list)  # the server's processes, as its welcomes named them
    # `.shown` was found damaged after this many steps: those past them are lost (protocol.shown)
    shown_unreadable_after: int | None = None

    @staticmethod
    def key(server_key: bytes | None, table: str, url: str = "") -> str:
        """The name of a seat's files: by the server's key and the table, not by its address, so
        that a server found again at another address (a `governor play` started again on another
        port) has the same seat; a seat saved without the key is named by its address."""
        what = server_key.hex() if server_key else normalize_url(url)
        return hashlib.sha256(f"{what}\0{table}".encode()).hexdigest()[:20]

    @property
    def player(self) -> Signer:
        """The player key of this client's data folder: the seat is its (docs/fairness.md §9)."""
        return player_key(self.data_dir)

    @property
    def path(self) -> Path:
        return self.data_dir / "sessions" / f"{self.key(self.server_key, self.table, self.url)}.json"

    @property
    def msgs_path(self) -> Path:
        return self.path.with_suffix(".msgs")

    @property
    def log_path(self) -> Path:
        return self.path.with_suffix(".log")

    @property
    def shown_path(self) -> Path:
        return self.path.with_suffix(".shown")

    def save(self) -> None:
        _private_dir(self.data_dir)
        _private_dir(self.path.parent)
        _write_json(self.path, {
            "url": self.url, "table": self.table, "seat": self.seat,
            "player_id": self.player_id, "name": self.name, "seed": self.seed.hex(),
            "deal_seed": self.deal_seed.hex() if self.deal_seed else None,
            "server_key": self.server_key.hex() if self.server_key else None,
            "next_id": self.next_id, "finished": self.finished, "committed": self.committed,
            "seed_made_by_server": self.seed_made_by_server, "cluster": self.cluster,
            "shown_unreadable_after": self.shown_unreadable_after,
        })
        if not self.msgs_path.exists():
            record.write_private(self.msgs_path, record.MAGIC + b"".join(record.dump_item(m) for m in self.messages))
        if not self.log_path.exists():
            record.write_private(self.log_path, "".join(_log_line(e) for e in self.log).encode())
        if not self.shown_path.exists():
            record.write_private(self.shown_path, b"".join(pack(s.as_list()) for s in self.steps))

    def append(self, msg: Signed) -> None:
        """Keep one more signed message, on disk at once (one write: a kill leaves it whole or
        absent, and a torn tail is dropped on load)."""
        self.messages.append(msg)
        if not self.msgs_path.exists():
            self.save()
            return
        with open(self.msgs_path, "ab") as f:
            f.write(record.dump_item(msg))

    def append_events(self, events: list[dict]) -> None:
        """Keep more lines of the log, on disk at once (a torn last line is dropped on load)."""
        self.log.extend(events)
        if not self.log_path.exists():
            self.save()
            return
        with open(self.log_path, "a") as f:
            f.write("".join(_log_line(e) for e in events))

    def append_step(self, step: Step) -> None:
        """Keep what one more view update showed, on disk at once (a torn tail is dropped on load)."""
        self.steps.append(step)
        if not self.shown_path.exists():
            self.save()
            return
        with open(self.shown_path, "ab") as f:
            f.write(pack(step.as_list()))

    def take_id(self) -> int:
        """A command id never used before by this seat, even across restarts of the process."""
        n = self.next_id
        self.next_id += 1
        self.save()
        return n

    @classmethod
    def load(cls, path: Path) -> "SeatSession":
        data = json.loads(path.read_text())
        s = cls(data_dir=path.parent.parent, url=data["url"], table=data["table"], seat=data["seat"],
                player_id=data["player_id"], name=data.get("name", ""),
                seed=bytes.fromhex(data["seed"]),
                deal_seed=bytes.fromhex(data["deal_seed"]) if data.get("deal_seed") else None,
                server_key=bytes.fromhex(data["server_key"]) if data.get("server_key") else None,
                next_id=data.get("next_id", 1), finished=data.get("finished", False),
                committed=data.get("committed", False), seed_made_by_server=data.get("seed_made_by_server", False),
                cluster=[u for u in data.get("cluster", []) if isinstance(u, str)],
                shown_unreadable_after=data.get("shown_unreadable_after"))
        if s.shown_unreadable_after is not None and type(s.shown_unreadable_after) is not int:
            raise ValueError(f"{path}: shown_unreadable_after is not a number")
        if path != s.path and not s.path.exists():
            # saved by a client that named seats by their address: named by the server's key now
            for old, new in zip((path, path.with_suffix(".msgs"), path.with_suffix(".log"), path.with_suffix(".shown")),
                                (s.path, s.msgs_path, s.log_path, s.shown_path)):
                if old.exists():
                    old.replace(new)
        s.messages = _read_messages(s.msgs_path)
        s.log = _read_log(s.log_path)
        s.steps, damaged = _read_steps(s.shown_path)
        if damaged:     # said by the audit at the end (and kept: the damage is cut off the file now)
            s.shown_unreadable_after = min(len(s.steps), s.shown_unreadable_after or len(s.steps))
            s.save()
        return s

    @classmethod
    def find(cls, data_dir: Path, table: str, *, server_key: bytes | None = None,
             url: str | None = None) -> "SeatSession | None":
        """The saved seat at `table` of the server with this key, or else of the server last
        reached at `url` (its address when saved, or one of its cluster's)."""
        for s in cls.unfinished(data_dir, server_key):
            if s.table == table and (server_key is not None or url is None or s.reached_at(url)):
                return s
        return None

    def reached_at(self, url: str) -> bool:
        """Whether the seat's server was last reached at `url`, or named it as one of its cluster's."""
        return normalize_url(url) in [normalize_url(u) for u in (self.url, *self.cluster)]

    def moved_to(self, url: str) -> "SeatSession":
        """This seat, its server now at `url` (a `governor play` started again may have another
        port; a friend's client found it by its key): saved with its new address."""
        if normalize_url(url) != normalize_url(self.url):
            self.url = normalize_url(url)
            self.save()
        return self

    @classmethod
    def unfinished(cls, data_dir: Path, server_key: bytes | None = None) -> list["SeatSession"]:
        """Saved seats (at the server with this key, or at any) whose match we have not seen end,
        newest first."""
        folder = Path(data_dir) / "sessions"
        out = []
        for path in sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True) \
                if folder.exists() else []:
            try:
                s = cls.load(path)
            except (OSError, ValueError, KeyError, record.RecordError):
                continue
            if not s.finished and (server_key is None or s.server_key == server_key):
                out.append(s)
        return out

    @property
    def saved(self) -> bool:
        """The seat is still on disk (leaving before the match began gives it back)."""
        return self.path.exists()

    def forget(self) -> None:
        for p in (self.path, self.msgs_path, self.log_path, self.shown_path):
            try:
                p.unlink()
            except FileNotFoundError:
                pass


def _log_line(event: dict) -> str:
    return json.dumps(event) + "\n"


def _read_log(path: Path) -> list[dict]:
    """The log lines of a session file; a line that is not a whole event (a torn last line, a
    damaged file) is skipped: the log is for reading, the signed messages are the evidence."""
    try:
        lines = path.read_text(errors="replace").splitlines()
    except FileNotFoundError:
        return []
    out = []
    for line in lines:
        try:
            e = json.loads(line)
        except ValueError:
            continue
        if isinstance(e, dict) and isinstance(e.get("text"), str):
            out.append(e)
    return out


def _read_steps(path: Path) -> tuple[list[Step], bool]:
    """The steps of what was shown, and whether the file is damaged after them. A torn last step
    (killed mid-write) is no damage: it was never shown whole. Either is cut off the file, so
    that the steps shown next are appended where they can be read."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return [], False
    reader = unpacker(record.MAX_RECORD)
    reader.feed(data)
    out: list[Step] = []
    good, damaged = 0, False
    try:
        for raw in reader:
            out.append(step_from_list(raw, len(out)))
            good = reader.tell()
    except (ValueError, msgpack.UnpackException, Refused):
        damaged = True
    if good != len(data):
        with open(path, "r+b") as f:
            f.truncate(good)
    return out, damaged


def _read_messages(path: Path) -> list[Signed]:
    """The signed messages of a session file; a torn last item (killed mid-write) is dropped."""
    if not path.exists():
        return []
    data = path.read_bytes()
    if record.MAGIC.startswith(data):
        # Torn as it was made (an older client killed right after it sat down wrote the file in
        # place): nothing was in it yet. Gone, it is made anew with the next message.
        path.unlink()
        return []
    if not data.startswith(record.MAGIC):
        raise record.RecordError("bad_record", f"{path} is not a message file")
    reader = unpacker(record.MAX_RECORD)
    reader.feed(data[len(record.MAGIC):])
    out: list[Signed] = []
    good = len(record.MAGIC)
    try:
        for raw in reader:
            out.append(record.parse_item(raw, len(out)))
            good = len(record.MAGIC) + reader.tell()
    except (ValueError, msgpack.UnpackException, Refused):   # RecordError, DecodeError: Refused
        pass     # a torn or damaged tail: keep what came before it
    if good != len(data):
        with open(path, "r+b") as f:
            f.truncate(good)
    return out


def save_record(data_dir: Path, items: list[Signed], game_id: bytes | None, kind: str = "",
                shown: Shown | None = None) -> Path:
    """Write a match's signed messages (and what this client was shown) to `<data>/records/`,
    named for people (record_name);
    another `kind` of record gets its own name, so that none overwrites the record of one's own
    seat: "public" (a spectator's, the public entries only) or "refused" (the evidence of a
    server caught out). The same match saved again (a resumed seat) replaces its file."""
    folder = _private_dir(_private_dir(Path(data_dir)) / "records")
    suffix = f"{'.' + kind if kind else ''}.govrec"
    if isinstance(game_id, bytes):
        short = game_id.hex()[:SHORT_ID]
        for old in folder.glob(f"*{short}{suffix}") if folder.exists() else []:
            if old.name.endswith(f"_{short}{suffix}") or old.name == f"{game_id.hex()}{suffix}":
                return write_record(old, items, shown)
    return write_record(folder / f"{record_name(items, game_id)}{suffix}", items, shown)


SHORT_ID = 8     # hex digits of the game id in a record's name: enough to tell one's records apart


def record_name(items: list[Signed], game_id: bytes | None, when: float | None = None) -> str:
    """A record's file name, without its suffix, as a person recognises it: the date and time it
    was saved, the game, the players and a short id, e.g. 2026-05-01_2114_sanjuan_Ana-Bo_1f3a9c2e."""
    stamp = time.strftime("%Y-%m-%d_%H%M", time.localtime(when))
    header = items[0].body if items and items[0].kind == "entry" else {}
    game = header.get("game") if isinstance(header.get("game"), str) else "match"
    seats = header.get("seats") if isinstance(header.get("seats"), list) else []
    names = [_file_word(s.get("name")) for s in seats if isinstance(s, dict)]
    short = game_id.hex()[:SHORT_ID] if isinstance(game_id, bytes) else f"{int(time.time())}"
    return "_".join([stamp, _file_word(game) or "match", "-".join(n for n in names if n)[:60] or "players", short])


def _file_word(text) -> str:
    """Letters and digits of a name, safe in any file system (names are anyone's choice)."""
    return "".join(c for c in str(text or "") if c.isascii() and c.isalnum())[:16]


def files_under(root: Path) -> list[Path]:
    """Every file in `root` and the folders in it, in one order on every machine (symbolic links
    to folders not followed: a loop would never end)."""
    out = []
    for top, dirs, files in os.walk(root, onerror=None, followlinks=False):
        dirs.sort()
        out += [Path(top) / f for f in files]
    return sorted(out)


def read_at_most(path: Path, limit: int) -> bytes | None:
    """At most `limit` bytes of a file; None for what is not a regular file (a pipe would never
    end, a device might not): opened without waiting, then looked at."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return f.read(limit)


def record_files(data_dir: Path) -> list[Path]:
    """The record files in the data folder, newest first."""
    folder = Path(data_dir) / "records"
    return sorted(folder.glob("*.govrec"), key=lambda p: p.stat().st_mtime, reverse=True) \
        if folder.is_dir() else []


def find_record(data_dir: Path, text: str, listing: str) -> Path:
    """The record a person means: a file, a number of the list `listing` (the command that
    prints it) shows, or part of a record's name (its short id, say). Raises LookupError with a
    sentence."""
    if Path(text).is_file():
        return Path(text)
    paths = record_files(data_dir)
    if not paths:
        raise LookupError(f"no file {text[:80]!r}, and no saved records in {Path(data_dir) / 'records'}")
    digits = text.strip().lstrip("0")
    if text.strip().isascii() and text.strip().isdigit() and len(digits) <= len(str(len(paths))) \
            and 1 <= int(digits or "0") <= len(paths):
        return paths[int(digits) - 1]
    named = [p for p in paths if text and text in p.name]
    if len(named) == 1:
        return named[0]
    if named:
        raise LookupError(f"{len(named)} records match {text[:80]!r}: give more of the name, or its "
                          f"number in `{listing}`")
    raise LookupError(f"no file {text[:80]!r}, and no saved record by that number or name: "
                      f"`{listing}` lists them")


def add_data_dir(p) -> None:
    """The --data-dir flag of the commands that read saved records."""
    p.add_argument("--data-dir", type=Path, default=None, metavar="FOLDER",
                   help="the data folder whose records/ to use (default $GOVERNOR_DATA or "
                        "~/.local/share/governor/client)")


def write_record(path: Path, items: list[Signed], shown: Shown | None = None) -> Path:
    """A record file at a path of the user's choosing (its folder is made if need be)."""
    return record.write(path, items, shown)


def read_record(path: str) -> tuple[list[Signed], Shown | None]:
    """The signed messages of a record file and what its client was shown (None when the file
    does not say); raises OSError or record.RecordError."""
    return record.read_all(path)


def read_cafile(path: str) -> str:
    """The PEM certificates of a --cafile, for the TLS library. PEM is ASCII; a bundle may have
    non-ASCII comments between its certificates, which the TLS library refuses in PEM text and
    which carry nothing, so they are left out."""
    return Path(path).read_bytes().decode("ascii", "ignore")


def read_operator_key(path: str) -> str:
    """The operator key in its file, read as the server reads it; ValueError says what is wrong."""
    from server.operator import read_key     # the server's code: not imported by every command
    return read_key(path)


ANNOUNCED_FILE = "announced.json"
MAX_ANNOUNCED = 200     # names remembered: the most recently heard (anyone can announce any name)


@dataclass(frozen=True)
class Announced:
    """What this client remembers of a name heard on the local network (client/discover.py)."""
    key: str           # the key fingerprint announced under it
    since: str         # the day it was first heard with that key (YYYY-MM-DD)
    seen: str          # the day it was last heard (which names are kept)
    tls: bool          # heard with wss:// under this name and key


def read_announced(data_dir: Path) -> dict[str, Announced]:
    """The names heard announced before, with what was heard of each. A file damaged in any part
    is set aside (renamed, for whoever wants to look at it) and the user told, on stderr, what is
    not remembered: a key that changed under one of the names it lost is not warned of. What it
    held that can be read is kept, written anew at once."""
    path = Path(data_dir) / ANNOUNCED_FILE
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        return {}
    except OSError as e:
        _set_aside(path, f"it cannot be read ({e.strerror or e})")
        return {}
    except ValueError as e:
        _set_aside(path, f"it is not JSON ({e})")
        return {}
    if not isinstance(data, dict):
        _set_aside(path, f"it holds a {type(data).__name__}, not a map of names")
        return {}
    out = {}
    for name, v in list(data.items())[:MAX_ANNOUNCED]:
        if isinstance(v, dict) and all(type(v.get(k)) is str for k in ("key", "since", "seen")) \
                and type(v.get("tls")) is bool:
            out[name] = Announced(v["key"], v["since"], v["seen"], v["tls"])
    if len(out) < min(len(data), MAX_ANNOUNCED):
        _set_aside(path, f"{min(len(data), MAX_ANNOUNCED) - len(out)} of its names are not a key, two days "
                         f"and a wss:// mark")
        keep_announced(data_dir, out)
    return out


def _set_aside(path: Path, why: str) -> None:
    aside = path.with_name(f"{path.name}.damaged-{time.strftime('%Y%m%d-%H%M%S')}")
    try:
        os.replace(path, aside)
        kept = f"it is kept as {aside}"
    except OSError as e:
        kept = f"it could not be set aside ({e.strerror or e})"
    print(f"governor: the keys heard on the local network, in {path}, are damaged: {why}; {kept}. Names it "
          f"held are remembered anew from now on: a key changed under one of them is not warned of this time.",
          file=sys.stderr, flush=True)


def keep_announced(data_dir: Path, heard: dict[str, Announced]) -> None:
    """Remember these names, the most recently heard MAX_ANNOUNCED of them."""
    kept = sorted(heard.items(), key=lambda kv: kv[1].seen, reverse=True)[:MAX_ANNOUNCED]
    _write_json(_private_dir(Path(data_dir)) / ANNOUNCED_FILE,
                {name: {"key": a.key, "since": a.since, "seen": a.seen, "tls": a.tls} for name, a in kept})


HOST_PORT_FILE = "lan-port"     # in `governor play`'s server folder: the port its host had last


def last_host_port(folder: Path) -> int | None:
    """The port `governor play`'s server had the last time it hosted from `folder`, if it says."""
    try:
        text = (Path(folder) / HOST_PORT_FILE).read_text().strip()
    except OSError:
        return None
    return int(text) if text.isascii() and text.isdigit() and 0 < int(text) < 65536 else None


def keep_host_port(folder: Path, port: int) -> None:
    """Remember the port a host's server has, to take it again next time (friends come back there)."""
    record.write_private(Path(folder) / HOST_PORT_FILE, f"{port}\n".encode())


@contextmanager
def server_folder(path: Path | None):
    """`path`, else a temporary folder removed at the end: where `governor play` keeps its
    server's data when its usual folder is taken by another `governor play`."""
    if path is not None:
        yield path
        return
    with tempfile.TemporaryDirectory(prefix="governor-play-") as tmp:
        yield Path(tmp)
