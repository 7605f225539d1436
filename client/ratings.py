"""`governor ratings FOLDER|URL`: standings anyone can recompute from match records.

Audits every record in FOLDER (and the folders in it), or every record a server publishes at URL
(`governor serve`'s records port: http://HOST:PORT), and rates the players of each game from the
verified rated matches among key holders only (openskill's Plackett-Luce model over each match's
final places, as the rules engine's replay ranks them). Prints each game's table (rank, name,
fingerprint, rating, games) and every record left out with the reason; the same records give the
same output on any machine, in any order. Exit 0 when every record was read and verified (an
unrated match is left out and is no failure), 1 when some record failed its audit or could not be
read, 2 when FOLDER or URL cannot be read at all.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ProcessPoolExecutor
from itertools import chain
from pathlib import Path

from protocol.record import MAX_RECORD
from protocol.standings import UNREADABLE, Judged, judge, standings

from .session import files_under, read_at_most

INDEX = "records.json"            # a server's list of its records (server/published.py)
MAX_INDEX = 16 << 20              # bytes of that list read at most
RECORD_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
TIMEOUT = 30.0                    # seconds a server may take over one answer
BATCH = 256                       # records read before they are audited, on every core


class Unreachable(Exception):
    """The folder or server cannot be read at all."""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("source", metavar="FOLDER|URL",
                   help="a folder of match records, or a server's records address (http://HOST:PORT)")
    p.add_argument("--json", action="store_true", help="print the standings as one JSON object")


def run(args: argparse.Namespace) -> int:
    try:
        judged = from_url(args.source) if re.match(r"https?://", args.source) else from_folder(args.source)
    except Unreachable as e:
        print(f"governor ratings: {e}")
        return 2
    result = standings(judged)
    print(json.dumps(result.as_dict(), sort_keys=True, ensure_ascii=False) if args.json else result.text())
    return 1 if result.failed else 0


def from_folder(folder: str) -> list[Judged]:
    """Every file under the folder, judged, named by its path inside it (a copy of the folder
    elsewhere reads the same)."""
    root = Path(folder)
    if not root.is_dir():
        raise Unreachable(f"{folder!r} is not a folder")

    def read(path: Path) -> tuple[str, bytes] | Judged:
        name = path.relative_to(root).as_posix()
        try:
            data = read_at_most(path, MAX_RECORD + 1)
        except OSError as e:
            return Judged(name, UNREADABLE, f"it cannot be read: {e.strerror or e}")
        return (name, data) if data is not None else Judged(name, UNREADABLE, "it is not a regular file")

    return judge_all(read(path) for path in files_under(root))


def judge_all(records) -> list[Judged]:
    """Each (name, bytes) judged, a Judged passed on as it is; audited on every core, BATCH
    records at a time (so that no more than those are held in memory at once)."""
    judged: list[Judged] = []
    batch: list[tuple[str, bytes]] = []
    with ProcessPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        for item in chain(records, [None]):     # None: the end, the last batch
            if isinstance(item, Judged):
                judged.append(item)
            elif item is not None:
                batch.append(item)
            if batch and (item is None or len(batch) == BATCH):
                judged += pool.map(_judge, batch, chunksize=max(1, len(batch) // (4 * (os.cpu_count() or 1))))
                batch = []
    return judged


def _judge(named: tuple[str, bytes]) -> Judged:
    return judge(*named)


def from_url(url: str) -> list[Judged]:
    """Every record a server's records port lists, downloaded and judged, named as it lists them."""
    base = url if url.endswith("/") else url + "/"
    try:
        listed = _get(urllib.parse.urljoin(base, INDEX), MAX_INDEX)
        if len(listed) > MAX_INDEX:
            raise Unreachable(f"{url} lists more than {MAX_INDEX} bytes of records")
        index = json.loads(listed)
    except (ValueError, UnicodeDecodeError):
        raise Unreachable(f"{url} does not list records ({INDEX} is not a JSON list)") from None
    except OSError as e:
        raise Unreachable(f"cannot read {urllib.parse.urljoin(base, INDEX)}: {_why(e)}") from None
    names = index.get("records") if isinstance(index, dict) else None
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise Unreachable(f"{url} does not list records ({INDEX} holds no list of names)")

    def download(name: str) -> tuple[str, bytes] | Judged:
        if not RECORD_NAME.fullmatch(name):
            return Judged(name[:80], UNREADABLE, "the server lists a name that is no record file's")
        try:
            return name, _get(urllib.parse.urljoin(base, "records/" + name), MAX_RECORD + 1)
        except OSError as e:
            return Judged(name, UNREADABLE, f"it could not be downloaded: {_why(e)}")

    return judge_all(download(name) for name in names)


def _get(url: str, limit: int) -> bytes:
    with urllib.request.urlopen(url, timeout=TIMEOUT) as answer:
        return answer.read(limit + 1)


def _why(e: OSError) -> str:
    if isinstance(e, urllib.error.HTTPError):
        return f"HTTP {e.code} {e.reason}"
    if isinstance(e, urllib.error.URLError):
        return str(e.reason)
    return e.strerror or str(e) or type(e).__name__
