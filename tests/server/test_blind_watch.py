"""What a spectator and a queued move meet at a blind table, on a real server (issue 32).

One whole San Juan match (4 seats: Ana and Bo, two computer seats) serves every assertion here:
- a spectator that watches it from the start is sent every public event of every move, in
  order, exactly once, as the signed log's move entries say them (their `events` digests) and as
  a spectator's replay of the whole record makes them;
- a person's move that reaches the server while it waits for the clients (Ana holds back her
  shares of an `open` for a moment) is queued and acknowledged, and judged once the wait is
  over: refused then by §9's rule 3 or the rules, its player is told why, and nothing of it
  reaches the log; one signed before the seat's own latest move is refused at once, never
  queued; every record verifies.

A person's move that is queued and then *applied* cannot arise in San Juan (nor in Puerto Rico):
the server waits for the clients only inside a step (a move being applied), and a step starts
only with a move that closes every other question open before it (a sequential question has one
seat; a simultaneous stage's answers are only noted until the last one, which resolves it). So a
move that crosses a wait was decided on a question that is gone: tests/protocol/
test_blind_queue.py drives the applied case with the in-process exchange and a game that has
such a moment.
"""
from __future__ import annotations

import asyncio


from client.table import _unseen
from protocol.blind_exchange import BlindPlayerExchange
from protocol.blind_replica import LogReader, public_events
from protocol.codec import pack, unpack
from protocol.messages import Signed, events_digest
from protocol.signing import SIG_MOVE, move_payload


from .rawclient import PATIENCE, BlindSeatPlayer, Raw, until


class Watcher:
    """A spectator as a client is one: the entries, and the public events of the view updates
    (a snapshot's those it did not show yet, client/table.py `_unseen`)."""

    def __init__(self, raw: Raw, table: str) -> None:
        self.raw, self.table = raw, table
        self.bx = BlindPlayerExchange(None)     # checks every entry as it comes
        self.events: list[dict] = []
        self.gaps = 0                           # snapshots whose events did not join those shown
        self.snapshots = self.deltas = 0
        self.bursts: list[list[dict]] = []      # the events of each delta
        self.seq = None

    async def follow(self, timeout: float = 300.0) -> None:
        await self.raw.send({"type": "watch", "table": self.table})

        async def loop():
            while self.bx.report is None:
                msg = await self.raw.recv(PATIENCE)
                kind = msg["type"]
                if kind == "entry":
                    self.bx.receive(Signed.parse("entry", msg["payload"], msg["sig"]))
                elif kind == "snapshot":
                    gap, recent = _unseen(self.events, msg["events"])
                    self.gaps += gap
                    self.events += recent
                    self.snapshots += 1
                    self.seq = msg["seq"]
                elif kind == "delta":
                    assert msg["base"] == self.seq, f"a delta from seq {msg['base']}, the spectator is at {self.seq}"
                    self.events += msg["events"]
                    self.bursts.append(msg["events"])
                    self.deltas += 1
                    self.seq = msg["seq"]
        await asyncio.wait_for(loop(), timeout)


def replayed_events(record: list[Signed]) -> list[tuple[int, list[dict]]]:
    """Per move entry of a whole record (its final entry in): its index and the public events a
    spectator's replica of the log makes of it, in words."""
    reader = LogReader()
    out = []
    for i, entry in enumerate(record):
        reader.accept(entry)
        if entry.body["t"] == "move":
            engine = reader.replica.engine
            out.append((i, engine.visible_events(public_events(reader.events), None)))
    return out


def hold_back_shares(player: BlindSeatPlayer, pick, release: asyncio.Event) -> list[dict]:
    """Make `player` hold back, once, the shares messages `pick(player)` chooses from what it is
    about to send (none: it tries again at its next send), until `release` is set. Returns the
    list of those held."""
    held: list[dict] = []
    real_flush = BlindSeatPlayer.flush

    async def flush(self):
        chosen = [] if held else pick(self)
        if chosen:
            held.extend(chosen)
            self.outbox = [m for m in self.outbox if m not in chosen]

            async def later():
                await release.wait()
                for m in held:
                    self.unconfirmed.append(m)
                    await self.raw.send(m)
            asyncio.create_task(later())
        await real_flush(self)
    player.flush = flush.__get__(player)       # type: ignore[method-assign]
    return held


async def watched_table(server, seats: int, bots: int, **create):
    """A blind table watched from before its start: the lobby, the table's id, Ana and Bo seated,
    the spectator and its task, and the server's table core."""
    lobby = await Raw.connect(server.url)
    table = await lobby.create(seats, bots, blind=None, **create)
    ana, bo = (BlindSeatPlayer(server.url, table, name, seed=i) for i, name in enumerate(("Ana", "Bo")))
    watcher = Watcher(await Raw.connect(server.url), table)
    watching = asyncio.create_task(watcher.follow())
    await until(lambda: table in server.tables and server.tables[table].core.spectators, "the spectator in")
    for p in (ana, bo):
        await p.sit()
    return lobby, table, (ana, bo), watcher, watching, server.tables[table].core


async def test_a_spectator_hears_every_public_event_once_and_a_move_crossing_a_wait_is_queued(make_server):
    server = await make_server()
    lobby, table, (ana, bo), watcher, watching, core = await watched_table(server, 4, 2)

    # Ana holds back her shares of the first `open` that asks for hers, until Bo's crossing move
    # has been taken (acknowledged) by the server, which is then waiting for her.
    release = asyncio.Event()

    def first_open_asking_hers(self) -> list[dict]:
        r = self.bx.reader
        if r is None or r.open_request is None or not r.last_move.get(bo.seat):
            return []
        asked = set(r.open_request[1])
        return [m for m in self.outbox if m["type"] == "shares" and asked & set(m["cards"])]
    held = hold_back_shares(ana, first_open_asking_hers, release)

    # Bo, once the server waits for Ana's shares: a move signed on the latest entry (queued), and
    # one signed before his own latest move (refused at once as stale, never queued).
    crossing: dict = {}
    answers: dict[int, dict] = {}
    real_flush, real_handle = BlindSeatPlayer.flush, BlindSeatPlayer.handle

    def bo_handle(self, msg):
        if msg["type"] in ("ack", "reject") and msg["id"] in (1, 2):
            answers[msg["id"]] = msg
            if len(answers) == 2:
                crossing["open"] = core.exchange.waiting      # still waiting for Ana when both were answered
                release.set()
            return
        real_handle(self, msg)
    bo.handle = bo_handle.__get__(bo)

    async def bo_flush(self):
        await real_flush(self)
        ex = core.exchange
        if not crossing and ex is not None and ex.waiting and ex.waiting[0] == "open" \
                and self.bx.reader is not None and self.bx.reader.last_move.get(self.seat):
            reader = self.bx.reader
            hh, seat = reader.header_hash, self.seat
            seen, early = len(self.bx.record) - 1, reader.last_move[seat] - 1
            move = pack([0])
            crossing.update(seen=seen, log=len(ex.log), move=move)
            for cid, at in ((1, seen), (2, early)):
                sig = self.key.sign(SIG_MOVE, move_payload(hh, seat, self.bx.record[at].hash, move))
                await self.raw.send({"type": "act", "id": cid, "seq": at, "move": move, "sig": sig, "openings": None})
    bo.flush = bo_flush.__get__(bo)

    await asyncio.gather(watching, ana.play(timeout=300), bo.play(timeout=300))

    # ---- the queued move
    assert held and crossing, "the match had no open that asked for Ana's shares after Bo's first move"
    assert crossing["open"] is not None and crossing["open"][0] == "open", "the server stopped waiting too soon"
    assert answers[1]["type"] == "ack", answers[1]          # taken while the server waited: queued
    assert answers[2]["type"] == "reject" and answers[2]["code"] == "stale", answers[2]
    assert "cannot follow this seat's latest move" in answers[2]["message"], answers[2]
    told = [e for e in bo.errors if e["message"].startswith("Your move was not applied")]
    assert len(told) == 1 and told[0]["code"] in ("stale", "not_your_turn"), bo.errors
    assert ana.errors == [] and ana.rejects == [] and bo.rejects == []
    log = [e.body for e in core.exchange.log]
    assert not any(e["t"] == "move" and e.get("sig") is not None and e["seat"] == bo.seat
                   and e["seen"] == crossing["seen"] for e in log), "the refused move reached the log"
    # the wait ended with Ana's shares, and the step under way went on: its move entry follows them
    after = log[crossing["log"]:]
    assert any(e["t"] == "shares" and e["party"] == ana.bx.reader.party for e in after)

    # ---- every record verifies
    for p in (ana, bo):
        assert p.report.ok, p.report.text()
    assert watcher.bx.report.ok, watcher.bx.report.text()
    assert core.exchange.phase == "over"

    # ---- the spectator's events: those of the log's move entries, in order, each once
    moves = heard_as_logged(watcher, core)
    assert watcher.deltas > 100 and len(moves) > 50
    expected = watcher.events
    print(f"{len(moves)} moves, {len(expected)} public events, {watcher.snapshots} snapshots, "
          f"{watcher.deltas} deltas; Bo's crossing move: {told[0]['code']}")


async def test_moves_applied_in_one_step_reach_the_spectator_in_order_once(make_server, drawrace_registered):
    """Draw Race (tests/protocol/drawrace.py), whose round asks both seats at once: Ana draws
    (the top card is opened: the server waits for the clients), Bo's pass, decided on the same
    entry, reaches the server while it waits (Ana holds back her shares until it is taken) and is
    applied right after her draw, in the same step: the spectator is sent both moves' events
    in one update, in order, once, and the rest of the match as the log says it."""
    server = await make_server()
    lobby, table, (ana, bo), watcher, watching, core = await watched_table(server, 2, 0, game="drawrace")
    real_flush = BlindSeatPlayer.flush
    bo_first: dict = {}
    release = asyncio.Event()

    ana.rnd.random = lambda: 0.0        # every pick of hers: draw

    def first_open(self) -> list[dict]:
        r = self.bx.reader
        return [] if r is None or r.open_request is None else [m for m in self.outbox if m["type"] == "shares"]
    hold_back_shares(ana, first_open, release)

    async def bo_flush(self):
        if "sent" not in bo_first:
            if "move" not in bo_first and self.bx.prompt() is not None:
                bo_first["move"] = {**self.bx.move(["pass"]), "id": 1}    # decided now, sent once the server waits
            ex = core.exchange
            if "move" in bo_first and ex is not None and ex.waiting and ex.waiting[0] == "open":
                bo_first["sent"] = len(ex.log)
                self.pending, self.moved = bo_first["move"], True
                self.unconfirmed.append(self.pending)
                await self.raw.send(self.pending)
            self.moving = False
            await real_flush(self)
            self.moving = True
            return
        await real_flush(self)
    bo.flush = bo_flush.__get__(bo)
    real_handle = BlindSeatPlayer.handle

    def bo_handle(self, msg):
        real_handle(self, msg)
        if msg["type"] == "ack" and msg["id"] == 1:
            bo_first["queued"] = list(core.exchange.queue)
            release.set()
    bo.handle = bo_handle.__get__(bo)

    await asyncio.gather(watching, ana.play(timeout=120), bo.play(timeout=120))
    for p in (ana, bo):
        assert p.report.ok, p.report.text()
        assert p.errors == [] and p.rejects == [], (p.errors, p.rejects)
    assert watcher.bx.report.ok, watcher.bx.report.text()
    assert [q[0] for q in bo_first["queued"]] == [bo.seat], "Bo's pass was not queued"
    log = [e.body for e in core.exchange.log]
    first = [i for i, e in enumerate(log) if e["t"] == "move"][:2]
    assert [(log[i]["seat"], unpack(log[i]["move"])) for i in first] == [(ana.seat, ["draw"]), (bo.seat, ["pass"])]
    assert log[first[1]]["seen"] < bo_first["sent"] <= first[0], "Bo's pass was signed before the wait"
    heard_as_logged(watcher, core)
    texts = [[e["text"] for e in burst] for burst in watcher.bursts]
    both = next(t for t in texts if t)
    assert both[0].startswith("Ana draws a") and both[1:] == ["Bo passes.", "Round 1 ends."], texts[:3]


def heard_as_logged(watcher: Watcher, core) -> list[tuple[int, list[dict]]]:
    """Assert that the spectator was sent the public events of the log's move entries, in order,
    each once: those a spectator's replay of the whole record makes, and cut at its counts, each
    entry's part is what the entry's digest holds. The replay's moves, for more checks."""
    record = watcher.bx.record
    assert [e.hash for e in record] == [e.hash for e in core.exchange.log]
    moves = replayed_events(record)
    expected = [e for _, shown in moves for e in shown]
    assert watcher.gaps == 0
    assert watcher.events == expected, _first_difference(watcher.events, expected)
    at = 0
    for i, shown in moves:
        part = watcher.events[at:at + len(shown)]
        at += len(shown)
        assert (events_digest(part) if part else None) == record[i].body.get("events"), f"entry {i}"
    return moves


def _first_difference(got: list, want: list) -> str:
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            return f"event {i}: sent {g}, the log's {w}"
    return f"{len(got)} events sent, the log has {len(want)}"
