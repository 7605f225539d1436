"""Blind tables on a real server (server/table_core.py with protocol/blind_exchange.py): real
clients over the real WebSocket protocol, each seat's client a BlindPlayerExchange
(tests/server/rawclient.py BlindSeatPlayer). Whole matches of both games with two people and
two computer seats, with everything the server holds or writes scanned for the cards only a
person holds; a forfeit; a server killed mid-match and restarted; bad input refused."""
from __future__ import annotations

import asyncio
import logging
import re
import signal
import sqlite3

import pytest

import games
from games.blind import HANDLE_BASE
from protocol import wire
from protocol.codec import DecodeError, pack, unpack
from protocol.signing import SIG_SHARES, SIG_SHUFFLE, shares_payload, shuffle_payload
from server.metrics import exposition
from server.sqlite_store import DB_FILE

from .rawclient import BlindSeatPlayer, Raw, until
from .test_resilience import resume_when_served, start_server

NAMES = ("Ana", "Bo")


async def blind_table(url: str, game: str, seats: int = 4, bots: int = 2, **create) -> tuple[str, list, Raw]:
    """A table with the server's default dealing (blind: two people), its people seated, and a
    spectator watching it."""
    lobby = await Raw.connect(url)
    table = await lobby.create(seats, bots, game=game, blind=None, **create)
    players = [BlindSeatPlayer(url, table, NAMES[i], seed=i) for i in range(seats - bots)]
    for p in players:
        await p.sit()
    return table, players, lobby


class Spectator:
    """Watches a table and follows its public log with a spectator's BlindPlayerExchange."""

    def __init__(self, raw: Raw, table: str) -> None:
        from protocol.blind_exchange import BlindPlayerExchange
        from protocol.messages import Signed
        self.raw, self.table, self.signed = raw, table, Signed
        self.bx = BlindPlayerExchange(None)
        self.snapshots = 0
        self.notices: list[dict] = []

    async def follow(self, timeout: float = 300.0) -> None:
        await self.raw.send({"type": "watch", "table": self.table})

        async def loop():
            while self.bx.report is None:
                msg = await self.raw.recv(60)
                if msg["type"] == "entry":
                    self.bx.receive(self.signed.parse("entry", msg["payload"], msg["sig"]))
                elif msg["type"] in ("snapshot", "delta"):
                    self.snapshots += 1
                elif msg["type"] == "notice":
                    self.notices.append(msg)
        await asyncio.wait_for(loop(), timeout)


# ---------------------------------------------------------------------- the scan

def strings(obj, out: list[str]) -> None:
    """Every string value in a message, recursing into maps, lists and the msgpack bytes inside
    (an entry's payload, a move); map keys are field names, not content."""
    if isinstance(obj, str):
        out.append(obj)
    elif isinstance(obj, dict):
        for v in obj.values():
            strings(v, out)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            strings(v, out)
    elif isinstance(obj, bytes) and obj:
        try:
            inner = unpack(obj)
        except (DecodeError, Exception):
            return
        if isinstance(inner, (dict, list)):
            strings(inner, out)


class Lines(logging.Handler):
    """Every log record of the server process, in full: its message, its exception and its
    extra fields."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.texts: list[str] = []
        self.fmt = logging.Formatter()

    def emit(self, record: logging.LogRecord) -> None:
        text = [record.getMessage(), repr(vars(record).get("extra", ""))]
        if record.exc_info:
            text.append(self.fmt.formatException(record.exc_info))
        text += [str(v) for k, v in vars(record).items() if k not in logging.LogRecord("", 0, "", 0, "", (), None).__dict__]
        self.texts.append("\n".join(text))


class Scan:
    """What the server process holds and writes, checked at every entry a client takes in:

    - its table state: the server's replica sees no card (handle -> item) that was ever private
      to a person's seat, unless it is open to everyone (its sight holds only public cards and
      the computer seats' own);
    - its text: every string of every frame it sent (to the seats, the spectator and the lobby
      connection: every connection it has), every log line (DEBUG and up, with exceptions and
      extra fields), every SQLite row of the table (its log rows' data, its seats and options)
      and the public events it keeps. None may name a kind of card (its key or its name) that a
      person holds now and that the server cannot know: no card of that kind is open to it (in
      its sight, in its public view). A name said earlier that becomes known later was not
      known when it was said, so the whole text so far is held against each checkpoint.

    It is not vacuous: `secret` kinds (held by a person, unknown to the server) are counted, and
    `control` counts the checkpoints where a person's own view, as an open table's server would
    send it, names one of them: this very scan would have caught that view in a frame."""

    def __init__(self, server, table: str, game: str, players: list, sources: list[Raw], lines: Lines) -> None:
        self.server, self.table, self.players, self.sources, self.lines = server, table, players, sources, lines
        self.engine = games.get(game)
        self.manifest = self.engine.manifest({})
        display = {}
        if game == "sanjuan":
            from games.sanjuan import cards
            display = dict(zip(cards.KEY, cards.NAME))
        self.names = {k: display.get(k, k.replace("_", " ").capitalize()) for k in set(self.manifest)}
        self.pattern = re.compile(r"\b(" + "|".join(re.escape(n) for n in self.names.values()) + r")\b")
        self.kind_of_name = {n: k for k, n in self.names.items()}
        self.db = None
        self.rows = 0
        self.frames = [0] * len(sources)
        self.logged = 0
        self.mentioned: dict[str, str] = {}     # kind -> the first text that named it
        self.bot_cards: set[int] = set()
        self.human_cards: set[int] = set()
        self.checkpoints = self.secret = self.control = 0

    def kinds_in(self, texts) -> dict[str, str]:
        found = {}
        for t in texts:
            if t in self.names:
                found.setdefault(t, t)
            for m in self.pattern.finditer(t):
                found.setdefault(self.kind_of_name[m.group(1)], t)
        return found

    def _new_texts(self) -> list[str]:
        out: list[str] = []
        for i, raw in enumerate(self.sources):
            for frame in raw.frames[self.frames[i]:]:
                strings(unpack(frame, wire.MAX_SERVER_FRAME), out)
            self.frames[i] = len(raw.frames)
        out += self.lines.texts[self.logged:]
        self.logged = len(self.lines.texts)
        if self.db is None:
            self.db = sqlite3.connect(f"file:{self.server.data_dir / DB_FILE}?mode=ro", uri=True)
        for (data,) in self.db.execute("SELECT data FROM log WHERE table_id = ? AND n >= ? ORDER BY n",
                                       (self.table, self.rows)):
            strings(unpack(data), out)
            self.rows += 1
        out += [t for row in self.db.execute("SELECT seats, options FROM tables WHERE id = ?", (self.table,))
                for t in row]
        core = self.server.tables[self.table].core
        strings(list(core.latest_events), out)
        return out

    def __call__(self, _player=None) -> None:
        core = self.server.tables[self.table].core
        ex = core.exchange
        self.mentioned.update({k: t for k, t in self.kinds_in(self._new_texts()).items() if k not in self.mentioned})
        r = ex.replica if ex is not None else None
        if r is None or r.state is None:
            return
        self.checkpoints += 1
        public = set(r.streams.open_to_all)
        for card, seat in r.private().items():
            (self.bot_cards if core.seats[seat].bot is not None else self.human_cards).add(card)
        seen = set(r.streams.sight.items)
        assert seen <= public | self.bot_cards, \
            f"the server's replica sees cards only a person held: {sorted(seen - public - self.bot_cards)}"
        assert not seen & (self.human_cards - public)
        known: set[str] = {self.manifest[i] for i in r.streams.sight.items.values() if i < len(self.manifest)}
        shown: list[str] = []
        strings(self.engine.view(r.state, None), shown)
        known |= set(self.kinds_in(shown))
        held: dict[str, int] = {}
        for p in self.players:
            pr = p.bx.replica
            if pr is None or pr.state is None:
                continue
            for card, seat in pr.private().items():
                item = pr.streams.sight.items.get(card)
                if seat == p.seat and item is not None:
                    held[self.manifest[item]] = p.seat
        secret = set(held) - known
        leaked = {k: self.mentioned[k] for k in secret if k in self.mentioned}
        assert not leaked, f"the server named a card only a person holds, before it was open: {leaked}"
        if secret:
            self.secret += 1
            for p in self.players:
                if p.bx.view() is not None:
                    own: list[str] = []
                    strings(p.bx.view(), own)
                    if secret & set(self.kinds_in(own)):
                        self.control += 1
                        break


@pytest.fixture
def lines():
    handler = Lines()
    logger = logging.getLogger("governor")
    root = logging.getLogger()
    old = logger.level
    logger.setLevel(logging.DEBUG)
    root.addHandler(handler)
    yield handler
    root.removeHandler(handler)
    logger.setLevel(old)


@pytest.mark.parametrize("game", ["sanjuan", "puertorico"])
async def test_a_blind_match_with_two_people_and_two_bots_plays_to_its_verified_end(make_server, lines, game):
    server = await make_server()
    table, players, lobby = await blind_table(server.url, game)
    # the lobby and the table say it is blind: two people, no `blind` asked for
    await lobby.send({"type": "list"})
    listed = next(t for t in (await lobby.expect("tables"))["tables"] if t["id"] == table)
    assert listed["blind"] is True
    watcher = Spectator(await Raw.connect(server.url), table)
    scan = Scan(server, table, game, players, [lobby, watcher.raw, *(p.raw for p in players)], lines)
    for p in players:
        p.on_entry = scan
    await asyncio.gather(watcher.follow(), *(p.play(timeout=300) for p in players))
    scan()
    core = server.tables[table].core
    assert core.exchange.phase == "over" and core.status == "over"
    header = core.exchange.log[0].body
    assert header["dealing"] == "blind" and [("key" in s) for s in header["seats"]] == [True, True, False, False]
    for p in players:
        assert p.report.ok, p.report.text()
        assert "blind dealing among 3 parties" in p.report.text()
        assert p.status["blind"] is True
        assert p.views == 0, "a seated player of a blind table got a view from the server"
        assert p.errors == [] and p.rejects == [], (p.errors, p.rejects)
        assert p.bx.record == [m for m in p.bx.record if m.kind == "entry"]      # no private messages
    assert watcher.bx.report.ok and watcher.snapshots > 0
    scores = [sc["total"] for sc in games.get(game).result(players[0].bx.replica.state)["scores"]]
    assert players[0].report.scores == players[1].report.scores == scores
    # the scan saw the match, and was able to see a leak
    assert scan.checkpoints > 100
    assert core.exchange.replica.streams.open_to_all, "no card was opened in public: the scan saw nothing"
    if game == "sanjuan":
        assert scan.human_cards and scan.secret > 50 and scan.control > 0, (scan.secret, scan.control)
    print(f"{game}: {scan.checkpoints} checkpoints, {scan.secret} with kinds only a person held, "
          f"{scan.control} where a person's own view would have been caught; {len(lines.texts)} log lines, "
          f"{scan.rows} rows")


async def test_the_server_takes_a_move_while_shares_of_dealt_cards_are_still_owed(make_server):
    """The server waits for shares only where a step needs them (tests/protocol/blind_match.py
    counts round trips so): Bo's client sends its shares behind his own move whenever he can
    decide, and the server plays the move before the shares it is owed come in."""
    server = await make_server()
    table, (ana, bo), _ = await blind_table(server.url, "sanjuan")
    held_back: list[tuple[int, list[int]]] = []     # (log length when Bo decided, the cards shared behind)
    real_flush = BlindSeatPlayer.flush

    async def flush(self):
        if self.moving and self.pending is None and not self.moved and self.bx.prompt() is not None:
            shares = [m for m in self.outbox if m["type"] == "shares"]
            if shares:
                self.outbox = [m for m in self.outbox if m["type"] != "shares"]
                await real_flush(self)          # what else is owed, then the move
                assert self.pending is not None, "Bo could decide, yet sent no move"
                held_back.append((len(self.bx.record), [c for m in shares for c in m["cards"]]))
                self.outbox = shares + self.outbox
        await real_flush(self)
    bo.flush = flush.__get__(bo)
    await asyncio.gather(ana.play(timeout=300), bo.play(timeout=300))
    assert ana.report.ok and bo.report.ok, (ana.report.text(), bo.report.text())
    assert ana.errors == bo.errors == [] and ana.rejects == bo.rejects == []
    log = [e.body for e in server.tables[table].core.exchange.log]
    party = bo.bx.reader.party
    moved_first = 0
    for seen, cards in held_back:
        move = next((i for i in range(seen, len(log)) if log[i]["t"] == "move" and log[i]["seat"] == bo.seat),
                    len(log))
        # none when Bo's move ended the game: the server drops shares that come in after the end
        shared = next((i for i in range(seen, len(log)) if log[i]["t"] == "shares" and log[i]["party"] == party
                       and set(cards) <= set(log[i]["cards"])), None)
        moved_first += shared is not None and move < shared
    # the server accepts a share only of a card private to another seat or asked for by an open:
    # each came in owed, and the move went through before it
    assert held_back and moved_first, (len(held_back), moved_first)
    print(f"Bo sent {len(held_back)} batches of shares behind his move; {moved_first} came after its entry")


async def test_the_default_is_blind_for_two_people_and_a_table_may_say_otherwise(server):
    lobby = await Raw.connect(server.url)
    cases = {(4, 2, None): True, (4, 3, None): False, (2, 0, None): True, (4, 2, False): False, (4, 3, True): True}
    made = {}
    for (seats, bots, blind), expected in cases.items():
        made[await lobby.create(seats, bots, blind=blind)] = expected
    await lobby.send({"type": "list"})
    listed = {t["id"]: t["blind"] for t in (await lobby.expect("tables"))["tables"]}
    assert {t: listed[t] for t in made} == made
    await lobby.send({"type": "create", "game": "sanjuan", "seats": 2, "bots": 0, "blind": "yes"})
    code, reason = await lobby.closed()
    assert code == wire.CLOSE_BAD_FRAME and "'blind'" in reason


async def test_a_client_that_stops_answering_forfeits_and_the_match_ends(make_server, lines):
    server = await make_server(grace=3.0, turn_time=3.0)
    table, (ana, bo), _ = await blind_table(server.url, "sanjuan")

    def bo_stops(p):    # in the middle of the play: connected and reading, he sends nothing more
        p.answering = len(p.bx.record) <= 80
    bo.on_entry = bo_stops
    await asyncio.gather(ana.play(), bo.play())
    assert not bo.answering and bo.report.ok, bo.report.text()
    entries = [m.body for m in ana.bx.record]
    forfeit = next(e for e in entries if e["t"] == "forfeit")
    assert forfeit["seats"] == [bo.seat] and "Bo did not send" in forfeit["reason"]
    assert entries[-1]["t"] == "final" and entries[-1]["forfeit"] == [bo.seat]
    assert entries[-1]["deal_seeds"][2] is None and entries[-1]["deal_seeds"][1] is not None
    assert ana.report.ok, ana.report.text()
    assert ana.report.places[bo.seat] == max(ana.report.places)
    assert "NOT CHECKED" in ana.report.text() and "Bo" in ana.report.text()
    assert [n["code"] for n in ana.notices] == ["forfeit"] and "Bo forfeits" in ana.notices[0]["message"]
    assert "governor_forfeits_total 1" in exposition(server)
    assert any("Bo forfeits" in t for t in lines.texts)
    assert server.tables[table].core.status == "over"


async def test_a_blind_server_killed_mid_match_restarts_from_its_log(tmp_path):
    data = tmp_path / "data"
    proc, url, _ = start_server(data, grace=60)
    try:
        table, players, lobby = await blind_table(url, "sanjuan")
        await lobby.close()

        async def until_closed(p):
            try:
                await p.play()
            except Exception:
                pass
        tasks = [asyncio.create_task(until_closed(p)) for p in players]
        await until(lambda: min(len(p.bx.record) for p in players) > 150, "the match well under way")
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        await asyncio.wait_for(asyncio.gather(*tasks), 30)
        held = [len(p.bx.record) for p in players]
        assert not any(p.done for p in players)

        proc, url, _ = start_server(data, grace=60)
        for p in players:
            await resume_when_served(p, url)
        await asyncio.gather(*(p.play(timeout=300) for p in players))
        for p, had in zip(players, held):
            assert p.report.ok, p.report.text()
            assert len(p.bx.record) > had
            assert p.views == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


async def test_bad_input_is_refused_with_its_reason_and_changes_nothing(server):
    table, (ana, bo), _ = await blind_table(server.url, "sanjuan")
    core = server.tables[table].core
    spoiled: list[dict] = []
    real_flush = BlindSeatPlayer.flush

    async def flush(self):     # Ana's first shuffle step goes out spoiled first: one card short
        for m in self.outbox:
            if m["type"] == "shuffle" and not spoiled:
                bad = {**m, "pile": m["pile"][:-64]}
                spoiled.append(bad)
                before = len(core.exchange.log)
                await self.raw.send(bad)
                while (error := await self.raw.recv())["type"] != "error":
                    self.handle(error)
                assert error["code"] == "blind_pile" and "Your shuffle step was refused" in error["message"], error
                assert not ours(before)
        await real_flush(self)
    ana.flush = flush.__get__(ana)

    def ours(since: int) -> list:
        """Entries since `since` that took anything of Ana's."""
        party = ana.bx.reader.party
        return [e.body for e in core.exchange.log[since:]
                if e.body.get("party") == party or e.body.get("seat") == ana.seat]

    def ana_holds_a_card(p) -> bool:
        """Whether a card is private to Ana's seat at the latest entry `p`'s client took in."""
        r = p.bx.replica
        return r is not None and r.state is not None and ana.seat in r.private().values()

    def quiet() -> bool:
        """The table waits for Bo's move alone, nothing else is under way, both clients hold the
        whole log, and Ana holds a card."""
        ex = core.exchange
        return (ex is not None and ex.phase == "play" and ex.step is None and ex.owed() == {bo.seat: ["move"]}
                and not any(core.seats[i].bot for i in core.engine.to_act(core.state))
                and all(len(p.bx.record) == len(ex.log) and p.pending is None and not p.outbox for p in (ana, bo))
                and ana_holds_a_card(ana))

    def bo_waits_while_ana_holds_a_card(p) -> None:
        """Bo makes no move while Ana holds a card. Her random moves may spend her whole hand before
        the table waits for him (a 3-cost building paid with the other three cards of the first
        round): then he plays on until she holds one again."""
        p.moving = not ana_holds_a_card(p)
    bo.moving = False
    bo.on_entry = bo_waits_while_ana_holds_a_card
    playing = [asyncio.create_task(p.play()) for p in (ana, bo)]
    await until(quiet, "a table waiting for Bo's move alone, Ana holding a card")
    bo.on_entry = None
    for task in playing:      # both wait for a frame that will not come
        task.cancel()
    await asyncio.gather(*playing, return_exceptions=True)
    assert spoiled, "Ana took no part in a shuffle"
    del ana.flush
    r = ana.bx.replica
    hh, seat = ana.bx.reader.header_hash, ana.seat

    async def refused(msg: dict, code: str, words: str, kind: str = "error") -> None:
        """Answered `kind` with this code and words; nothing of Ana's taken. (Entries that arrive
        meanwhile, Bo's shares of a bot's cards, say, come again when she claims her seat back.)"""
        before = len(core.exchange.log)
        await ana.raw.send(msg)
        answer = await ana.raw.expect(kind, skip=("status", "clock", "entry"))
        assert answer["code"] == code and words in answer["message"], answer
        assert not ours(before)

    # a share of a card that was never dealt, well formed and signed
    ghost = HANDLE_BASE + 5000
    parts, proofs = bytes(32), bytes(64)
    await refused({"type": "shares", "cards": [ghost], "parts": parts, "proofs": proofs,
                   "sig": ana.key.sign(SIG_SHARES, shares_payload(hh, seat, [ghost], [parts], [proofs]))},
                  "blind_shares", f"card {ghost}")
    # a share of a card dealt to Ana herself: nobody asked for it
    mine = next(c for c, s in r.private().items() if s == seat)     # she holds one (quiet)
    p, q = r.my_shares([mine])
    await refused({"type": "shares", "cards": [mine], "parts": p[0], "proofs": q[0],
                   "sig": ana.key.sign(SIG_SHARES, shares_payload(hh, seat, [mine], p, q))}, "blind_shares", str(mine))
    # a shuffle step when none is awaited
    pile = bytes(64) * 3
    await refused({"type": "shuffle", "name": "deck", "idx": 0, "pile": pile,
                   "sig": ana.key.sign(SIG_SHUFFLE, shuffle_payload(hh, seat, "deck", 0, b"\0" * 32))},
                  "out_of_order", "no shuffle step")
    # a move out of turn, signed on the latest entry
    seen = len(ana.bx.record) - 1
    move = pack([0])
    from protocol.signing import SIG_MOVE, move_payload
    await refused({"type": "act", "id": 1, "seq": seen, "move": move,
                   "sig": ana.key.sign(SIG_MOVE, move_payload(hh, seat, ana.bx.record[seen].hash, move))},
                  "not_your_turn", "", kind="reject")
    # a deal seed before the game is over
    await refused({"type": "deal_seed", "seed": bytes(32), "sig": bytes(64)}, "out_of_order", "game is over")
    # a shuffle step of a size no pile has: a protocol violation, the connection is closed
    await ana.raw.send({"type": "shuffle", "name": "deck", "idx": 0, "pile": bytes(65), "sig": bytes(64)})
    code, reason = await ana.raw.closed()
    assert code == wire.CLOSE_BAD_FRAME and "pile" in reason
    # nothing was changed: both play on to a verified end
    bo.moving = True
    await ana.resume()
    await asyncio.gather(ana.play(timeout=300), bo.play(timeout=300))
    assert ana.report.ok and bo.report.ok, (ana.report.text(), bo.report.text())


def test_the_wire_takes_a_whole_deck_and_refuses_a_pile_or_shares_of_the_wrong_size():
    largest = max(len(games.get("sanjuan").manifest({"expansion": e})) for e in (False, True))
    assert wire.MAX_PILE == max(largest, len(games.get("puertorico").manifest({})))
    step = {"type": "shuffle", "name": "deck", "idx": 0, "pile": bytes(64 * wire.MAX_PILE), "sig": bytes(64)}
    assert len(wire.encode(step)) <= wire.MAX_FRAME and wire.decode(wire.encode(step))["pile"] == step["pile"]
    bad = [({**step, "pile": bytes(64 * wire.MAX_PILE + 64)}, "1 to 143 cards"),
           ({**step, "pile": bytes(100)}, "not 100 bytes"),
           ({"type": "shares", "cards": [HANDLE_BASE], "parts": bytes(32), "proofs": bytes(63), "sig": bytes(64)},
            "1 × 64 of proofs"),
           ({"type": "shares", "cards": [], "parts": b"", "proofs": b"", "sig": bytes(64)}, "1 to 143 cards"),
           ({"type": "shares", "cards": ["x"], "parts": bytes(32), "proofs": bytes(64), "sig": bytes(64)}, "handles"),
           ({"type": "commit", "commitment": bytes(32), "sig": bytes(64), "deal_key": bytes(32)}, "or none"),
           ({"type": "commit", "commitment": bytes(32), "sig": bytes(64), "deal_key": bytes(31),
             "deal_proof": bytes(64), "deal_sig": bytes(64)}, "'deal_key'"),
           ({"type": "deal_seed", "seed": bytes(16), "sig": bytes(64)}, "'seed'"),
           ({"type": "act", "id": 1, "seq": 3, "move": pack([1]), "sig": bytes(64),
             "openings": {"cards": [HANDLE_BASE], "parts": bytes(32), "proofs": bytes(64)}}, "'sig'")]
    for msg, words in bad:
        with pytest.raises(wire.WireError) as e:
            wire.decode(wire.encode(msg))
        assert words in e.value.message, (msg["type"], e.value.message)
    act = wire.decode(wire.encode({"type": "act", "id": 1, "seq": 3, "move": pack([1]), "sig": bytes(64),
                                   "openings": None}))
    assert "openings" not in act and act["action"] == [1]


async def test_a_seat_silent_before_the_deal_cancels_the_match_naming_it(make_server, lines):
    server = await make_server(grace=2.0)
    table, (ana, bo), _ = await blind_table(server.url, "sanjuan")
    bo.answering = False      # seated, connected and reading: his client never commits
    await asyncio.gather(ana.play(timeout=60), bo.play(timeout=60))
    entries = [m.body for m in ana.bx.record]
    assert [e["t"] for e in entries] == ["header", "cancel"]
    assert "Bo did not send" in entries[-1]["reason"] and "commitment" in entries[-1]["reason"]
    assert ana.report.ok, ana.report.text()
    assert ana.report.reason == entries[-1]["reason"] and not ana.report.after_deal
    assert any("cancelled before the deal" in c and "Bo" in c for c in ana.report.checks), ana.report.checks
    notice = ana.notices[0] if ana.notices else await ana.raw.expect("notice", skip=("status",))
    assert notice["code"] == "forfeit" and "Bo held up the deal" in notice["message"], notice
    assert any("Bo held up the deal" in t for t in lines.texts)
    assert "governor_forfeits_total 0" in exposition(server)
    core = server.tables[table].core
    assert core.status == "cancelled" and core.exchange.phase == "cancelled"


async def test_the_operator_closes_a_dealt_blind_match_and_each_record_verifies_as_cancelled(make_server):
    from .test_operate import KEY, operator
    server = await make_server(operator_key=KEY)
    table, (ana, bo), _ = await blind_table(server.url, "sanjuan")
    core = server.tables[table].core
    await asyncio.gather(*(p.play(until=lambda p: len(p.bx.record) > 60) for p in (ana, bo)))
    assert core.state is not None and core.exchange.phase == "play"      # dealt, and under way
    reply = await operator(server, {"key": KEY, "do": "close", "table": table, "reason": "cheating reported"})
    assert reply == {"type": "operator_closed", "table": table}
    await asyncio.gather(ana.play(timeout=60), bo.play(timeout=60))
    why = "closed by the server's operator: cheating reported"
    for p in (ana, bo):
        end = p.bx.record[-1].body
        assert end["t"] == "cancel" and end["reason"] == why
        assert end["deal_seeds"][0] is not None and end["deal_seeds"][1:] == [None, None]
        assert p.report.ok and p.report.after_deal and p.report.reason == why, p.report.text()
        text = p.report.text()
        assert "CANCELLED AFTER THE DEAL WAS FIXED" in text and "closed by the server's operator" in text
        assert "NOT CHECKED  the shuffle steps and shares of Ana (party 1), Bo (party 2)" in text, text
        assert p.bx.replica is not None and p.bx.prompt() is None      # its replica ends there
    assert core.status == "cancelled" and (await server.store.log(table))[-1].kind == "cancel"
    again = await operator(server, {"key": KEY, "do": "close", "table": table})
    assert again["type"] == "error" and again["code"] == "no_table"
