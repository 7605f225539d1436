"""Failover: a server process of a cluster killed with SIGKILL mid-game, again and again.

    python bench/failover.py [--kills 20] [--tables 4] [--lease 8] [--json]

Two `governor serve` processes share a private PostgreSQL started for the run (the pgserver
package of the test extra): A, which players come in through, and B, the victim. Each round
creates --tables 2-seat tables on B (a computer seat and a person's), and a headless client
(`governor join --bot random`) comes in through A for each person's seat and is sent on to B.
Once every match is well under way, B is killed with SIGKILL; A takes the tables over when B's
leases run out, the clients reconnect through A and finish; then B is started again for the
next round. Reported:
- the time from the kill until each table commits a move again (p50, max): the lease, a
  renewal, the rebuild, the client's reconnection;
- lost and duplicated moves: a table whose log has a gap, whose client's record does not
  verify (a move it was told of and the log has not, or one applied twice, breaks the signed
  chain the survivor rebuilds from the log), or whose match did not finish.
The last line is one JSON object.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import asyncpg
from websockets.asyncio.client import connect

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from processes import private_postgres, serve  # noqa: E402
from protocol import wire  # noqa: E402

async def create(url: str) -> str:
    async with connect(url, max_size=wire.MAX_SERVER_FRAME) as ws:
        await ws.send(wire.encode({"type": "hello", "version": wire.VERSION}))
        await ws.recv()
        # here: on B, the victim, though the cluster would place every other one on A
        await ws.send(wire.encode({"type": "create", "game": "sanjuan", "seats": 2, "bots": 1, "bot": "random",
                                   "here": True}))
        return wire.decode(await ws.recv(), wire.SERVER, wire.MAX_SERVER_FRAME)["table"]


async def rows(db, table: str) -> int:
    return await db.fetchval("SELECT count(*) FROM log WHERE table_id = $1", table)


async def round_(database: str, a_url: str, b_url: str, victim: subprocess.Popen, tables: int,
                 folder: Path) -> dict:
    ids = [await create(b_url) for _ in range(tables)]
    folder.mkdir(parents=True)
    clients = [subprocess.Popen([sys.executable, "-m", "client", "join", a_url, "--table", t, "--bot", "random",
                                 "--no-input", "--json", "--pace", "0", "--think", "0.05", "--data-dir",
                                 str(folder / t)], cwd=ROOT, stdout=subprocess.PIPE,
                                stderr=open(folder / f"{t}.err", "w"), text=True) for t in ids]
    db = await asyncpg.connect(database)
    try:
        while min([await rows(db, t) for t in ids]) < 20:     # every match well under way
            await asyncio.sleep(0.05)
        victim_id = await db.fetchval("SELECT owner FROM leases WHERE table_id = $1", ids[0])
        victim.send_signal(signal.SIGKILL)
        killed = time.monotonic()
        victim.wait()
        # A table accepts moves again when its new owner commits one: the log grows after its
        # lease changed hands (from then on only the new owner can commit: server/leases.py).
        taken: dict[str, int] = {}     # table -> its log rows when its lease was seen taken
        back: dict[str, float] = {}
        while len(back) < len(ids) and time.monotonic() - killed < 120:
            for t in ids:
                if t in back:
                    continue
                owner, n = await db.fetchrow("SELECT (SELECT owner FROM leases WHERE table_id = $1),"
                                             " (SELECT count(*) FROM log WHERE table_id = $1)", t)
                if t in taken and n > taken[t] or owner is None:   # None: finished since
                    back[t] = time.monotonic() - killed
                elif t not in taken and owner != victim_id:
                    taken[t] = n
            await asyncio.sleep(0.02)
        outcomes = []
        for c in clients:
            out, _ = await asyncio.get_running_loop().run_in_executor(None, lambda c=c: c.communicate(timeout=300))
            lines = out.strip().splitlines()
            outcomes.append(json.loads(lines[-1]) if lines else {})
        bad = 0
        for t, o in zip(ids, outcomes):
            ns = [r[0] for r in await db.fetch("SELECT n FROM log WHERE table_id = $1 ORDER BY n", t)]
            if ns != list(range(len(ns))) or not (o.get("verified") and o.get("finished")):
                bad += 1
                print(f"table {t}: log rows {len(ns)}, client said: {o}; its last lines:\n"
                      + "".join((folder / f"{t}.err").read_text().splitlines(True)[-15:]), file=sys.stderr)
        return {"back": list(back.values()), "never_back": len(ids) - len(back), "bad": bad}
    finally:
        await db.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kills", type=int, default=20)
    ap.add_argument("--tables", type=int, default=4)
    ap.add_argument("--lease", type=float, default=8.0)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    back, never, bad = [], 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        with private_postgres(folder / "pg") as postgres:
            postgres.psql("CREATE DATABASE failover;")
            database = postgres.get_uri("failover")
            a, a_url = serve(folder / "a", database, f"lease={args.lease}")
            try:
                for k in range(args.kills):
                    b, b_url = serve(folder / f"b{k}", database, f"lease={args.lease}")
                    r = asyncio.run(round_(database, a_url, b_url, b, args.tables, folder / f"round{k}"))
                    back += r["back"]
                    never += r["never_back"]
                    bad += r["bad"]
                    if not args.json:
                        print(f"kill {k + 1}: back after {', '.join(f'{s:.1f}' for s in r['back'])} s; "
                              f"lost or duplicated: {r['bad']}", flush=True)
            finally:
                a.kill()
                a.wait()
    out = {"bench": "failover", "kills": args.kills, "tables": args.tables, "lease": args.lease,
           "back_p50": round(statistics.median(back), 2) if back else None,
           "back_max": round(max(back), 2) if back else None, "never_back": never,
           "tables_with_lost_or_duplicated_moves": bad}
    if not args.json:
        print(f"{args.kills} kills of {args.tables} tables' process, lease {args.lease:g} s: moves again after "
              f"p50 {out['back_p50']} s, max {out['back_max']} s; never back: {never}; tables with a lost or "
              f"duplicated move: {bad}")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
