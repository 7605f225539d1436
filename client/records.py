"""`governor records`: your saved match records, newest first, one line each: when, which game,
who played, the scores, the winner, and the verdict of the audit (done again, offline).

    governor records                 every record in your data folder
    governor records --aborts        per server, the matches it aborted after the deal was fixed
    governor replay 1                step through the newest one
    governor verify FILE             the audit of one record, in full
"""
from __future__ import annotations

import argparse
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from protocol import record
from protocol.messages import printable
from protocol.verify import Report, verify

from .hints import command
from .render import named
from .session import add_data_dir, default_data_dir, read_record, record_files


# record_name's date and time, at the start of a record's file name.
_STAMP = re.compile(r"^(\d{4}-\d\d-\d\d)_(\d\d)(\d\d)_")


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_data_dir(p)
    p.add_argument("--aborts", action="store_true",
                   help="count, per server key, the matches cancelled or abandoned after the deal was fixed")


@dataclass
class Saved:
    """A record file and what its audit says of it."""
    path: Path
    report: Report | None      # None: the file is not a readable record
    problem: str = ""

    @property
    def when(self) -> str:
        m = _STAMP.match(self.path.name)
        if m:
            return f"{m.group(1)} {m.group(2)}:{m.group(3)}"
        return time.strftime("%Y-%m-%d %H:%M", time.localtime(self.path.stat().st_mtime))

    @property
    def kind(self) -> str:
        """"" (a seat's own), "public" (a spectator's) or "refused" (evidence against a server)."""
        parts = self.path.name.split(".")
        return parts[-2] if len(parts) > 2 and parts[-2] in ("public", "refused") else ""

    def line(self) -> str:
        r = self.report
        if r is None:
            return f"{self.when}  {self.path.name}: not a readable record ({self.problem})"
        what = {"public": ", watched", "refused": ", evidence"}.get(self.kind, "")
        short = (r.game_id or "")[:8]
        names = [named(n, r.keys[i] if i < len(r.keys) else None) for i, n in enumerate(r.names)]
        if r.abandoned:     # a signed prefix: the deal is fixed, and nothing after it can be judged
            return printable(f"{self.when}  {r.game or '?'}{what}  {', '.join(names) or '?'}  "
                             f"ABANDONED after the deal was fixed  [{short}]")
        if not r.ok:
            # Neither scores nor a winner: a record that fails its audit (or cannot be judged)
            # proves none.
            verdict = f"NOT CHECKED: {r.what}" if r.refused else f"FAILED audit: {r.where}: {r.what}"
            return printable(f"{self.when}  {r.game or '?'}{what}  {', '.join(names) or '?'}  {verdict}  [{short}]")
        players = ", ".join(f"{n} ({r.scores[i]})" if r.scores else n for i, n in enumerate(names))
        winner = ", ".join(r.names[i] for i in r.winners) if r.winners is not None else "none (cancelled)"
        verdict = "verified (public part)" if r.hidden_unchecked else "verified"
        if r.after_deal:
            verdict += ", CANCELLED after the deal was fixed"
        return printable(f"{self.when}  {r.game or '?'}{what}  {players}  winner: {winner}  {verdict}  [{short}]")


def saved_records(data_dir: Path) -> list[Saved]:
    """Every record in the data folder, newest first, each audited."""
    out = []
    for path in record_files(data_dir):
        try:
            out.append(Saved(path, verify(*read_record(str(path)))))
        except (OSError, record.RecordError) as e:
            out.append(Saved(path, None, str(e)))
    return out


def aborts(saved: list[Saved]) -> list[str]:
    """Per server key, how many of its matches (each counted once, however many records of it
    there are) were cancelled after the deal was fixed, and how many it abandoned then."""
    per: dict[str, dict[str, str]] = {}     # server fingerprint -> game id -> how it ended
    for s in saved:
        r = s.report
        if r is None or r.server is None or r.game_id is None or s.kind == "refused":
            continue
        how = "abandoned" if r.abandoned else "cancelled" if r.after_deal else "other"
        games = per.setdefault(r.server, {})
        if games.get(r.game_id, "other") == "other":
            games[r.game_id] = how
    lines = []
    for server, games in sorted(per.items(), key=lambda kv: -len(kv[1])):
        ends = list(games.values())
        cancelled, abandoned = ends.count("cancelled"), ends.count("abandoned")
        lines.append(f"server {server}: {cancelled + abandoned} of {len(ends)} matches aborted after the deal "
                     f"was fixed ({cancelled} cancelled, {abandoned} abandoned)")
    return lines


def run(args: argparse.Namespace) -> int:
    data_dir = Path(args.data_dir) if args.data_dir else default_data_dir()
    saved = saved_records(data_dir)
    if not saved:
        print(f"No match records yet in {data_dir / 'records'}: they are saved there when a match ends.")
        return 0
    if args.aborts:
        print(f"Matches aborted after the deal was fixed, per server key (records in {data_dir / 'records'}):")
        for line in aborts(saved):
            print(f"  {printable(line)}")
        return 0
    width = len(str(len(saved)))
    for i, s in enumerate(saved, 1):
        print(f"{i:>{width}}. {s.line()}")
    print(f"\nStep through one: {command('replay', '1')}   Check one in full: {command('verify', 'FILE')}"
          f"   (the files are in {data_dir / 'records'})")
    sys.stdout.flush()
    return 0
