"""What `governor verify` costs on hostile records of the largest size a record may have (2 MiB):
peak memory (tracemalloc, above what the interpreter had before) and time, one process each.

    python bench/hostile_records.py [--json]

The records are made so that decoding them costs the most memory per byte: maps or lists of
values one byte each (an empty map, a small negative number), strings of one character that
Python keeps in two bytes, a list nested a hundred deep whose values all come before the list
inside it (none is counted until the innermost list is complete), and signed entries by the
thousand. tests/protocol/test_record_memory.py holds `governor verify` to a bound on them.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from games import sanjuan  # noqa: E402
from protocol import record  # noqa: E402
from protocol.codec import MAX_CONTAINER, pack  # noqa: E402
from protocol.messages import Signed  # noqa: E402
from protocol.signing import SIG_ENTRY, Signer  # noqa: E402

SIGNER = Signer.generate()
BOUND_MIB = 64      # what the test holds `governor verify` to


def _item(body: dict) -> bytes:
    payload = pack(body)
    return record.dump_item(Signed("entry", payload, SIGNER.sign(SIG_ENTRY, payload), body))


def _header() -> dict:
    return {"t": "header", "seq": 0, "protocol": "bgfair/v1", "game_id": b"g" * 16, "game": "sanjuan",
            "rules": sanjuan.INFO.rules_version, "options": {}, "manifest": sanjuan.manifest_hash({}),
            "seats": [{"id": "a", "name": "A"}, {"id": "b", "name": "B"}],
            "server_key": SIGNER.public_key, "server_commit": b"c" * 32}


# The size of each hostile item: small enough that 2 MiB of them fill a record to the byte, and
# values, not item size, are what costs memory (a record item may be up to record.MAX_ITEM).
HOSTILE_ITEM = 64 << 10


def _lists_of(value, room: int = HOSTILE_ITEM - 100) -> list:
    """Lists of `value` filling `room` bytes packed."""
    n = room // len(pack(value))
    return [[value] * MAX_CONTAINER] * (n // MAX_CONTAINER) + [[value] * (n % MAX_CONTAINER)]


def _filled(junk, tail: bytes = b"", items: int | None = None) -> bytes:
    """Entries carrying `junk`, as many as fit in a record (or `items` of them, then entries of one
    long string each: bytes that are few values), then `tail`."""
    out, size = [], len(record.MAGIC) + len(tail)
    while True:
        filler = items is not None and len(out) >= items
        item = _item({"t": "move", "seq": len(out), "junk": "x" * (HOSTILE_ITEM - 100) if filler else junk})
        if size + len(item) > record.MAX_RECORD:
            return record.MAGIC + b"".join(out) + tail
        out.append(item)
        size += len(item)


def _nested(levels: int, value) -> list:
    """A list `levels` deep whose values come before the list inside it."""
    inner: list = []
    for _ in range(levels):
        inner = [value] * (MAX_CONTAINER - 1) + [inner]
    return inner


def _entries(n: int) -> bytes:
    """A header and n signed, chained move entries, padded to the largest record."""
    first = Signed.parse("entry", pack(_header()), b"")
    first = Signed("entry", first.payload, SIGNER.sign(SIG_ENTRY, first.payload), first.body)
    out, prev = [record.dump_item(first)], first.hash
    for seq in range(1, n + 1):
        body = {"t": "move", "seq": seq, "prev": prev, "seat": 0, "events": b"e" * 16, "pad": "x" * 300}
        payload = pack(body)
        entry = Signed("entry", payload, SIGNER.sign(SIG_ENTRY, payload), body)
        out.append(record.dump_item(entry))
        prev = entry.hash
    return record.MAGIC + b"".join(out)


def records() -> dict[str, bytes]:
    """The hostile records by what they are, each at most record.MAX_RECORD bytes."""
    one_char = "ā"     # outside Latin-1: a string object of its own, about 80 bytes, for 3 packed
    # Entries holding nearly every value a record may, then what the client was shown: a list
    # nested deep, the most memory decoded before the budget of values can count it.
    almost_all = (record.MAX_VALUES - 10_000) // (HOSTILE_ITEM // 3)
    deep = pack([record.SHOWN, pack({"seat": 0, "steps": _nested(120, -20)})])
    return {"empty maps": _filled(_lists_of({})),
            "small negative numbers": _filled(_lists_of(-20)),
            "one-character strings": _filled(_lists_of(one_char)),
            "values, then a deep list shown": _filled(_lists_of(one_char), deep, almost_all),
            f"{MAX_CONTAINER + 100} signed entries": _entries(MAX_CONTAINER + 100)}


_MEASURE = """
import json, sys, time, tracemalloc
sys.path.insert(0, sys.argv[2])
import client.cli, client.verify, protocol.verify    # imported before: the baseline
tracemalloc.start()
start = time.perf_counter()
try:
    code = client.cli.main(["verify", sys.argv[1]])
except SystemExit as e:
    code = e.code
seconds = time.perf_counter() - start
peak = tracemalloc.get_traced_memory()[1]
print(json.dumps({"exit": code, "peak_mib": round(peak / 2**20, 1), "seconds": round(seconds, 2)}))
"""


def measure(data: bytes) -> dict:
    """`governor verify` of these bytes in a process of its own: its exit code, the last line it
    printed, its peak memory above the interpreter's (MiB, tracemalloc) and its time (seconds;
    slowed by tracemalloc)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "hostile.govrec"
        path.write_bytes(data)
        done = subprocess.run([sys.executable, "-c", _MEASURE, str(path), str(ROOT)],
                              capture_output=True, text=True, timeout=300)
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"the measuring process failed: {done.stderr[-2000:]}")
    return dict(json.loads(lines[-1]), said=lines[-2] if len(lines) > 1 else "", bytes=len(data))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="print only the JSON line")
    args = ap.parse_args(argv)
    rows = {name: measure(data) for name, data in records().items()}
    if not args.json:
        for name, r in rows.items():
            print(f"{name:32} {r['bytes'] / 2**20:4.2f} MiB  peak {r['peak_mib']:5.1f} MiB  "
                  f"{r['seconds']:5.2f} s  exit {r['exit']}  {r['said'][-90:]}")
    print(json.dumps({"bench": "hostile_records", "bound_mib": BOUND_MIB,
                      "peak_mib_max": max(r["peak_mib"] for r in rows.values()),
                      "seconds_max": max(r["seconds"] for r in rows.values()), "records": rows}))


if __name__ == "__main__":
    main()
