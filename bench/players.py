"""Headless players for the load benchmarks (bench/server.py, bench/cluster.py): a websocket
client per seat that speaks the wire protocol (hello, create or sit, commit and reveal), then
answers every decision with a pick at random from its prompt after a think time drawn uniformly
from [0, 2 × think] seconds; and a load of N such tables, their clients spread over several
processes, measured over a fixed window once every table is dealt."""
from __future__ import annotations

import asyncio
import multiprocessing
import os
import random
import secrets
import statistics
import time
from pathlib import Path

from processes import cpu_seconds  # first: it puts the project on sys.path
from websockets.asyncio.client import connect

from games.choice import pick_uniform
from protocol import wire
from protocol.codec import pack
from protocol.diff import patch
from protocol.fairness import player_commit
from protocol.messages import Signed
from protocol.signing import SIG_COMMIT, SIG_MOVE, SIG_REVEAL, Signer, commit_payload, move_payload, reveal_payload


def _mean(xs: list) -> float:
    return statistics.mean(xs) if xs else 0.0


def _ratio(a: float, b: float) -> float | None:
    return round(a / b, 3) if b else None


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


class Stats:
    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.delta_bytes: list[int] = []
        self.snapshot_bytes: list[int] = []
        self.real_snapshot_bytes: list[int] = []
        self.delta_bytes_sampled: list[int] = []
        self.ops_bytes: list[int] = []
        self.view_bytes: list[int] = []
        self.measuring = False
        self.dealt = 0
        self.rejects = 0

    # What a client process measured, sent to the process that runs the load, which adds it up.
    MEASURED = ("latencies", "delta_bytes", "snapshot_bytes", "real_snapshot_bytes", "delta_bytes_sampled",
                "ops_bytes", "view_bytes")

    def measured(self) -> dict:
        return {"rejects": self.rejects, **{k: getattr(self, k) for k in self.MEASURED}}

    def add(self, measured: dict) -> None:
        self.rejects += measured["rejects"]
        for k in self.MEASURED:
            getattr(self, k).extend(measured[k])


class Seat:
    """One seat on an open connection, played to the end of its match: sits, commits and
    reveals its seed, then answers every decision it owes with a pick at random from its prompt
    after a think time drawn from [0, 2 × think] seconds, one command at a time. What it is sent
    is told to the hooks below, for what a benchmark measures."""

    def __init__(self, ws, think: float, rnd: random.Random) -> None:
        self.ws = ws
        self.think = think
        self.rnd = rnd
        self.player_id = self.seat = self.view = self.seq = None
        self.pending: dict[int, float] = {}     # command id -> when it was sent (perf_counter)
        self.next_id = 0
        self.key = Signer.generate()            # the player's key: it signs what the seat sends
        self.hashes: list[bytes] = []           # the hash of every entry so far, by seq

    async def send(self, msg: dict) -> None:
        await self.ws.send(wire.encode(msg))

    async def recv(self) -> tuple[bytes, dict]:
        frame = await self.ws.recv()
        return frame, wire.decode(frame, wire.SERVER, wire.MAX_SERVER_FRAME)

    async def hello(self) -> None:
        await self.send({"type": "hello", "version": wire.VERSION})
        await self.recv()

    def on_entry(self, body: dict) -> None:
        """A signed entry of the match (its body)."""

    async def on_view(self, kind: str, frame: bytes, msg: dict) -> None:
        """A snapshot or delta, once self.view and self.seq are the new ones."""

    def on_answer(self, kind: str, sent: float) -> None:
        """The ack or reject of the command sent at `sent`."""

    async def play(self, table: str, name: str) -> dict | None:
        """None once the match is over, or the redirect that sends the seat to another process
        of a cluster before it is seated."""
        await self.send({"type": "sit", "table": table, "name": name, "key": self.key.public_key})
        seed = secrets.token_bytes(32)
        while True:
            frame, msg = await self.recv()
            kind = msg["type"]
            if kind == "redirect":      # not seated: another process of a cluster has the table
                return msg
            if kind == "seated":
                self.player_id, self.seat = msg["player_id"], msg["seat"]
            elif kind == "entry":
                entry = Signed.parse("entry", msg["payload"], msg["sig"])
                body = entry.body
                self.hashes.append(entry.hash)
                if body["t"] == "header":
                    commitment = player_commit(body["game_id"], self.player_id, seed)
                    await self.send({"type": "commit", "commitment": commitment, "sig": self.key.sign(
                        SIG_COMMIT, commit_payload(self.hashes[0], self.seat, commitment))})
                elif body["t"] == "commits":
                    await self.send({"type": "reveal", "seed": seed, "sig": self.key.sign(
                        SIG_REVEAL, reveal_payload(self.hashes[0], self.seat, seed))})
                elif body["t"] in ("final", "cancel"):
                    return None
                self.on_entry(body)
            elif kind in ("snapshot", "delta"):
                if kind == "snapshot":
                    self.view = msg["view"]
                elif msg["base"] != self.seq:
                    await self.send({"type": "resync"})
                    continue
                else:
                    self.view = patch(self.view, msg["ops"])
                self.seq = msg["seq"]
                await self.on_view(kind, frame, msg)
                await self._maybe_act()
            elif kind in ("ack", "reject"):
                sent = self.pending.pop(msg["id"], None)
                if sent is not None:
                    self.on_answer(kind, sent)
                if kind == "reject":
                    await self.send({"type": "resync"})
                else:
                    await self._maybe_act()

    async def _maybe_act(self) -> None:
        # The next question may arrive before the ack of the last answer: decide after both.
        prompt = self.view.get("prompt") if self.view else None
        if prompt and self.seat in self.view["to_act"] and not self.pending:
            await asyncio.sleep(self.rnd.uniform(0, 2 * self.think))
            self.next_id += 1
            self.pending[self.next_id] = time.perf_counter()
            move = pack(pick_uniform(prompt["options"], prompt["min"], prompt["max"], self.rnd))
            sig = self.key.sign(SIG_MOVE, move_payload(self.hashes[0], self.seat, self.hashes[self.seq], move))
            await self.send({"type": "act", "id": self.next_id, "seq": self.seq, "move": move, "sig": sig})


class _Measured(Seat):
    """A seat of the load: counts the seats dealt, and within the window its command-to-ack
    latencies and the sizes of its view updates."""

    def __init__(self, ws, think: float, rnd: random.Random, stats: Stats, dealt: asyncio.Event) -> None:
        super().__init__(ws, think, rnd)
        self.stats = stats
        self.dealt = dealt

    def on_entry(self, body: dict) -> None:
        if body["t"] == "reveals":
            self.stats.dealt += 1
            if self.stats.dealt == self.stats.target:
                self.dealt.set()

    async def on_view(self, kind: str, frame: bytes, msg: dict) -> None:
        stats, rnd = self.stats, self.rnd
        if not stats.measuring:
            return
        if kind == "snapshot":
            stats.real_snapshot_bytes.append(len(frame))
            return
        stats.delta_bytes.append(len(frame))
        if rnd.random() < 0.1:  # sampled: encoding costs the load generator
            # The same view as a snapshot carrying only this delta's events, and the view
            # changes alone against the whole view (no log in either).
            stats.delta_bytes_sampled.append(len(frame))
            stats.snapshot_bytes.append(len(wire.encode(
                {"type": "snapshot", "table": msg["table"], "seq": msg["seq"], "view": self.view,
                 "hash": msg["hash"], "events": msg["events"]})))
            stats.ops_bytes.append(len(pack(msg["ops"])))
            stats.view_bytes.append(len(pack(self.view)))
            if rnd.random() < 0.02:  # now and then, a real snapshot to compare with
                await self.send({"type": "resync"})

    def on_answer(self, kind: str, sent: float) -> None:
        if self.stats.measuring:
            self.stats.latencies.append(time.perf_counter() - sent)
        if kind == "reject":
            self.stats.rejects += 1


async def player(url: str, create: dict, table_q: asyncio.Queue | None, table: str | None, name: str,
                 think: float, stats: Stats, rnd: random.Random, dealt: asyncio.Event) -> None:
    """A seat played until its match ends. The table's first player creates it (table None) and
    tells the others (table_q) where it is: a cluster may place it on another process."""
    while True:
        async with connect(url, max_size=wire.MAX_SERVER_FRAME) as ws:
            redirect = await _session(ws, url, create, table_q, table, name, think, stats, rnd, dealt)
        if redirect is None:
            return
        url = redirect["url"]       # a cluster's process sends us on: ask the same there
        if table is None:
            create = {**create, "here": True}


async def _session(ws, url: str, create: dict, table_q: asyncio.Queue | None, table: str | None, name: str,
                   think: float, stats: Stats, rnd: random.Random, dealt: asyncio.Event) -> dict | None:
    """One connection of `player`: None once the match is over, or the redirect that sends it
    to another process of a cluster before it is seated."""
    seat = _Measured(ws, think, rnd, stats, dealt)
    await seat.hello()
    if table is None:  # the table's first player creates it and tells the others
        await seat.send(create)
        _, created = await seat.recv()
        if created["type"] == "redirect":
            return created
        table = created["table"]
        for _ in range(create["seats"] - 1):
            table_q.put_nowait((table, url))
    return await seat.play(table, name)


# Client processes of a load: the headless clients of one Python process saturate its core long
# before a server process does, so a load spreads its tables over several.
CLIENT_PROCESSES = max(2, os.cpu_count() or 1)


async def load(urls: list[str], create: dict, tables: int, seconds: float, think: float, pids: list[int],
               counters=None, client_processes: int = CLIENT_PROCESSES) -> dict:
    """N tables of headless players, table t created through the server urls[t % len(urls)] (a
    cluster may place it on another of its processes) and played by client process
    t % client_processes; the server processes are `pids`. Measured over the window: actions,
    command-to-ack latency, frame sizes, the servers' and the clients' CPU time, the servers'
    memory, and the rise of whatever `counters` (an async function returning {name: number})
    counts, per second as "NAME_per_s"."""
    seats = create["seats"]
    context = multiprocessing.get_context("spawn")   # not forked from this running event loop
    clients = []
    try:
        rss_before = sum(rss_kib(pid) for pid in pids)
        start = time.perf_counter()
        for w in range(min(client_processes, tables)):
            pipe, theirs = context.Pipe()
            proc = context.Process(target=_client_process, daemon=True,
                                   args=(theirs, urls, create, range(w, tables, client_processes), think))
            proc.start()
            clients.append((proc, pipe))
        # each says when all its seats are dealt, or why not
        said = await asyncio.gather(*(received(pipe, timeout=300) for _, pipe in clients))
        failed = next((s[1] for s in said if s is not None and s[0] == "failed"), None)
        if failed is not None:
            raise RuntimeError(failed)
        if None in said:
            raise TimeoutError(f"{tables} tables were not all dealt in 300 s")
        setup_s = time.perf_counter() - start
        rss_playing = sum(rss_kib(pid) for pid in pids)
        before = await counters() if counters else {}
        client_pids = [proc.pid for proc, _ in clients]
        cpu_before = sum(cpu_seconds(pid) for pid in pids)
        client_cpu_before = sum(cpu_seconds(pid) for pid in client_pids)
        for _, pipe in clients:
            pipe.send("measure")
        t0 = time.perf_counter()
        await asyncio.sleep(seconds)
        for _, pipe in clients:
            pipe.send("stop")
        window = time.perf_counter() - t0
        cpu = sum(cpu_seconds(pid) for pid in pids) - cpu_before
        client_cpu = sum(cpu_seconds(pid) for pid in client_pids) - client_cpu_before
        after = await counters() if counters else {}
        stats = Stats()
        for _, pipe in clients:
            stats.add(await received(pipe, timeout=60))
    finally:
        for proc, _ in clients:
            proc.kill()
            proc.join()
    lat = sorted(stats.latencies)
    q = statistics.quantiles(lat, n=100) if len(lat) >= 2 else [float("nan")] * 99
    mean_delta = statistics.mean(stats.delta_bytes) if stats.delta_bytes else 0
    mean_snap = statistics.mean(stats.snapshot_bytes) if stats.snapshot_bytes else 0
    return {"bench": "server", "game": create["game"], "options": create["options"], "seats": seats,
            "tables": tables, "clients": seats * tables, "client_processes": len(clients), "think_s": think,
            "setup_s": round(setup_s, 2), "window_s": round(window, 2),
            "actions_per_s": round(len(lat) / window, 1),
            "server_cpu_s": round(cpu, 2),
            "server_cpu_s_per_1000_actions": round(1000 * cpu / len(lat), 3) if lat else None,
            # the cores the servers kept busy, and the actions one core would serve at saturation
            "server_cores_busy": round(cpu / window, 2),
            "actions_per_server_cpu_s": round(len(lat) / cpu, 1) if cpu else None,
            # the clients' side of it: when they are as busy as the cores left let them be, the
            # load measures the clients, not the server
            "client_cores_busy": round(client_cpu / window, 2),
            "client_cpu_s_per_1000_actions": round(1000 * client_cpu / len(lat), 3) if lat else None,
            **{f"{k}_per_s": round((after[k] - before[k]) / window, 1) for k in after},
            "ack_p50_ms": round(q[49] * 1000, 2), "ack_p99_ms": round(q[98] * 1000, 2),
            "delta_bytes_mean": round(mean_delta, 1), "snapshot_bytes_mean": round(mean_snap, 1),
            "deltas": len(stats.delta_bytes), "rejects": stats.rejects,
            "real_snapshot_bytes_mean": round(_mean(stats.real_snapshot_bytes), 1),
            "delta_to_real_snapshot": _ratio(mean_delta, _mean(stats.real_snapshot_bytes)),
            "delta_to_same_events_snapshot": _ratio(_mean(stats.delta_bytes_sampled), mean_snap),
            "view_ops_to_view": _ratio(_mean(stats.ops_bytes), _mean(stats.view_bytes)),
            "server_rss_mib": round(rss_playing / 1024, 1),
            "server_kib_per_table": round((rss_playing - rss_before) / tables, 1)}


async def received(pipe, timeout: float | None = None):
    """What the other end of `pipe` sends next, awaited on this event loop; None after `timeout`
    seconds."""
    loop = asyncio.get_running_loop()
    ready = loop.create_future()
    loop.add_reader(pipe.fileno(), lambda: ready.done() or ready.set_result(None))
    try:
        await asyncio.wait_for(ready, timeout)
    except TimeoutError:
        return None
    finally:
        loop.remove_reader(pipe.fileno())
    return pipe.recv()


def _client_process(pipe, urls: list[str], create: dict, tables: range, think: float) -> None:
    """A client process of `load`: the players of these tables. It says ("dealt",) once all their
    seats are dealt (or ("failed", why)), measures from "measure" to "stop", then sends what it
    measured (Stats.measured)."""
    asyncio.run(_clients(pipe, urls, create, tables, think))


async def _clients(pipe, urls: list[str], create: dict, tables: range, think: float) -> None:
    seats = create["seats"]
    stats = Stats()
    stats.target = seats * len(tables)
    dealt = asyncio.Event()
    tasks = []
    for t in tables:
        q: asyncio.Queue = asyncio.Queue()
        url = urls[t % len(urls)]
        tasks.append(asyncio.create_task(player(url, create, q, None, f"T{t}P0", think, stats, random.Random(t),
                                                dealt)))
        for i in range(1, seats):
            async def later(i=i, q=q, t=t):
                table, owner = await q.get()    # the others sit where the table is
                await player(owner, create, None, table, f"T{t}P{i}", think, stats, random.Random(f"{t}/{i}"), dealt)
            tasks.append(asyncio.create_task(later()))
    dealing = asyncio.ensure_future(dealt.wait())
    waiting = {dealing, *tasks}
    while not dealing.done():
        done, waiting = await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
        failed = next((t for t in done if t is not dealing and t.exception() is not None), None)
        if failed is not None:      # a player failed: its error ends the run
            pipe.send(("failed", repr(failed.exception())))
            return
    pipe.send(("dealt",))
    await received(pipe)            # "measure"
    stats.measuring = True
    await received(pipe)            # "stop"
    stats.measuring = False
    pipe.send(stats.measured())
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
