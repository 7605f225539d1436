"""Blind tables against open ones on the real server: the server process's CPU per action.

    python bench/blind_server.py [--tables 6] [--seats 4] [--humans 2] [--runs 2] [--game ID] [--json]

One `governor serve` process (SQLite, its limits raised for the loopback clients). Each run plays
--tables matches at once to their end, once at tables created `blind: true` and once at the same
tables `blind: false`, the order alternating run by run. Each table has --humans people, clients
in this process that answer every decision at once with a random legal pick (the test clients of
tests/server/rawclient.py: BlindSeatPlayer, which runs protocol.blind_exchange.BlindPlayerExchange,
and SeatPlayer, the open exchange; both audit the record at the end), and the server's computer
seats for the rest. Measured per batch, from the first `create` to the last audit: the server
process's CPU time (user + system, /proc/PID/stat) divided by the actions played (the move
entries of the matches' logs, the computer seats' included), the wall time, and this process's
CPU (the clients', never counted as the server's). The last line is one JSON object.

Memory per table in play: the server process's resident memory (VmRSS, /proc/PID/status),
sampled every 50 ms during the batch; its highest value less its value at the batch's start,
divided by --tables. RSS, not tracemalloc, because it is what an operator pays for the whole
process (the store's and the connections' buffers too) and it costs the server nothing to read;
it is rough: Python keeps freed memory for reuse, so a batch that follows a bigger one may grow
less (the kinds alternate run by run, and the summary takes medians).

Target (issue 32): the server's CPU per action on a blind table at most 2× the open table's.
bench/blind_match.py measures the exchange alone; this is the whole server: connections, frames,
the store, the bots, the table core. Never asserted: speed depends on the machine and its load.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path

from processes import cpu_seconds, serve  # first: it puts the project on sys.path

import games
from tests.server.rawclient import BlindSeatPlayer, Raw, SeatPlayer

PATIENCE = 3600.0   # seconds a match may take on a machine busy with other work before the run fails


async def seated(url: str, game: str, seats: int, humans: int, blind: bool, t: int) -> list:
    """A new table's people, seated: the server deals once the last sits."""
    lobby = await Raw.connect(url)
    table = await lobby.create(seats, seats - humans, game=game, blind=blind)
    await lobby.close()
    player = BlindSeatPlayer if blind else SeatPlayer
    players = [player(url, table, f"T{t}P{i}", seed=i) for i in range(humans)]
    for p in players:
        await p.sit()
    return players


def moves(p) -> int:
    """The move entries of the log a player's client holds."""
    entries = p.bx.record if isinstance(p, BlindSeatPlayer) else p.px.entries
    return sum(1 for e in entries if e.body["t"] == "move")


def rss_bytes(pid: int) -> int:
    """The process's resident memory now (VmRSS, /proc/PID/status)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"/proc/{pid}/status names no VmRSS")


async def highest_rss(pid: int, into: list[int]) -> None:
    """Keep the highest RSS of the process in into[0] until cancelled."""
    while True:
        into[0] = max(into[0], rss_bytes(pid))
        await asyncio.sleep(0.05)


async def batch(url: str, pid: int, game: str, tables: int, seats: int, humans: int, blind: bool) -> dict:
    cpu, clients, start = cpu_seconds(pid), time.process_time(), time.perf_counter()
    rss_start = rss_bytes(pid)
    peak = [rss_start]
    sampler = asyncio.ensure_future(highest_rss(pid, peak))
    players = await asyncio.gather(*(seated(url, game, seats, humans, blind, t) for t in range(tables)))
    await asyncio.gather(*(p.play(timeout=PATIENCE) for table in players for p in table))
    wall = time.perf_counter() - start
    cpu, clients = cpu_seconds(pid) - cpu, time.process_time() - clients
    sampler.cancel()
    for table in players:
        for p in table:
            assert p.report.ok, p.report.text()
            await p.raw.close()
    actions = sum(moves(table[0]) for table in players)
    return {"actions": actions, "server_cpu_s": round(cpu, 2), "wall_s": round(wall, 2),
            "server_cpu_ms_per_action": round(1000 * cpu / actions, 3),
            "wall_ms_per_action": round(1000 * wall / actions, 2),
            "client_cpu_ms_per_action": round(1000 * clients / actions, 3),
            "server_rss_kib_per_table": round((peak[0] - rss_start) / 1024 / tables)}


async def runs(url: str, pid: int, args) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {"blind": [], "open": []}
    for r in range(args.runs):
        for kind in (("blind", "open") if r % 2 == 0 else ("open", "blind")):
            row = await batch(url, pid, args.game, args.tables, args.seats, args.humans, kind == "blind")
            out[kind].append(row)
            if not args.json:
                print(f"run {r + 1} {kind:5}  {row['actions']:5d} actions  server CPU {row['server_cpu_s']:6.2f} s "
                      f"= {row['server_cpu_ms_per_action']:6.3f} ms/action  wall {row['wall_s']:6.1f} s  "
                      f"clients' CPU {row['client_cpu_ms_per_action']:6.2f} ms/action  "
                      f"server RSS +{row['server_rss_kib_per_table']} KiB/table", flush=True)
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", choices=sorted(games.GAMES), default="sanjuan")
    ap.add_argument("--tables", type=int, default=6, help="matches played at once in a batch")
    ap.add_argument("--seats", type=int, default=4)
    ap.add_argument("--humans", type=int, default=2, help="seats played by clients (the rest by the server)")
    ap.add_argument("--runs", type=int, default=2, help="batches of each kind, alternating")
    ap.add_argument("--json", action="store_true", help="print only the JSON line")
    args = ap.parse_args(argv)
    if args.seats not in games.get(args.game).INFO.players:
        ap.error(f"--seats: not a number of players {args.game} takes")
    if not 1 <= args.humans <= args.seats or args.tables < 1 or args.runs < 1:
        ap.error("--humans between 1 and --seats, --tables and --runs at least 1")
    with tempfile.TemporaryDirectory() as data_dir:
        proc, url = serve(Path(data_dir), "sqlite")
        try:
            rows = asyncio.run(runs(url, proc.pid, args))
        finally:
            proc.terminate()
            proc.wait()
    out: dict = {"bench": "blind_server", "game": args.game, "tables": args.tables, "seats": args.seats,
                 "humans": args.humans, "runs": args.runs}
    for kind, rs in rows.items():
        out[kind] = {k: round(statistics.median(r[k] for r in rs), 3) for k in rs[0]}
    out["server_cpu_ratio"] = round(out["blind"]["server_cpu_ms_per_action"] / out["open"]["server_cpu_ms_per_action"], 2)
    out["wall_ratio"] = round(out["blind"]["wall_ms_per_action"] / out["open"]["wall_ms_per_action"], 2)
    if not args.json:
        print(f"median server CPU per action: blind {out['blind']['server_cpu_ms_per_action']} ms, "
              f"open {out['open']['server_cpu_ms_per_action']} ms, blind / open {out['server_cpu_ratio']}×; "
              f"wall per action blind / open {out['wall_ratio']}×; server RSS per table in play: blind "
              f"{out['blind']['server_rss_kib_per_table']} KiB, open {out['open']['server_rss_kib_per_table']} KiB")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
