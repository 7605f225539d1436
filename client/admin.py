"""`governor admin URL --key-file FILE tables | close TABLE`: operate a server with its operator key.

`tables` lists every open table with who holds each seat: the player's name, connected (with
the address) or away, computer players and their level, free seats, and how many watch; for a
process of a cluster, every process's tables, each asked in turn with the same key.
`close TABLE` cancels a table (on whichever process of a cluster serves it): everyone at it is
told, and a started match ends with a signed cancel entry that names your reason, so its record
is kept and still verifies.

The key file is the one the server was started with (`serve --operator-key-file`). A wrong key
is refused, and a few wrong ones in a row make the server refuse this address for a while.
Exit status 0 when the server did what was asked, 1 when it refused (or a process of its
cluster could not be asked), 2 for a bad key file.
"""
from __future__ import annotations

import argparse
import json
import sys

from .errors import ClientError
from .interrupt import run_interruptibly
from .link import DROPPED, add_connection_arguments, open_link
from .session import read_operator_key, server_address


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("url", type=server_address, help="the server, e.g. wss://play.example.org:8765")
    p.add_argument("request", choices=("tables", "close"), help="tables: who holds which seat; close: cancel a table")
    p.add_argument("table", nargs="?", help="the table to close")
    p.add_argument("--key-file", required=True, metavar="FILE", help="the file holding the server's operator key")
    p.add_argument("--reason", default="", help="why the table is closed, shown to its players and signed "
                                                "into its record")
    p.add_argument("--json", action="store_true", help="print the tables as JSON")
    add_connection_arguments(p)


def run(args: argparse.Namespace) -> int:
    if (args.request == "close") != (args.table is not None):
        print("governor admin: name the table to close (and only with close): governor admin URL close TABLE",
              file=sys.stderr)
        return 2
    try:
        key = read_operator_key(args.key_file)
    except ValueError as e:
        print(f"governor admin: {e}", file=sys.stderr)
        return 2

    async def main() -> int:
        if args.request == "tables":
            tables, missing = await cluster_tables(args.url, key, args.cafile)
            print(json.dumps(tables, indent=2) if args.json else tables_text(tables))
            for url, why in missing:
                print(f"governor admin: the tables of {url} are not listed: {why}", file=sys.stderr)
            return 1 if missing else 0
        link = await open_link(args.url, quiet=True, cafile=args.cafile)
        try:   # sent on to the process that serves the table, if another one does
            msg = {"type": "operator", "key": key, "do": "close", "table": args.table, "reason": args.reason}
            reply = await link.request(msg, ("operator_closed",))
            print(f"Table {reply['table']} is closed.")
        finally:
            await link.close()
        return 0

    try:
        return run_interruptibly(main())
    except ClientError as e:
        print(f"governor admin: {e}", file=sys.stderr)
        return 1


async def cluster_tables(url: str, key: str, cafile: str | None) -> tuple[list[dict], list[tuple[str, str]]]:
    """Every open table of the server at `url` and, when it is a process of a cluster, of the
    other live processes it names, oldest first; and (address, why) of each other process that
    could not be asked. The first server's refusal is a ClientError."""
    request = {"type": "operator", "key": key, "do": "tables"}
    link = await open_link(url, quiet=True, cafile=cafile)
    try:
        reply = await link.request(request, ("operator_tables",))
    finally:
        await link.close()
    tables, missing = list(reply["tables"]), []
    for other in reply.get("processes", ()):
        link = None
        try:
            link = await open_link(other, quiet=True, cafile=cafile)
            tables += (await link.request(request, ("operator_tables",)))["tables"]
        except (ClientError, *DROPPED) as e:
            missing.append((other, str(e) or type(e).__name__))
        finally:
            if link is not None:
                await link.close()
    return sorted(tables, key=lambda t: t["created"]), missing


def tables_text(tables: list[dict]) -> str:
    if not tables:
        return "No open tables."
    lines = []
    for t in tables:
        head = f"{t['id']}  {t['game']}  {t['status']}  {t['spectators']} watching" + \
            (f"  on {t['process']}" if t.get("process") else "")
        lines.append(head + (f"  FROZEN: {t['frozen']}" if t.get("frozen") else ""))
        for s in t["seats"]:
            if s["bot"] is not None:
                holder = f"computer ({s['bot']})"
            elif s["name"] is None:
                holder = "free"
            elif s["connected"]:
                holder = f"connected from {s.get('address', '?')}"
            else:
                holder = "away" + (", a bot plays for them" if s["standin"] else "")
            lines.append(f"  seat {s['seat'] + 1}  {s['name'] or '-':<24}  {holder}")
    return "\n".join(lines)
