"""Isolation: what one client's attack does to another table (issue 11).

    python bench/isolation.py [--finished 50000] [--replayable 500] [--seconds 15] [--think 0.06]
                              [--attack NAME ...] [--json]

`governor serve` runs in a process of its own, as users run it (its default limits, its log,
its collector settled after start-up: server/heap.py), on a data directory seeded with
--finished finished matches (--replayable of them with their whole log, so that they can be
watched; the rest are table records only, which is what a listing reads).
The victim: two tables of two headless clients each (bench/players.py's seats, from 127.0.0.1)
play on and on, each decision after a think time drawn from [0, 2 × think] seconds (with the
default, a client stays under the server's 20 messages a second). Beside it, each attack runs in turn in a process of
its own, from other loopback addresses (127.0.0.2 and up: other clients as far as the server's
per-address limits go), within every per-connection limit, each right after a quiet window of
the same length (the victim's own p99 then: this machine's speed drifts as others use it):

    claim   8 connections saying hello to claim a seat of a table that does not exist, over and over
    list    8 connections asking for the table list, 19 times a second each
    table   4 connections creating tables as fast as their rate allows; then another address
            tries to create one
    watch   15 connections watching finished tables at random (each a replay, unless kept built)
    slow    10 connections watching the victim's table and asking for the list, never reading
    idle    900 sockets that open TCP and never say a word (reopened when cut)
    bots    12 tables of three `ismcts` bots and one fast random player, from three addresses

For each: the victim's command-to-ack latency (p50, p99, max) over --seconds, beside its p99 in
the quiet window before, the server process's CPU (in cores, all its threads, not its bot
workers: steadier than a p99 on a shared machine), the attack process's own CPU and the
machine's load average (on one machine the attacker's work and everyone else's take the
victim's cores too), what the attack got done, and whether the victim was refused a table.
Target: p99 under 50 ms and within 2× of quiet under every attack. On a second line, the
victim's bot's move (p50, p99), quiet and under the attack: a third victim table, one player
against a `heuristic` bot, timed from the view that makes it the bot's turn to the view with
the bot's move. Under the bot flood it waits for a worker; the
workers are shared fairly between the addresses that created tables (server/deciders.py), so
it waits for about one of the attacker's decisions to end, never for the attacker's queue. It
is reported beside the target, not part of it. The last line is one JSON object.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import resource
import secrets
import socket
import sqlite3
import tempfile
import time
from pathlib import Path

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidMessage, InvalidStatus

from processes import cpu_seconds, serve  # noqa: E402  first: it puts the project on sys.path
from players import Seat  # noqa: E402

import games  # noqa: E402
from games.choice import pick_uniform  # noqa: E402
from protocol import wire  # noqa: E402
from protocol.codec import pack  # noqa: E402
from protocol.exchange import ServerExchange  # noqa: E402
from protocol.fairness import player_commit  # noqa: E402
from protocol.signing import Signer, load_or_create  # noqa: E402

GAME = "sanjuan"
ATTACKS = ("claim", "list", "table", "watch", "slow", "idle", "bots")
TARGET_MS = 50.0


# ---------------------------------------------------------------------- the seeded database

def one_match(signer, seats: int, rnd: random.Random) -> tuple[list[tuple[str, str, bytes]], bytes, bytes, list]:
    """A finished match of random moves, every one made by the server: its players (id, name,
    key), game id, server seed and log rows (kind, seat, data) as the server stores them."""
    players = [(f"p-{i}", f"Player {i + 1}") for i in range(seats)]
    keys = [Signer.generate().public_key for _ in players]
    # started 0: what the server reads for a table stored without its start time (seed_database)
    ex = ServerExchange(GAME, {}, players, signer, players=keys, started=0)
    engine = games.get(GAME)
    rows = []
    seeds = [secrets.token_bytes(32) for _ in players]
    for i, (pid, _) in enumerate(players):
        commitment = player_commit(ex.game_id, pid, seeds[i])
        ex.commit(i, commitment)
        rows.append(("commit", i, {"commitment": commitment}))
    for i, seed in enumerate(seeds):
        ex.reveal(i, seed)
        rows.append(("reveal", i, {"seed": seed}))
    while ex.phase == "play":
        seat = engine.to_act(ex.state)[0]
        p = engine.prompt(ex.state, seat)
        action = pick_uniform(p["options"], p["min"], p["max"], rnd)
        ex.act(seat, action)
        rows.append(("act", seat, {"action": action}))
    return [(pid, name, key) for (pid, name), key in zip(players, keys)], ex.game_id, ex.server_seed, rows


def seed_database(data_dir: Path, finished: int, replayable: int) -> list[str]:
    """Fill a fresh data directory with finished tables, straight into SQLite (the store's own
    writes would take minutes); the ids of those with a log."""
    from server.sqlite_store import DB_FILE, SCHEMA, migrate
    signer = load_or_create(data_dir)
    players, game_id, server_seed, rows = one_match(signer, 4, random.Random(1))
    db = sqlite3.connect(data_dir / DB_FILE, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.executescript(SCHEMA)
    migrate(db)
    db.execute("BEGIN")
    ids = [f"f{i:06d}" for i in range(finished)]
    now = time.time() - finished
    tables = []
    seats = json.dumps([{"name": name, "player_id": pid, "key": key.hex(), "bot": None} for pid, name, key in players])
    for n, tid in enumerate(ids):
        tables.append((tid, GAME, "{}", "random", seats, game_id, server_seed, "over", now + n, now + n))
    db.executemany("INSERT INTO tables (id, game, options, bot, seats, game_id, server_seed, status, created,"
                   " updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", tables)
    packed = [(n, kind, seat, pack(data)) for n, (kind, seat, data) in enumerate(rows)]
    db.executemany("INSERT INTO log VALUES (?, ?, ?, ?, ?)",
                   ((tid, n, kind, seat, data) for tid in ids[-replayable:] for n, kind, seat, data in packed))
    db.execute("COMMIT")
    db.close()
    return ids[-replayable:]


# ---------------------------------------------------------------------- clients

async def open_ws(url: str, source: str, **kw):
    return await connect(url, max_size=wire.MAX_SERVER_FRAME, compression=None, local_addr=(source, 0),
                         open_timeout=30, **kw)


async def hello(ws) -> None:
    await ws.send(wire.encode({"type": "hello", "version": wire.VERSION}))
    await ws.recv()


def decode(frame) -> dict:
    return wire.decode(frame, wire.SERVER, wire.MAX_SERVER_FRAME)


async def request(ws, msg: dict, *kinds: str) -> dict:
    await ws.send(wire.encode(msg))
    while True:
        reply = decode(await ws.recv())
        if reply["type"] in kinds:
            return reply


class _Timed(Seat):
    """A victim's seat (bench/players.py plays it): (time sent, command-to-ack seconds) of every
    move into `latencies`; with `bot_moves`, at a table of two with a bot, (time, seconds) from
    the view that makes it the bot's turn alone to the view with its move, counted only when
    that view is one move on (a bot's step that shows us nothing would otherwise add its next
    step's wait)."""

    def __init__(self, ws, think: float, rnd: random.Random, latencies: list | None, bot_moves: list | None) -> None:
        super().__init__(ws, think, rnd)
        self.latencies = latencies
        self.bot_moves = bot_moves
        self.bot_since: tuple[float, int] | None = None   # (when, seq): the bot's turn alone began

    async def on_view(self, kind: str, frame: bytes, msg: dict) -> None:
        now = time.perf_counter()
        if self.bot_since is not None and self.bot_moves is not None and msg["seq"] == self.bot_since[1] + 1:
            self.bot_moves.append((self.bot_since[0], now - self.bot_since[0]))
        to_act = self.view["to_act"]
        self.bot_since = (now, msg["seq"]) if to_act and self.seat not in to_act else None

    def on_answer(self, kind: str, sent: float) -> None:
        if self.latencies is not None and kind == "ack":
            self.latencies.append((sent, time.perf_counter() - sent))


async def seat_player(url: str, source: str, table: str, name: str, think: float, rnd: random.Random,
                      latencies: list | None, bot_moves: list | None = None) -> None:
    """Sits at `table` from the address `source` and plays random moves to the end (_Timed)."""
    async with await open_ws(url, source) as ws:
        seat = _Timed(ws, think, rnd, latencies, bot_moves)
        await seat.hello()
        await seat.play(table, name)


async def create_table(url: str, source: str, seats: int, bots: int = 0, bot: str = "random") -> str:
    async with await open_ws(url, source) as ws:
        await hello(ws)
        reply = await request(ws, {"type": "create", "game": GAME, "seats": seats, "bots": bots, "bot": bot,
                                   "options": {}, "blind": False}, "created", "error")
    if reply["type"] == "error":
        raise RuntimeError(f"{source} could not create a table: {reply['message']}")
    return reply["table"]


class Victim:
    """Two players at a table from 127.0.0.1, game after game, at `tables` tables at once (each
    table created from another 127.0.1.x address: the victim is many honest players, not one
    that fills its own quota); and beside them one player against a `heuristic` bot, game after
    game, whose bot's moves are timed."""

    def __init__(self, url: str, think: float, shared, tables: int = 2) -> None:
        self.url = url
        self.think = think
        self.tables = tables
        self.latencies: list[tuple[float, float]] = []
        self.bot_moves: list[tuple[float, float]] = []   # (time its turn began, seconds to its move)
        self.shared = shared      # the id of a table it plays at, for the attacks that watch it
        self.games = 0
        self.refused: list[float] = []   # when it could not create a table (the server was full)

    async def run(self) -> None:
        await asyncio.gather(*(self._play_on() for _ in range(self.tables)), self._play_on(bot=True))

    async def _play_on(self, bot: bool = False) -> None:
        while True:
            self.games += 1
            try:
                table = await create_table(self.url, f"127.0.1.{self.games % 250 + 1}", 2,
                                           bots=int(bot), bot="heuristic")
            except RuntimeError:
                self.refused.append(time.perf_counter())
                await asyncio.sleep(1)
                continue
            rnd = random.Random(self.games)
            if bot:
                await seat_player(self.url, "127.0.0.1", table, "Cy", self.think, rnd, self.latencies, self.bot_moves)
                continue
            self.shared.value = table.encode()
            await asyncio.gather(*(seat_player(self.url, "127.0.0.1", table, name, self.think, rnd,
                                               self.latencies) for name in ("Ana", "Bo")))

    def window(self, t0: float, t1: float, of: str = "latencies") -> list[float]:
        return sorted(lat for sent, lat in getattr(self, of) if t0 <= sent < t1)


# ---------------------------------------------------------------------- the attacks

class Attack:
    """An attack's client side, in a process of its own: runs until `stop` is set; `stats` is
    what it got done."""

    def __init__(self, url: str, stop, params: dict, victim) -> None:
        self.url = url
        self.stop = stop
        self.params = params
        self.victim = victim      # the victim's current table id (bytes, shared)
        self.stats: dict = {}

    def count(self, key: str, n: int = 1) -> None:
        self.stats[key] = self.stats.get(key, 0) + n

    async def until_stopped(self) -> None:
        while not self.stop.is_set():
            await asyncio.sleep(0.05)

    async def paced(self, ws, msg: dict, per_second: float, kinds: tuple[str, ...]) -> None:
        """Send `msg` at `per_second` (under the server's rate of 20), counting the replies by type."""
        while not self.stop.is_set():
            t = time.monotonic()
            reply = await request(ws, msg, *kinds)
            self.count(reply["type"] if reply["type"] != "error" else reply["code"])
            await asyncio.sleep(max(0.0, 1 / per_second - (time.monotonic() - t)))

    async def again(self, attempt) -> None:
        """`attempt()` over and over, counting how the server cut it short when it did."""
        while True:
            try:
                await attempt()
            except (OSError, ConnectionClosed, InvalidMessage, InvalidStatus, asyncio.TimeoutError) as e:
                self.count(f"cut ({type(e).__name__})")
                await asyncio.sleep(0.01)

    async def run(self, name: str) -> dict:
        work = asyncio.gather(getattr(self, name)(), return_exceptions=True)
        await self.until_stopped()
        work.cancel()
        try:
            await work
        except asyncio.CancelledError:
            pass
        return self.stats

    async def claim(self) -> None:
        async def one():
            async with await open_ws(self.url, "127.0.0.2") as ws:
                await ws.send(wire.encode({"type": "hello", "version": wire.VERSION,
                                           "table": secrets.token_hex(3), "seat": 0}))
                try:
                    await ws.recv()
                    self.count("welcomed")
                except ConnectionClosed:
                    self.count(f"closed {ws.close_code}")
        await asyncio.gather(*(self.again(one) for _ in range(8)))

    async def list(self) -> None:
        async def one():
            async with await open_ws(self.url, "127.0.0.3") as ws:
                await hello(ws)
                await self.paced(ws, {"type": "list"}, 19, ("tables", "error"))
        await asyncio.gather(*(self.again(one) for _ in range(8)))

    async def table(self) -> None:
        async def one():
            async with await open_ws(self.url, "127.0.0.4") as ws:
                await hello(ws)
                await self.paced(ws, {"type": "create", "game": GAME, "seats": 4, "bots": 0, "options": {},
                                      "blind": False}, 19,
                                 ("created", "error"))
        try:
            await asyncio.wait_for(asyncio.gather(*(self.again(one) for _ in range(4))), self.params["seconds"] - 1)
        except asyncio.TimeoutError:
            pass
        try:   # and someone else, meanwhile?
            await create_table(self.url, "127.0.0.5", 2)
            self.stats["another_address_can_create"] = True
        except RuntimeError as e:
            self.stats["another_address_can_create"] = str(e)

    async def watch(self) -> None:
        ids = self.params["replayable"]
        rnd = random.Random(0)

        async def one():
            async with await open_ws(self.url, "127.0.0.6", max_queue=None) as ws:
                await hello(ws)
                while True:
                    t = time.monotonic()
                    await ws.send(wire.encode({"type": "watch", "table": rnd.choice(ids), "have": 0}))
                    while True:   # the backlog, the status, the snapshot; or a refusal
                        reply = decode(await ws.recv())
                        if reply["type"] == "snapshot":
                            self.count("watched")
                            break
                        if reply["type"] == "error":
                            self.count(reply["code"])
                            break
                    await asyncio.sleep(max(0.0, 1 / 19 - (time.monotonic() - t)))
        await asyncio.gather(*(self.again(one) for _ in range(15)))

    async def slow(self) -> None:
        loop = asyncio.get_running_loop()

        async def one():
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
            sock.bind(("127.0.0.7", 0))
            sock.setblocking(False)
            await loop.sock_connect(sock, ("127.0.0.1", self.params["port"]))
            ws = await connect(self.url, sock=sock, max_size=wire.MAX_SERVER_FRAME, compression=None,
                               max_queue=1)
            try:
                await ws.send(wire.encode({"type": "hello", "version": wire.VERSION}))
                for n in range(10**9):    # never reads a frame
                    if n % 10 == 0:       # follows the victim from table to table
                        await ws.send(wire.encode({"type": "watch", "table": self.victim.value.decode()}))
                    await ws.send(wire.encode({"type": "list"}))
                    self.count("lists_unread")
                    await asyncio.sleep(0.2)
            finally:
                ws.transport.abort()
        await asyncio.gather(*(self.again(one) for _ in range(10)))

    async def idle(self) -> None:
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))

        async def one(i):
            reader, writer = await asyncio.open_connection("127.0.0.1", self.params["port"],
                                                           local_addr=(f"127.0.2.{i % 200 + 1}", 0))
            self.count("opened")
            try:
                await reader.read(1)    # until the server cuts it
            finally:
                writer.close()
        await asyncio.gather(*(self.again(lambda i=i: one(i)) for i in range(900)))

    async def bots(self) -> None:
        async def table(source: str, n: int):
            tid = await create_table(self.url, source, 4, bots=3, bot="ismcts")
            self.count("tables")
            await seat_player(self.url, source, tid, f"Eve{n}", 0.0, random.Random(n), None)
            self.count("games")
        await asyncio.gather(*(self.again(lambda i=i: table(f"127.0.0.{9 + i // 4}", i)) for i in range(12)))


def attack_process(name: str, url: str, stop, params: dict, victim, out) -> None:
    out.put(asyncio.run(Attack(url, stop, params, victim).run(name)))


# ---------------------------------------------------------------------- the measurement

def quantile(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def latency_row(lat: list[float]) -> dict:
    return {"acks": len(lat), "p50_ms": round(quantile(lat, 0.5) * 1000, 1),
            "p99_ms": round(quantile(lat, 0.99) * 1000, 1),
            "max_ms": round((lat[-1] if lat else float("nan")) * 1000, 1)}


def bot_row(waits: list[float]) -> dict:
    return {"moves": len(waits), "p50_ms": round(quantile(waits, 0.5) * 1000, 1),
            "p99_ms": round(quantile(waits, 0.99) * 1000, 1)}


async def measure(url: str, port: int, attacks: list[str], seconds: float, think: float,
                  replayable: list[str], server_pid: int) -> list[dict]:
    """Each attack's window right after a quiet one of the same length: this machine's speed
    drifts (other work shares its cores), so each attack is compared with the quiet moment next
    to it."""
    ctx = multiprocessing.get_context("spawn")
    victim = Victim(url, think, ctx.Array("c", 32))
    playing = asyncio.create_task(victim.run())
    await asyncio.sleep(2)                          # the first games are dealt
    results = []
    for name in attacks:
        t0, cpu0 = time.perf_counter(), cpu_seconds(server_pid)
        await asyncio.sleep(seconds)
        quiet = latency_row(victim.window(t0, time.perf_counter()))
        quiet_bot = bot_row(victim.window(t0, time.perf_counter(), "bot_moves"))
        quiet["server_cpu"] = round((cpu_seconds(server_pid) - cpu0) / (time.perf_counter() - t0), 2)
        stop, out = ctx.Event(), ctx.Queue()
        params = {"seconds": seconds, "port": port, "replayable": replayable}
        proc = ctx.Process(target=attack_process, args=(name, url, stop, params, victim.shared, out), daemon=True)
        proc.start()
        await asyncio.sleep(3 if name == "bots" else 1)   # the attack under way (bots: their tables dealt)
        t0, cpu0, attack_cpu0 = time.perf_counter(), cpu_seconds(server_pid), cpu_seconds(proc.pid)
        await asyncio.sleep(seconds)
        t1 = time.perf_counter()
        row = {"attack": name, **latency_row(victim.window(t0, t1)),
               "server_cpu": round((cpu_seconds(server_pid) - cpu0) / (t1 - t0), 2),
               "attack_cpu": round((cpu_seconds(proc.pid) - attack_cpu0) / (t1 - t0), 2),
               "load": os.getloadavg()[0],
               "victim_refused_tables": sum(t0 <= t < t1 for t in victim.refused),
               "bot_move": bot_row(victim.window(t0, t1, "bot_moves")), "quiet_bot_move": quiet_bot}
        stop.set()
        stats = await asyncio.get_running_loop().run_in_executor(None, out.get, True, 60)
        proc.join(10)
        if playing.done():
            playing.result()                        # the victim failed: say why
        ratio = row["p99_ms"] / quiet["p99_ms"] if quiet["p99_ms"] else None
        row.update(quiet_p99_ms=quiet["p99_ms"], quiet_server_cpu=quiet["server_cpu"], x_quiet=round(ratio, 2) if ratio else None,
                   ok=bool(row["p99_ms"] < TARGET_MS and (ratio is None or ratio <= 2.0)
                           and not row["victim_refused_tables"]), attack_got=stats)
        results.append(row)
        print(f"{name:>6}: p50 {row['p50_ms']:5.1f} ms  p99 {row['p99_ms']:6.1f} ms  max {row['max_ms']:6.1f} ms "
              f"({row['acks']} acks, server cpu {row['server_cpu']:.2f}, attacker {row['attack_cpu']:.2f}, load "
              f"{row['load']:.1f}) | quiet just before: p99 {quiet['p99_ms']:5.1f} ms ({quiet['acks']} acks, cpu "
              f"{quiet['server_cpu']:.2f}) | {row['x_quiet'] or 0:5.2f}x  {'ok  ' if row['ok'] else 'FAIL'} | {stats}"
              + (f" | the victim could not create a table {row['victim_refused_tables']} times"
                 if row["victim_refused_tables"] else ""), flush=True)
        bot = row["bot_move"]
        print(f"{'':>6}  the victim's bot's move: p50 {bot['p50_ms']:6.1f} ms  p99 {bot['p99_ms']:7.1f} ms "
              f"({bot['moves']} moves) | quiet just before: p50 {quiet_bot['p50_ms']:6.1f} ms  p99 "
              f"{quiet_bot['p99_ms']:7.1f} ms ({quiet_bot['moves']} moves)", flush=True)
        await asyncio.sleep(1)
    playing.cancel()
    return results


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--finished", type=int, default=50_000, help="finished tables in the database")
    ap.add_argument("--replayable", type=int, default=500, help="of those, how many have their log (to watch)")
    ap.add_argument("--seconds", type=float, default=15.0, help="the measured window of each attack")
    ap.add_argument("--think", type=float, default=0.06, help="the victim's mean thinking time, seconds")
    ap.add_argument("--attack", action="append", choices=ATTACKS, help="run only these (repeatable)")
    ap.add_argument("--json", action="store_true", help="print only the JSON line")
    args = ap.parse_args(argv)
    attacks = args.attack or list(ATTACKS)
    with tempfile.TemporaryDirectory() as data_dir:
        t = time.perf_counter()
        replayable = seed_database(Path(data_dir), args.finished, min(args.replayable, args.finished))
        if not args.json:
            print(f"seeded {args.finished} finished tables ({len(replayable)} with logs) in "
                  f"{time.perf_counter() - t:.1f} s", flush=True)
        proc, url = serve(Path(data_dir), "sqlite", fast=False)    # it starts bot workers
        try:
            results = asyncio.run(measure(url, int(url.rsplit(":", 1)[1]), attacks, args.seconds, args.think,
                                          replayable, proc.pid))
        finally:
            proc.terminate()
            proc.wait()
    worst = max((r["p99_ms"] for r in results), default=0)
    print(json.dumps({"bench": "isolation", "finished": args.finished, "seconds": args.seconds,
                      "think_s": args.think, "target_p99_ms": TARGET_MS, "worst_p99_ms": worst,
                      "all_ok": all(r["ok"] for r in results), "attacks": results}))


if __name__ == "__main__":
    main()
