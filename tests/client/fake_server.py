"""A small stand-in for the Governor server, written from protocol/wire.py alone, so the client
can be developed and tested before the real server exists. Not for production: one process,
no persistence, no limits."""
from __future__ import annotations

import asyncio
import secrets

import websockets

import games
from bots.random_bot import RandomBot
from protocol import wire
from protocol.diff import diff, view_hash
from protocol.exchange import PlayerExchange, ServerExchange
from protocol.signing import Signer


class Seat:
    def __init__(self, pid, name, token=None, bot=None):
        self.pid, self.name, self.token, self.bot = pid, name, token, bot
        self.ws = None
        self.sent = []          # signed messages for this seat, in order
        self.view = None
        self.seq = 0
        self.question_seq = 0
        self.answers = {}
        self.exchange = None


class FakeTable:
    def __init__(self, server, tid, game, n, bots, options):
        self.server, self.id, self.game, self.n, self.options = server, tid, game, n, options
        self.engine = games.get(game)
        self.seats: list[Seat] = []
        self.bots = bots
        for i in range(bots):
            self.seats.append(Seat(f"bot{i}:{secrets.token_hex(4)}", f"Bot{i}", bot=RandomBot(i)))
        self.ex = None
        self.watchers = []
        self.public = None
        self.pseq = 0

    def full(self):
        return len(self.seats) == self.n

    async def start(self):
        self.ex = ServerExchange(self.game, self.options, [(s.pid, s.name) for s in self.seats], self.server.signer)
        for s in self.seats:
            if s.bot:
                s.exchange = PlayerExchange(s.pid)
        await self.deliver([self.ex.header])

    async def deliver(self, msgs):
        for m in msgs:
            targets = range(self.n) if m.kind == "entry" else [m.body["seat"]]
            for i in targets:
                seat = self.seats[i]
                seat.sent.append(m)
                if seat.bot:
                    reply = seat.exchange.receive(m)
                    if reply is not None:
                        if m.body["t"] == "header":
                            await self.deliver(self.ex.commit(i, reply))
                        else:
                            await self.deliver(self.ex.reveal(i, reply))
                elif seat.ws is not None:
                    await self.send(seat, {"type": m.kind, "table": self.id, "payload": m.payload, "sig": m.sig})

    async def send(self, seat, msg):
        try:
            await seat.ws.send(wire.encode(msg))
        except websockets.ConnectionClosed:
            pass

    async def views(self, events, snapshot_for=None):
        if self.ex is None or self.ex.state is None:
            return
        for i, seat in enumerate(self.seats):
            if seat.bot or seat.ws is None:
                continue
            v = self.engine.view(self.ex.state, i)
            ev = self.engine.visible_events(events, i)
            if seat.view is None or seat is snapshot_for:
                seat.seq += 1
                seat.view = v
                if v.get("prompt"):
                    seat.question_seq = seat.seq
                await self.send(seat, {"type": "snapshot", "table": self.id, "seq": seat.seq, "view": v,
                                       "hash": view_hash(v), "events": ev})
            elif v != seat.view:
                ops = diff(seat.view, v)
                base = seat.seq
                seat.seq += 1
                if v.get("prompt") != seat.view.get("prompt") and v.get("prompt"):
                    seat.question_seq = seat.seq
                seat.view = v
                await self.send(seat, {"type": "delta", "table": self.id, "base": base, "seq": seat.seq,
                                       "ops": ops, "hash": view_hash(v), "events": ev})
        pv = self.engine.view(self.ex.state, None)
        if self.public != pv:
            base, self.pseq = self.pseq, self.pseq + 1
            ops = diff(self.public, pv) if self.public is not None else None
            for w in list(self.watchers):
                try:
                    if ops is None:
                        await w.send(wire.encode({"type": "snapshot", "table": self.id, "seq": self.pseq, "view": pv,
                                                  "hash": view_hash(pv), "events": []}))
                    else:
                        await w.send(wire.encode({"type": "delta", "table": self.id, "base": base, "seq": self.pseq,
                                                  "ops": ops, "hash": view_hash(pv),
                                                  "events": self.engine.visible_events(events, None)}))
                except websockets.ConnectionClosed:
                    self.watchers.remove(w)
            self.public = pv

    async def play_bots(self):
        while self.ex.phase == "play":
            seat = next((s for s in self.engine.to_act(self.ex.state) if self.seats[s].bot), None)
            if seat is None:
                return
            action = self.seats[seat].bot.choose(self.engine.view(self.ex.state, seat))
            await self.deliver(self.ex.act(seat, action))
            await self.views(self.ex.last_events)
            await asyncio.sleep(0)

    async def after_reveal(self):
        await self.views([])
        await self.play_bots()


class FakeServer:
    def __init__(self):
        self.signer = Signer.generate()
        self.tables: dict[str, FakeTable] = {}
        self.tokens: dict[str, tuple[FakeTable, int]] = {}
        self.server = None
        self.port = None
        self.conns = set()

    async def start(self):
        self.server = await websockets.serve(self.handler, "127.0.0.1", 0, compression=None)
        self.port = self.server.sockets[0].getsockname()[1]
        return self.port

    async def stop(self):
        self.server.close()
        await self.server.wait_closed()

    async def drop_all(self):
        for ws in list(self.conns):
            await ws.close(1012, "restarting")

    async def handler(self, ws):
        self.conns.add(ws)
        try:
            await self._handle(ws)
        except websockets.ConnectionClosed:
            pass
        finally:
            self.conns.discard(ws)
            for t in self.tables.values():
                for s in t.seats:
                    if s.ws is ws:
                        s.ws = None
                if ws in t.watchers:
                    t.watchers.remove(ws)

    async def _handle(self, ws):
        hello = wire.decode(await ws.recv())
        assert hello["type"] == "hello"
        await ws.send(wire.encode({"type": "welcome", "version": wire.VERSION, "server": self.signer.fingerprint,
                                   "key": self.signer.public_key}))
        here = None
        if "token" in hello:
            if hello["token"] not in self.tokens:
                await ws.close(wire.CLOSE_BAD_HELLO, "unknown token")
                return
            t, i = self.tokens[hello["token"]]
            here = (t, i)
            seat = t.seats[i]
            if seat.ws is not None:
                await seat.ws.close(wire.CLOSE_REPLACED, "replaced")
            seat.ws = ws
            for m in seat.sent[hello.get("have", 0):]:
                await t.send(seat, {"type": m.kind, "table": t.id, "payload": m.payload, "sig": m.sig})
            seat.view = None
            await t.views([])
        async for frame in ws:
            msg = wire.decode(frame)
            kind = msg["type"]
            if kind == "list":
                await ws.send(wire.encode({"type": "tables", "tables": [
                    {"table": t.id, "game": t.game, "seats": t.n, "taken": len(t.seats), "bots": t.bots,
                     "options": t.options, "state": "waiting" if not t.full() else "playing"}
                    for t in self.tables.values()]}))
            elif kind == "create":
                tid = secrets.token_hex(3)
                self.tables[tid] = FakeTable(self, tid, msg["game"], msg["seats"], msg["bots"], msg.get("options", {}))
                await ws.send(wire.encode({"type": "created", "table": tid}))
            elif kind == "sit":
                t = self.tables.get(msg["table"])
                if t is None or t.full():
                    await ws.send(wire.encode({"type": "error", "code": "no_seat", "message": "No free seat there."}))
                    continue
                token = secrets.token_hex(16)
                seat = Seat(f"p{len(t.seats)}:{secrets.token_hex(4)}", msg["name"], token)
                seat.ws = ws
                t.seats.append(seat)
                i = len(t.seats) - 1
                self.tokens[token] = (t, i)
                here = (t, i)
                await ws.send(wire.encode({"type": "seated", "table": t.id, "seat": i, "token": token,
                                           "player_id": seat.pid}))
                if t.full():
                    await t.start()
            elif kind == "watch":
                t = self.tables.get(msg["table"])
                if t is None:
                    await ws.send(wire.encode({"type": "error", "code": "no_table", "message": "No such table."}))
                    continue
                t.watchers.append(ws)
                if t.public is not None:
                    await ws.send(wire.encode({"type": "snapshot", "table": t.id, "seq": t.pseq, "view": t.public,
                                               "hash": view_hash(t.public), "events": []}))
            elif kind == "commit":
                t, i = here
                await t.deliver(t.ex.commit(i, msg["commitment"]))
            elif kind == "reveal":
                t, i = here
                try:
                    out = t.ex.reveal(i, msg["seed"])
                except Exception as e:
                    await ws.send(wire.encode({"type": "error", "code": "bad", "message": str(e)}))
                    continue
                await t.deliver(out)
                if t.ex.phase == "play":
                    await t.after_reveal()
            elif kind == "resync":
                t, i = here
                t.seats[i].view = None
                await t.views([], snapshot_for=t.seats[i])
            elif kind == "act":
                t, i = here
                seat = t.seats[i]
                if msg["id"] in seat.answers:
                    await ws.send(wire.encode(seat.answers[msg["id"]]))
                    continue
                if msg["seq"] < seat.question_seq:
                    answer = {"type": "reject", "id": msg["id"], "code": "stale",
                              "message": "That answer was for an older question."}
                    seat.answers[msg["id"]] = answer
                    await ws.send(wire.encode(answer))
                    seat.view = None
                    await t.views([])
                    continue
                try:
                    out = t.ex.act(i, msg["action"])
                except games.IllegalAction as e:
                    answer = {"type": "reject", "id": msg["id"], "code": e.code, "message": e.message}
                    seat.answers[msg["id"]] = answer
                    await ws.send(wire.encode(answer))
                    continue
                answer = {"type": "ack", "id": msg["id"]}
                seat.answers[msg["id"]] = answer
                await ws.send(wire.encode(answer))
                await t.deliver(out)
                await t.views(t.ex.last_events)
                await t.play_bots()
