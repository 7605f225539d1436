"""client/table.py at a blind table, with no network: an in-process BlindServerExchange (the
server's side of docs/fairness.md §10.6) makes the entries, which reach the Table as the frames a
server sends, decoded by msgpack; what the Table sends goes back through msgpack to the server's
exchange, as the server's driver would hand it on. A second person's client and a computer seat
play along. The seat's view and question come from its replica, never from the server."""
from __future__ import annotations

import asyncio
import io
import os
import random
import stat

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

import games
from games.choice import pick_uniform
from protocol import wire
from protocol.blind_exchange import BlindPlayerExchange, BlindServerExchange
from protocol.blind_replica import Step
from protocol.codec import pack, unpack
from protocol.fairness import player_commit
from protocol.harness import derived
from protocol.messages import ProtocolError, Signed
from protocol.signing import Signer

from client.errors import ClientError
from client.session import SeatSession, player_key
from client.table import Table

# What a client sends at a blind table (BLIND.md, the wire contract), and the fields of each.
CLIENT_FIELDS = {
    "commit": {"commitment", "sig", "deal_key", "deal_proof", "deal_sig"},
    "reveal": {"seed", "sig"},
    "shuffle": {"name", "idx", "pile", "sig"},
    "shares": {"cards", "parts", "proofs", "sig"},
    "act": {"id", "seq", "move", "sig", "openings"},
    "deal_seed": {"seed", "sig"},
}


def frame(entry: Signed) -> dict:
    """An entry as the server sends it, decoded as the client's link decodes it."""
    return wire.decode(wire.signed_frame("t1", entry), wire.SERVER, wire.MAX_SERVER_FRAME)


def wired(entry: Signed) -> Signed:
    kind, payload, sig = unpack(pack([entry.kind, entry.payload, entry.sig]))
    return Signed.parse(kind, payload, sig)


def for_exchange(msg: dict) -> dict:
    """A client's wire message as the server's driver hands it to its exchange: the same map,
    without an act's command id."""
    msg = unpack(pack(msg))
    assert set(msg) - {"type"} == CLIENT_FIELDS[msg["type"]], sorted(msg)
    msg.pop("id", None)
    return msg


class Match:
    """Seat 0: our Table (a saved seat in `data`); seat 1: another person's exchange; seat 2: a
    computer seat the server plays."""

    def __init__(self, data, game: str = "sanjuan", seed: str = "t") -> None:
        self.rnd = random.Random(seed)
        self.engine = games.get(game)
        me = player_key(data)
        # every seed from `seed`: the same deal on every run (our player key is the data folder's)
        self.other_key = Signer(Ed25519PrivateKey.from_private_bytes(derived(seed, "other-key")))
        seats = [("id0", "Ana"), ("id1", "Bo"), ("id2", "Cy")]
        self.server = BlindServerExchange(game, {}, seats, Signer(Ed25519PrivateKey.from_private_bytes(
                                              derived(seed, "server-key"))),
                                          players=[me.public_key, self.other_key.public_key, "random"],
                                          deal_seed=derived(seed, "server-deal-seed"),
                                          server_seed=derived(seed, "server-seed"))
        self.session = SeatSession(data, "ws://127.0.0.1:1", "t1", 0, "id0", "Ana", derived(seed, "our-seed"),
                                   server_key=self.server.signer.public_key, deal_seed=derived(seed, "our-deal-seed"))
        self.session.save()
        self.table = Table("t1", self.session)
        self.other = BlindPlayerExchange("id1", self.other_key, server_key=self.server.signer.public_key,
                                         seed=derived(seed, "other-seed"), deal_seed=derived(seed, "other-deal-seed"))
        self.outbox: list[tuple[int, dict]] = []
        self.sent: list[dict] = []           # every message our Table sent
        self.happened: list[tuple] = []
        self.bot_seed = derived(seed, "bot-seed")
        self.backlog: list[dict] | None = None   # frames on their way to our Table, while its link lags
        self.bursts: list[int] = []              # the moves in each backlog our Table took in at once

    def feed(self, msg: dict) -> None:
        if self.backlog is not None:
            self.backlog.append(msg)
            return
        self._feed(msg)

    def flush(self) -> None:
        """A lagging link delivers at once every frame it held back."""
        frames, self.backlog = self.backlog or [], []
        held = self.table.held
        for msg in frames:
            self._feed(msg)
        self.bursts.append(sum(e.body["t"] == "move" for e in self.server.log[held:self.table.held]))

    def _feed(self, msg: dict) -> None:
        for out in self.table.feed(msg):
            self.sent.append(out)
            self.outbox.append((0, out))
        self.happened += self.table.drain()

    def deliver(self, entries) -> None:
        for e in entries:
            self.feed(frame(e))
            self.outbox += [(1, {"direct": reply}) for reply in self.other.receive(wired(e))]

    def pump(self) -> None:
        while self.outbox:
            seat, msg = self.outbox.pop(0)
            ex_msg = msg["direct"] if "direct" in msg else for_exchange(msg)
            try:
                entries = self.server.receive(seat, ex_msg)
            except ProtocolError as e:
                # A lagging Table's shares of cards the last moves dealt may reach the server after
                # the game is over: dropped without a word, as the server's table does.
                if e.code != "late":
                    raise
                continue
            self.deliver(entries)
            if msg.get("type") == "act":
                self.feed({"type": "ack", "id": msg["id"]})

    def start(self) -> None:
        self.deliver([self.server.header])
        self.deliver(self.server.commit(2, player_commit(self.server.game_id, "id2", self.bot_seed)))
        self.pump()
        self.deliver(self.server.reveal(2, self.bot_seed))
        self.pump()

    def pick(self, prompt: dict) -> list:
        return pick_uniform(prompt["options"], prompt["min"], prompt["max"], self.rnd)

    def step(self) -> bool:
        """One move by a seat that can decide; False once the game is over."""
        server = self.server
        if server.phase != "play":
            return False
        for seat in self.engine.to_act(server.replica.state):
            if seat == 0:
                if self.backlog or self.table.should_ask(1e12) is not True or self.moving(0):
                    continue
                out = self.table.act(self.pick(self.table.prompt))
                assert out is not None, self.table.drain()
                self.sent.append(out)
                self.outbox.append((0, out))
            elif seat == 1:
                prompt = self.other.prompt()
                if prompt is None or self.moving(1):
                    continue
                self.outbox.append((1, {"direct": self.other.move(self.pick(prompt))}))
            else:
                prompt = server.prompt(seat)
                if prompt is None or server.step is not None:   # the server plays it once its step is done
                    continue
                self.deliver(server.act(seat, self.pick(prompt)))
            self.pump()
            return True
        if self.backlog:          # the match waits for our Table, which has not heard of it yet
            self.flush()
            self.pump()
            return True
        raise AssertionError(f"nobody can decide: the server waits for {server.owed()}")

    def moving(self, seat: int) -> bool:
        """A move of the seat's is with the server, waiting for what it needs or in its queue: a
        client sends no other before the log shows it."""
        step = self.server.step
        return step is not None and step.seat == seat or any(q[0] == seat for q in self.server.queue)

    def play(self, moves: int = 5000) -> None:
        while moves and self.step():
            moves -= 1
        self.pump()
        while self.backlog:
            self.flush()
            self.pump()


def open_story(log: list[Signed], seat: int) -> list[dict]:
    """What an open table tells `seat` of this finished blind match: its moves replayed with every
    card open (the final entry's deal seeds open them all, as `governor verify` does), and of each
    move's events those the seat may see, as the open table's server sends them."""
    from games.blind import BlindStreams
    from games.events import visible
    from protocol import blind
    from protocol.blind_replica import LogReader
    reader = LogReader(check_server=False)
    for entry in log:
        reader.accept(entry)
    r = reader.dealt
    streams = BlindStreams(r.streams.public)
    for pile in r.piles:
        streams.shuffled(pile.name, pile.idx, pile.items)
    for card, item in blind.audit(log[0].hash, r.keys, log[-1].body["deal_seeds"], r.piles, r.shares).items():
        streams.opened(card, item, public=True)
    state = r.engine.setup(r.names, r.options, streams)
    told = []
    for entry in log:
        if entry.body["t"] == "move":
            told += visible(r.engine.apply(state, entry.body["seat"], unpack(entry.body["move"]), streams), seat)
    return told


def test_a_seat_plays_a_blind_match_from_its_own_replica_to_a_verified_end(tmp_path):
    m = Match(tmp_path / "client", seed="whole")
    m.start()
    table = m.table
    assert table.blind and table.dealing == "blind"
    assert [k for k, _ in m.happened if k == "notice"][:1] == ["notice"]
    assert "deals blind" in m.happened[0][1]
    m.play()
    assert m.server.phase == "over"
    assert table.ended and ("end", "final") in m.happened
    report = table.audit()
    assert report.ok, report.text()
    assert table.exchange.report is not None and table.exchange.report.ok
    # What was sent: only the messages of the wire contract, our moves among them.
    kinds = [s["type"] for s in m.sent]
    assert {"commit", "reveal", "shuffle", "shares", "act", "deal_seed"} <= set(kinds)
    assert kinds.count("commit") == kinds.count("reveal") == kinds.count("deal_seed") == 1
    # Our views: made by our replica, for our seat, the question ours; the log from it.
    views = [v for k, v in m.happened if k == "view"]
    assert views and all(v["seat"] == 0 for v in views)
    assert any(v.get("prompt") for v in views) and views[-1]["over"]
    events = [e for k, data in m.happened if k == "events" for e in data]
    assert m.session.log == table.log and table.log == events
    # The story of the match as an open table tells it to our seat, our own draws and keeps
    # among it, and never a text told to another seat.
    assert events == open_story(m.server.log, 0)
    assert {e["to"] for e in events} == {None, 0}
    assert any(e["text"].startswith("You draw") for e in events) and any(e["text"].startswith("You keep")
                                                                         for e in events)
    # The record the audit reads holds every entry.
    assert [e.payload for e in table.record] == [e.payload for e in m.server.log]
    result = table.result()
    assert result is not None and [sc["total"] for sc in result["scores"]] == m.server.log[-1].body["scores"]

    # A spectator's client checks the same log with a spectator's replica and audits it.
    spectator = Table("t1", server_key=m.server.signer.public_key)
    for entry in m.server.log:
        assert spectator.feed(frame(entry)) == []
    assert spectator.blind and spectator.ended and spectator.audit().ok


def test_the_deal_seed_is_kept_with_the_seat_secret_and_a_restarted_client_catches_up(tmp_path):
    m = Match(tmp_path / "client", seed="resume")
    m.start()
    for _ in range(12):
        m.step()
    path = m.session.path
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    saved = SeatSession.load(path)
    assert saved.deal_seed == m.session.deal_seed and len(saved.deal_seed) == 32
    assert not any(m.session.deal_seed in e.payload for e in m.server.log), "the deal seed left before the end"
    # A client started again: a fresh replica from the saved entries, at the same view.
    again = Table("t1", saved)
    assert m.table.view is not None
    assert again.blind and again.view == m.table.view and again.held == m.table.held
    assert again.log == m.table.log
    assert again.resume_messages() == []           # everything we owed is in the log
    m.table = again
    m.play()
    assert m.server.phase == "over" and again.ended
    assert again.audit().ok, again.audit().text()


def test_what_was_sent_and_lost_with_a_connection_is_sent_again(tmp_path):
    m = Match(tmp_path / "client", seed="lost")
    m.deliver([m.server.header])
    [commit] = [msg for _, msg in m.outbox if msg.get("type") == "commit"]
    m.outbox = [(s, msg) for s, msg in m.outbox if msg is not commit]    # lost on its way
    m.pump()
    m.deliver(m.server.commit(2, player_commit(m.server.game_id, "id2", m.bot_seed)))
    assert m.server.phase == "commit"
    again = m.table.resume_messages()
    assert again == [commit]
    m.outbox.append((0, again[0]))
    m.pump()
    assert m.server.phase == "reveal"


def test_moves_that_reach_a_lagging_client_at_once_are_each_told_in_order(tmp_path):
    m = Match(tmp_path / "client", seed="burst")
    m.start()
    m.backlog = []        # from here our Table hears of the match only when it holds the match up
    m.play()
    assert m.server.phase == "over" and m.table.ended and m.table.audit().ok
    # Several moves reached our Table at once, the shares that open our draws after them.
    assert max(m.bursts) >= 3, m.bursts
    assert m.table.log == open_story(m.server.log, 0)
    assert any(e["to"] == 0 for e in m.table.log)


def _hostile_open(m: Match) -> Signed:
    """An `open` entry signed with the server's key, for a legal move of the seat to act, that
    asks for a card of our own hand: the server trying to read it."""
    server = m.server
    r = server.replica
    seat = m.engine.to_act(r.state)[0]
    prompt = m.table.prompt if seat == 0 else m.other.prompt() if seat == 1 else server.prompt(seat)
    picks = [[o] for o in prompt["options"]] if prompt["min"] <= 1 <= prompt["max"] else [m.pick(prompt)]
    move = next(p for p in picks if r.asked(Step(seat, p)) is None)
    ours = [c for c, s in r.private().items() if s == 0][:1]
    assert ours
    return server._append({"t": "open", "seat": seat, "move": pack(move), "cards": ours})


def test_a_server_asking_for_a_card_of_our_hand_is_refused_told_and_kept(tmp_path, caplog):
    m = Match(tmp_path / "client", seed="nosy")
    m.start()
    held, sent = m.table.held, len(m.sent)
    entry = _hostile_open(m)
    with pytest.raises(ClientError) as e:
        m.table.feed(frame(entry))
    words = e.value.message
    assert "a card of our own hand" in words and "refused" in words and "Nothing was sent" in words, words
    assert len(m.sent) == sent and m.table.held == held, "the entry was taken in or answered"
    assert len(m.session.messages) == held
    kept = list((tmp_path / "client" / "records").glob("*.refused.govrec"))
    assert len(kept) == 1 and str(kept[0]) in words
    from protocol.verify import verify
    from client.session import read_record
    items, _ = read_record(str(kept[0]))
    report = verify(items)
    assert not report.ok and f"entry {entry.body['seq']}" in (report.where or ""), report.text()
    assert any(r.levelname == "ERROR" and "refused entry" in r.getMessage() for r in caplog.records)


def test_a_move_of_ours_we_never_made_is_refused(tmp_path):
    m = Match(tmp_path / "client", seed="forged")
    m.start()
    while 0 not in m.engine.to_act(m.server.replica.state) or m.table.prompt is None:
        m.step()
    action = m.pick(m.table.prompt)
    forged = m.server._append({"t": "move", "seat": 0, "seen": len(m.server.log) - 1, "move": pack(action),
                               "sig": bytes(64)})
    with pytest.raises(ClientError) as e:
        m.table.feed(frame(forged))
    assert "a move of ours that we never made" in e.value.message


def test_a_forfeit_is_said_in_words_and_the_match_ends_with_our_deal_seed(tmp_path):
    m = Match(tmp_path / "client", seed="gone")
    m.start()
    for _ in range(6):
        m.step()
    m.deliver(m.server.forfeit([1], "Bo did not send a shuffle step in time"))
    m.pump()
    assert ("notice", "Bo stopped answering and forfeits: placed last.") in m.happened
    assert m.table.forfeits == ["Bo stopped answering and forfeits: placed last."]
    assert [s["type"] for s in m.sent].count("deal_seed") == 1
    assert m.server.phase == "over" and m.table.ended
    assert m.table.prompt is None
    result = m.table.result()
    from games.contract import places
    assert places(result)[1] == 2, "the seat that forfeited is placed last"
    report = m.table.audit()
    assert report.ok and any("forfeited, placed last: Bo" in c for c in report.checks), report.text()


def test_a_status_that_says_blind_is_shown_before_the_header(tmp_path):
    session = SeatSession(tmp_path, "ws://127.0.0.1:1", "t1", 0, "id0", "Ana", os.urandom(32), deal_seed=os.urandom(32))
    table = Table("t1", session)
    assert table.dealing == "open"
    table.feed({"type": "status", "table": "t1", "seats": [], "status": "waiting", "blind": True})
    assert table.dealing == "blind" and not table.blind


async def test_the_header_line_says_blind_dealing_at_a_blind_table(tmp_path):
    from client.fullscreen.app import TableApp
    from client.fullscreen.bridge import ScreenPlayer
    from client.terminal import Terminal

    session = SeatSession(tmp_path, "ws://127.0.0.1:1", "t1", 0, "id0", "Ana", os.urandom(32), deal_seed=os.urandom(32))
    table = Table("t1", session)
    table.feed({"type": "status", "table": "t1", "seats": [], "status": "waiting", "blind": True})
    plain = Terminal("ws://127.0.0.1:1", out=io.StringIO())
    plain.update(table, table.drain())
    assert plain.header() == "[connecting · blind dealing]"

    app = TableApp(lambda app: asyncio.Event().wait(), title="table t1 · seat 1, Ana")
    async with app.run_test(size=(100, 32)) as pilot:
        ScreenPlayer(app, "ws://127.0.0.1:1").update(table, [])
        await pilot.pause()
        assert str(app.query_one("#status").render()).startswith("table t1 · seat 1, Ana · blind dealing ·")


def test_a_false_share_is_refused_and_nothing_is_sent(tmp_path):
    m = Match(tmp_path / "client", seed="false")
    m.start()
    r = m.server.replica
    card = next(c for c in r.cts if 0 not in r.parts.get(c, {}))
    parts, proofs = r.my_shares([card])
    wrong = proofs[0][:-1] + bytes([proofs[0][-1] ^ 1])
    entry = m.server._append({"t": "shares", "party": 0, "cards": [card], "parts": parts[0], "proofs": wrong,
                              "sig": None})
    sent = len(m.sent)
    with pytest.raises(ClientError) as e:
        m.table.feed(frame(entry))
    assert f"the server: party 0's share of card {card} is false: its proof does not hold" in e.value.message
    assert len(m.sent) == sent


def test_a_forfeit_before_our_cards_open_still_tells_the_public_story(tmp_path):
    """Bo stops sending shares, so the move that dealt us cards is held for their opening, which
    never comes; he forfeits: that move's public events (and any after it) are told all the same,
    and no text of ours that names an unopened card."""
    m = Match(tmp_path / "client", seed="held")
    m.start()
    receive, silent = m.other.receive, []

    def ours(msg) -> bool:      # shares of a card of our seat's
        private = m.other.replica.private()
        return msg["type"] == "shares" and any(private.get(c) == 0 for c in msg["cards"])

    def without_our_shares(entry):
        return [msg for msg in receive(entry) if not (silent and ours(msg))]
    m.other.receive = without_our_shares
    for _ in range(12):
        m.step()
    silent.append(True)
    while not any(e.to is None for events, _ in m.table.unread for e in events):
        assert m.step(), "the game ended before a move of ours waited for Bo's shares"
    public = [e.as_dict() for events, _ in m.table.unread for e in events if e.to is None]
    m.deliver(m.server.forfeit([1], "Bo did not send his shares in time"))
    m.pump()
    told = [e for kind, events in m.happened if kind == "events" for e in events]
    assert all(e in told for e in public), "a held move's public events were never told"
    assert not m.table.unread and m.table.ended
