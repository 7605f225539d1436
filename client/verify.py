"""`governor verify RECORD`: audit a saved match record offline (docs/fairness.md §5).

Checks the server's signatures and the hash chain, the commitments against the revealed seeds,
recomputes every shuffle, replays every move through the rules engine and compares the cards
shown and the final scores. Exit 0 only when everything holds; 1 when the audit fails (the first
failing entry is named); 2 when the file is not a readable record. `--entry N` then says who made
entry N and whose key signed it (a player's move carries that player's signature).
"""
from __future__ import annotations

import argparse
import json

from protocol import record
from protocol.verify import verify, who_made

from .session import read_record


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("record", help="the match record file (.govrec)")
    p.add_argument("--json", action="store_true", help="print the report as one JSON object")
    p.add_argument("--entry", type=int, metavar="N", help="then say who made entry N and whose key signed it")


def run(args: argparse.Namespace) -> int:
    try:
        items, shown = read_record(args.record)
    except FileNotFoundError:
        print(f"governor verify: no file {args.record!r}.")
        return 2
    except (OSError, record.RecordError) as e:
        print(f"governor verify: {args.record} is not a readable match record: {e}")
        return 2
    report = verify(items, shown)
    print(json.dumps(report.as_dict(), sort_keys=True) if args.json else report.text())
    if args.entry is not None and report.ok:
        try:
            print(who_made(items, args.entry))
        except ValueError as e:
            print(f"governor verify: --entry: {e}")
            return 2
    return 0 if report.ok else 1
