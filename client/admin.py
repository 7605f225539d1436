"""`governor admin URL --key-file FILE tables | close TABLE`: operate a server with its operator key.

`tables` lists every open table with who holds each seat: the player's name, connected (with
the address) or away, computer players and their level, free seats, and how many watch; for a
process of a cluster, every process's tables, each asked in turn with the same key.
`close TABLE` cancels a table (on whichever process of a cluster serves it): everyone at it is
told, and a started match ends with a signed cancel entry that names your reason, so its record
is kept and still verifies.

The key file is the one the server was started with (`serve --operator-key-file`). A wrong key
is refused, and a few wrong ones in a row make the server refuse this address for a while. The
key goes only where nobody on the way reads it: to a wss:// address, or a ws:// one on this
machine (a loopback address, localhost); to any other ws:// address, that the command names or
that a server names (another process of its cluster, a redirect), only with --insecure.
Exit status 0 when the server did what was asked, 1 when it refused (or a process of its
cluster could not be asked), 2 for a bad key file.
"""
from __future__ import annotations

import argparse
import ipaddress
import json
import sys
from urllib.parse import urlsplit

from .errors import ClientError
from .interrupt import run_interruptibly
from .link import DROPPED, MAX_REDIRECTS, add_connection_arguments, open_link
from .session import read_operator_key, server_address


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("url", type=server_address, help="the server, e.g. wss://play.example.org:8765")
    p.add_argument("request", choices=("tables", "close"), help="tables: who holds which seat; close: cancel a table")
    p.add_argument("table", nargs="?", help="the table to close")
    p.add_argument("--key-file", required=True, metavar="FILE", help="the file holding the server's operator key")
    p.add_argument("--reason", default="", help="why the table is closed, shown to its players and signed "
                                                "into its record")
    p.add_argument("--json", action="store_true", help="print the tables as JSON")
    p.add_argument("--insecure", action="store_true", help="send the key over plain ws:// to an address not on "
                                                           "this machine too (anyone on the way can read it)")
    add_connection_arguments(p)


def run(args: argparse.Namespace) -> int:
    if (args.request == "close") != (args.table is not None):
        print("governor admin: name the table to close (and only with close): governor admin URL close TABLE",
              file=sys.stderr)
        return 2
    try:
        key = read_operator_key(args.key_file)
        key_may_go(args.url, args.insecure)
    except (ValueError, ClientError) as e:
        print(f"governor admin: {e}", file=sys.stderr)
        return 2

    async def main() -> int:
        if args.request == "tables":
            tables, missing = await cluster_tables(args.url, key, args.cafile, args.insecure)
            print(json.dumps(tables, indent=2) if args.json else tables_text(tables))
            for url, why in missing:
                print(f"governor admin: the tables of {url} are not listed: {why}", file=sys.stderr)
            return 1 if missing else 0
        msg = {"type": "operator", "key": key, "do": "close", "table": args.table, "reason": args.reason}
        url = args.url
        for _ in range(MAX_REDIRECTS):    # sent on to the process that serves the table, if another one does
            key_may_go(url, args.insecure)
            link = await open_link(url, quiet=True, cafile=args.cafile)
            try:
                reply = await link.request(msg, ("operator_closed", "redirect"))
            finally:
                await link.close()
            if reply["type"] == "operator_closed":
                print(f"Table {reply['table']} is closed.")
                return 0
            url = reply["url"]
        raise ClientError("too_many_redirects", f"the servers at {args.url} sent the request on more than "
                          f"{MAX_REDIRECTS} times")

    try:
        return run_interruptibly(main())
    except ClientError as e:
        print(f"governor admin: {e}", file=sys.stderr)
        return 1


def key_may_go(url: str, insecure: bool) -> None:
    """Raise ClientError unless the operator key may be sent to `url`: wss://, a ws:// address on
    this machine, or any with `insecure`."""
    parts = urlsplit(url)
    if insecure or parts.scheme == "wss" or _loopback(parts.hostname or ""):
        return
    raise ClientError("insecure_address", f"the operator key is not sent to {url}: over ws:// anyone on the way "
                      "can read it. Use the server's wss:// address (a server with TLS), or pass --insecure if "
                      "the network between is yours")


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


async def cluster_tables(url: str, key: str, cafile: str | None,
                         insecure: bool = False) -> tuple[list[dict], list[tuple[str, str]]]:
    """Every open table of the server at `url` and, when it is a process of a cluster, of the
    other live processes it names (the key sent only where key_may_go lets it), oldest first;
    and (address, why) of each other process that could not be asked. The first server's
    refusal is a ClientError."""
    request = {"type": "operator", "key": key, "do": "tables"}
    key_may_go(url, insecure)
    link = await open_link(url, quiet=True, cafile=cafile)
    try:
        reply = await link.request(request, ("operator_tables",))
    finally:
        await link.close()
    tables, missing = list(reply["tables"]), []
    for other in reply.get("processes", ()):
        link = None
        try:
            key_may_go(other, insecure)
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
