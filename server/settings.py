"""Everything `governor serve` takes, in one table: SETTINGS (the server's address, TLS, data,
logs, operator key) and Limits (every limit it enforces).

The command line (client/serve.py) and the config file (TOML, `serve --config FILE`) are both
read from these, so a setting is named, checked and documented once:

- a setting `name` is the flag `--name` (underscores as dashes) and the key `name` at the top of
  the file; a limit is `--limit NAME=VALUE` and the key `NAME` in the file's `[limits]` table;
- the flags win over the file, the file over the defaults;
- a value from the command line is text and is converted; a value from the file must already
  be of the setting's type (a port is a number, not a string), then both meet the same check.

A wrong name or value is a SettingsError whose message names the key and what was wrong.
"""
from __future__ import annotations

import dataclasses
import math
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from protocol import wire

from .proxies import networks


class SettingsError(ValueError):
    """A setting that cannot be used: the message names it and says why."""


@dataclass
class Limits:
    """Every limit the server enforces; all can be changed by keyword to Server(), with
    `--limit NAME=VALUE` or in the config file's [limits]."""
    max_frame: int = wire.MAX_FRAME       # bytes per client frame (websockets max_size)
    rate: float = 20.0                    # client messages per second per connection ...
    burst: int = 40                       # ... with this burst; over it: CLOSE_FLOODING
    conns_per_addr: int = 16              # open connections per IP address; over: CLOSE_TOO_MANY
    conn_rate: float = 2.0                # new connections a second per IP address ...
    conn_burst: int = 20                  # ... with this burst; over: cut before the handshake
    max_connections: int = 1000           # connections in all, counted from their first byte; over: cut at once
    max_tables: int = 100                 # tables waiting or playing at once
    tables_per_addr: int = 4              # of those, created from one IP address
    tables_per_net: int = 12              # of those, created from one IPv4 /24 or IPv6 /56
    tables_per_window: int = 10           # tables one IP address may create ...
    table_window: float = 600.0           # ... in any this many seconds
    watch_rate: float = 1.0               # watch requests a second per IP address ...
    watch_burst: int = 5                  # ... with this burst (a finished table is replayed to be watched)
    finished_cache: int = 64              # finished tables nobody is at, kept ready in memory
    outbox: int = 256                     # frames queued per connection before view updates are dropped
    inbox: int = 1024                     # commands queued per table before "busy"
    hello_timeout: float = 10.0           # seconds at least from a socket's accept to its hello (server/app.py _Counted)
    idle_table: float = 60.0              # a waiting table no person is at is closed after this many seconds
    waiting_table: float = 900.0          # a table still waiting for its players this long is closed, whoever is at it
    bot_seconds: float | None = None      # thinking time of searching bots (None: their default)
    bot_answer: float = 0.5               # seconds from a searching bot's question to its move at the
                                          # soonest, so that how long it thought tells nothing it saw
    turn_time: float = 300.0              # seconds a player may take over one decision (0: no clock)
    chat_rate: float = 1.0                # chat lines a second per connection ...
    chat_burst: int = 5                   # ... with this burst; over it: an error "slow_down"
    operator_failures: int = 5            # wrong operator keys one IP address may send ...
    operator_window: float = 600.0        # ... in any this many seconds; over: refused unread
    operator_failures_all: int = 50       # wrong operator keys from all addresses together, in that window
    lease: float = 8.0                    # seconds a table's lease lasts unrenewed (PostgreSQL: server/leases.py)


MIN_LEASE = 1.0     # seconds: a shorter lease would expire between two renewals of a busy process


@dataclass(frozen=True)
class Setting:
    name: str
    default: object
    kind: type                  # str, int, float or bool: what the file must hold, what text is turned
                                # into (a bool is a switch on the command line, --NAME or --no-NAME)
    help: str
    check: Callable[[object], str | None] = lambda value: None   # what is wrong with a value, or None
    path: bool = False          # a file or folder: `~` is expanded, and in the file it is relative to the file
    metavar: str | None = None
    show: Callable[[str], str] = str    # the value as an error message quotes it (a password hidden)


def _port(value: int) -> str | None:
    return None if 0 <= value <= 65535 else "a port is 0 to 65535 (0: any free port)"


def _grace(value: float) -> str | None:
    return None if 0 <= value <= 86400 else "the grace period is 0 to 86400 seconds"


def _url(value: str) -> str | None:
    return None if value.startswith(("ws://", "wss://")) else "a public address starts with ws:// or wss://"


def _database(value: str) -> str | None:
    if value == "sqlite" or value.startswith(("postgresql://", "postgres://")):
        return None
    return "the database is 'sqlite' (governor.db in the data directory) or a postgresql:// URL"


def redacted(url: str) -> str:
    """A database URL without its password (after the user name, or as `?password=`): fit for
    logs and error messages."""
    try:
        parts = urlsplit(url)
        netloc = parts.netloc
        if parts.password is not None:
            netloc = f"{parts.username}:***@{netloc.rpartition('@')[2]}"
    except ValueError:        # not even a URL: say nothing of what it holds
        return "(a malformed URL)"
    query = urlencode([(k, "***" if k == "password" else v) for k, v in parse_qsl(parts.query)], safe="/*")
    return urlunsplit(parts._replace(netloc=netloc, query=query))


def _proxies(value: str) -> str | None:
    try:
        networks(value)
    except ValueError as e:
        return f"trusted proxies are IP addresses or networks, separated by commas: {e}"
    return None


def _log_format(value: str) -> str | None:
    return None if value in ("text", "json") else "the log format is 'text' or 'json'"


SETTINGS = (
    Setting("host", "127.0.0.1", str, "address to listen on (0.0.0.0 for every interface)"),
    Setting("port", 8765, int, "port to listen on (0: any free port)", _port),
    Setting("data_dir", None, str, "where the server key and the database live "
            "(default $GOVERNOR_DATA, else ~/.local/share/governor/server)", path=True, metavar="DIR"),
    Setting("database", "sqlite", str, "where tables and their logs are kept: sqlite, the file governor.db "
            "in the data directory, or a PostgreSQL database, postgresql://USER:PASSWORD@HOST/DB",
            _database, show=redacted, metavar="sqlite|URL"),
    Setting("grace", 60.0, float, "how long a disconnected player's seat waits before a bot plays it, in "
            "seconds", _grace, metavar="SECONDS"),
    Setting("cert", None, str, "serve TLS (wss://) with this PEM certificate chain; the key may be in the "
            "same file", path=True, metavar="FILE"),
    Setting("key", None, str, "the certificate's private key, if it is in a file of its own", path=True,
            metavar="FILE"),
    Setting("public_url", None, str, "the address players join, when it is not the one the server listens "
            "on (a TLS proxy in front, a name): printed at start, and where the other processes on its "
            "PostgreSQL database send the players of its tables", _url, metavar="URL"),
    Setting("trusted_proxies", None, str, "the proxies in front of the server (IP addresses or networks, "
            "separated by commas): for a connection from one, the client's address is read from its PROXY "
            "protocol header or X-Forwarded-For, for the per-address limits", _proxies, metavar="ADDRESSES"),
    Setting("log_format", "text", str, "the log on stderr: text lines, or json (one object a line)",
            _log_format, metavar="text|json"),
    Setting("announce", True, bool, "announce the server on the local network, so that `governor join` "
            "with no address finds it (only when other machines can reach it)"),
    Setting("records", False, bool, "serve the finished matches' public records and the standings page "
            "(plain HTTP, or HTTPS with --cert) on a port of their own, records_port"),
    Setting("records_port", 8767, int, "the port of the records and the standings page (0: any free port)",
            _port),
    Setting("operator_key_file", None, str, "a file holding the operator key, which `governor admin` needs "
            "to list the seats and close tables (none: no operator)", path=True, metavar="FILE"),
)
BY_NAME = {s.name: s for s in SETTINGS}
LIMIT_KINDS = {f.name: float if "float" in str(f.type) else int for f in dataclasses.fields(Limits)}


def defaults() -> dict:
    """Every setting's default, and no limit changed."""
    return {**{s.name: s.default for s in SETTINGS}, "limits": {}}


def from_text(setting: Setting, text: str):
    """A setting's value as given on the command line (raises SettingsError)."""
    try:
        value = setting.kind(text)
    except ValueError:
        raise SettingsError(f"{setting.name} needs {_kind_words(setting.kind)}, not {text!r}") from None
    return _checked(setting, value)


def limit_from_text(text: str) -> tuple[str, float | int]:
    """`NAME=VALUE`, a limit as given on the command line (raises SettingsError)."""
    name, _, value = text.partition("=")
    kind = _limit_kind(name)
    try:
        number = float(value)
    except ValueError:
        raise SettingsError(f"the limit {name} needs {_kind_words(kind)}, not {value!r}") from None
    if kind is int:
        if not number.is_integer():
            raise SettingsError(f"the limit {name} needs {_kind_words(kind)}, not {value!r}")
        number = int(number)
    return name, _checked_limit(name, number)


def read_file(path: str | Path) -> dict:
    """The settings a config file sets (raises SettingsError naming the file and the key)."""
    path = Path(path).expanduser()
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except OSError as e:
        raise SettingsError(f"cannot read the config file {path}: {e.strerror or e}") from None
    except tomllib.TOMLDecodeError as e:
        raise SettingsError(f"the config file {path} is not valid TOML: {e}") from None
    out: dict = {}
    try:
        for key, value in data.items():
            if key == "limits":
                out["limits"] = _limits_table(value)
                continue
            setting = BY_NAME.get(key)
            if setting is None:
                raise SettingsError(f"there is no setting {key!r}; there is: {', '.join([*BY_NAME, 'limits'])}")
            value = _checked(setting, _typed(key, setting.kind, value))
            out[key] = str((path.parent / value).resolve()) if setting.path else value
    except SettingsError as e:
        raise SettingsError(f"the config file {path}: {e}") from None
    return out


def resolve(file: dict, flags: dict) -> dict:
    """The settings to serve with: the defaults, then what the file sets, then the flags given;
    limits one by one."""
    out = defaults()
    for layer in (file, flags):
        for name, value in layer.items():
            if name == "limits":
                out["limits"] = {**out["limits"], **value}
            else:
                out[name] = value
    return out


# ---------------------------------------------------------------------- checks

def _checked(setting: Setting, value):
    if setting.path:
        value = str(Path(value).expanduser())
    problem = setting.check(value)
    if problem is not None:
        shown = setting.show(value) if isinstance(value, str) else value
        raise SettingsError(f"{setting.name}: {problem}, not {shown!r}")
    return value


def _limits_table(value) -> dict:
    if not isinstance(value, dict):
        raise SettingsError("limits is a table ([limits], one NAME = VALUE a line)")
    out = {}
    for name, number in value.items():
        kind = _limit_kind(name)
        out[name] = _checked_limit(name, _typed(f"limits.{name}", kind, number))
    return out


def _limit_kind(name: str) -> type:
    kind = LIMIT_KINDS.get(name)
    if kind is None:
        raise SettingsError(f"there is no limit {name!r}; there is: {', '.join(LIMIT_KINDS)}")
    return kind


def _checked_limit(name: str, number):
    if not math.isfinite(number):
        raise SettingsError(f"the limit {name} needs a finite number, not {number}")
    if number < 0:
        raise SettingsError(f"the limit {name} cannot be negative")
    if name == "lease" and number < MIN_LEASE:
        raise SettingsError(f"the limit lease is at least {MIN_LEASE:g} seconds (it is renewed every quarter of it)")
    return number


def _typed(key: str, kind: type, value):
    """A value from the file, if it is of the setting's type (an int will do for a float)."""
    if kind is bool:
        ok = isinstance(value, bool)
    else:
        ok = (isinstance(value, kind) or (kind is float and isinstance(value, int))) and not isinstance(value, bool)
    if not ok:
        raise SettingsError(f"{key} needs {_kind_words(kind)}, not {value!r}")
    return float(value) if kind is float else value


def _kind_words(kind: type) -> str:
    return {str: "a string", int: "a whole number", float: "a number", bool: "true or false"}[kind]
