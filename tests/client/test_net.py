"""The client's protocol logic without a socket: the table state machine, the saved seat, backoff."""
import random
import time

import pytest

import games
from client import link
from client.errors import ClientError
from client.lobby import table_id, table_is_open
from client.session import SeatSession, player_key
from client.table import HOLD, Table
from protocol import record
from protocol.diff import diff, view_hash
from protocol.exchange import PlayerExchange, ServerExchange
from protocol.codec import unpack
from protocol.signing import SIG_MOVE, Signer, move_payload, verify_signature

GAME = games.get("sanjuan")


def frame(m, table="t1"):
    return {"type": m.kind, "table": table, "payload": m.payload, "sig": m.sig}


def new_session(tmp_path, pid="p0", seat=0):
    s = SeatSession(tmp_path, "ws://127.0.0.1:9", "t1", seat, pid, "Ana", bytes(range(32)))
    s.save()
    return s


def players(tmp_path) -> list:
    """Seat 0 is the player whose key is in the client's data folder, seat 1 a computer seat."""
    return [player_key(tmp_path).public_key, "random"]


class Match:
    """A ServerExchange with seat 0 played through a client Table and seat 1 by a PlayerExchange."""

    def __init__(self, tmp_path):
        self.signer = Signer.generate()
        self.server = ServerExchange("sanjuan", {}, [("p0", "Ana"), ("p1", "Bo")], self.signer,
                                     players=players(tmp_path))
        self.session = new_session(tmp_path)
        self.table = Table("t1", self.session, server_key=self.signer.public_key)
        self.other = PlayerExchange("p1")
        self.seq = 0

    def to_client(self, messages):
        out = []
        for m in messages:
            if m.kind == "entry" or m.body["seat"] == 0:
                out += self.table.feed(frame(m))
            if m.kind == "entry" or m.body["seat"] == 1:
                reply = self.other.receive(m)
                if reply is not None:
                    step = self.server.commit if m.body["t"] == "header" else self.server.reveal
                    out += [("other", step(1, reply))]
        return out

    def start(self):
        pending = self.to_client([self.server.header])
        while pending:
            item = pending.pop(0)
            if isinstance(item, tuple):
                pending += self.to_client(item[1])
            elif item["type"] == "commit":
                pending += self.to_client(self.server.commit(0, item["commitment"], item["sig"]))
            elif item["type"] == "reveal":
                pending += self.to_client(self.server.reveal(0, item["seed"], item["sig"]))
        assert self.server.phase == "play"

    def snapshot(self):
        self.seq += 1
        v = GAME.view(self.server.state, 0)
        self.table.feed({"type": "snapshot", "table": "t1", "seq": self.seq, "view": v,
                         "hash": view_hash(v), "events": []})
        return v


def test_exchange_runs_through_the_table_and_is_saved(tmp_path):
    m = Match(tmp_path)
    m.start()
    kinds = [k for k, _ in m.table.drain()]
    assert kinds.count("notice") == 3
    # Header, commits, reveals and our hand: all held, all on disk.
    assert m.table.held == 4 == len(m.session.messages)
    again = SeatSession.load(m.session.path)
    assert [x.payload for x in again.messages] == [x.payload for x in m.session.messages]
    assert again.player_id == m.session.player_id == "p0" and again.seed == bytes(range(32))
    # A restarted client rebuilds its exchange from disk and owes nothing more.
    t2 = Table("t1", again)
    assert t2.exchange.seat == 0 and t2.resume_messages() == []


def test_what_we_alone_are_told_comes_signed_and_is_shown_with_the_next_view(tmp_path):
    """A view update carries the public events only (its length must tell nothing of our cards):
    what we alone are told ("You draw ...") comes in signed private messages, and is shown once,
    after the public events of the view update that follows."""
    m = Match(tmp_path)
    m.start()
    m.table.drain()
    rnd = random.Random(1)
    told = []
    while not told:
        seat = GAME.to_act(m.server.state)[0]
        sent = m.server.act(seat, GAME.random_action(m.server.state, seat, rnd))
        told = [text for x in sent if x.kind == "private" and x.body["seat"] == 0 for text in x.body["events"]]
        m.to_client(sent)
        assert not [e for kind, es in m.table.drain() if kind == "events" for e in es]
    m.snapshot()
    shown = [e["text"] for kind, es in m.table.drain() if kind == "events" for e in es]
    assert shown == told and told[0].startswith("You ")
    m.snapshot()                                  # and only once
    assert not [e for kind, es in m.table.drain() if kind == "events" for e in es]


def test_resume_resends_the_step_we_owe(tmp_path):
    signer = Signer.generate()
    server = ServerExchange("sanjuan", {}, [("p0", "Ana"), ("p1", "Bo")], signer, players=players(tmp_path))
    session = new_session(tmp_path)
    table = Table("t1", session)
    [commit] = table.feed(frame(server.header))
    # Dropped before the commitment got through: the same one is sent again.
    assert Table("t1", SeatSession.load(session.path)).resume_messages() == [commit]


def status(server_seed: bool) -> dict:
    return {"type": "status", "table": "t1", "status": "playing",
            "seats": [{"name": "Ana", "bot": None, "connected": True, "standin": False, "server_seed": server_seed},
                      {"name": "Bo", "bot": None, "connected": True, "standin": False, "server_seed": False}]}


@pytest.mark.parametrize("resumed, committed", [(True, False), (True, True), (False, False)])
def test_a_server_made_seed_is_accepted_only_from_a_resumed_seat_that_never_committed(
        tmp_path, resumed, committed):
    """Away before the header: on coming back, the status says the server made our seed, and the
    commitment set without ours is accepted (our seed is never sent). Had we sent our
    commitment, the server held it; and on the connection we sat down with we were never away:
    either way the same claim is cheating."""
    signer = Signer.generate()
    server = ServerExchange("sanjuan", {}, [("p0", "Ana"), ("p1", "Bo")], signer, players=players(tmp_path))
    session = new_session(tmp_path)
    table = Table("t1", session, server_key=signer.public_key)
    if committed:
        assert table.feed(frame(server.header))[0]["type"] == "commit"
    if resumed:
        table.resumed()
    table.feed(status(server_seed=True))       # a returning seat hears the status first
    if not committed:
        out = table.feed(frame(server.header))
        assert out == [] if resumed else out[0]["type"] == "commit"
    server.commit(0, PlayerExchange("p0", b"s" * 32).receive(server.header))   # the server's seed
    other = PlayerExchange("p1")
    [commits] = server.commit(1, other.receive(server.header))
    if committed or not resumed:
        with pytest.raises(ClientError, match="cheats") as refused:
            table.feed(frame(commits))
        # what the server signed is kept as evidence: the set without our commitment included
        kept, = (tmp_path / "records").glob(f"*_{server.game_id.hex()[:8]}.refused.govrec")
        assert str(kept) in str(refused.value)
        assert [m.payload for m in record.read(kept)][-1] == commits.payload
        return
    assert table.feed(frame(commits)) == []     # no reveal: our seed is not the one committed to
    assert "takes no part" in " ".join(str(d) for _, d in table.drain())
    assert SeatSession.load(session.path).seed_made_by_server
    assert Table("t1", SeatSession.load(session.path)).resume_messages() == []
    # a later status saying the same is not heard again, and changes nothing
    table.feed(status(server_seed=True))
    assert table.exchange.seed_made_by_server


def test_resent_entries_are_ignored_and_changed_ones_refused(tmp_path):
    m = Match(tmp_path)
    m.start()
    held = m.table.held
    assert m.table.feed(frame(m.server.log[0])) == []
    assert m.table.held == held
    forged = ServerExchange("sanjuan", {}, [("p0", "Ana"), ("p1", "Bo")], m.signer, players=players(tmp_path))
    with pytest.raises(ClientError, match="different entry 0"):
        m.table.feed(frame(forged.header))


def test_a_tampered_entry_ends_the_session(tmp_path):
    m = Match(tmp_path)
    m.start()
    seat = GAME.to_act(m.server.state)[0]
    [entry, *_] = m.server.act(seat, __import__("bots").make("sanjuan", "random", 1).choose(GAME.view(m.server.state, seat)))
    bad = frame(entry)
    bad["sig"] = bytes(64)
    with pytest.raises(ClientError, match="bad_signature"):
        m.table.feed(bad)


def test_deltas_gaps_and_hash_mismatches(tmp_path):
    m = Match(tmp_path)
    m.start()
    v1 = m.snapshot()
    assert m.table.view == v1 and m.table.seq == 1
    v2 = dict(v1, round=v1["round"] + 1)
    good = {"type": "delta", "table": "t1", "base": 1, "seq": 2, "ops": diff(v1, v2), "hash": view_hash(v2),
            "events": [{"type": "x", "to": None, "text": "Something happened."}]}
    assert m.table.feed(good) == []
    assert m.table.view == v2 and m.table.seq == 2
    assert m.table.log[-1]["text"] == "Something happened."
    # A gap: ask for a snapshot, and ignore deltas until it comes.
    v3 = dict(v2, round=v2["round"] + 1)
    gap = {"type": "delta", "table": "t1", "base": 7, "seq": 8, "ops": diff(v2, v3), "hash": view_hash(v3), "events": []}
    assert m.table.feed(gap) == [{"type": "resync"}]
    assert m.table.feed(dict(gap, base=2, seq=3)) == []      # ignored while waiting
    m.snapshot()
    assert not m.table.want_snapshot
    # A delta whose result does not hash like the server's view.
    seq = m.table.seq
    wrong = {"type": "delta", "table": "t1", "base": seq, "seq": seq + 1, "ops": [["set", ["round"], 99]],
             "hash": view_hash(v1), "events": []}
    assert m.table.feed(wrong) == [{"type": "resync"}]
    # One that does not apply at all.
    m.snapshot()
    seq = m.table.seq
    assert m.table.feed({"type": "delta", "table": "t1", "base": seq, "seq": seq + 1,
                         "ops": [["del", ["nowhere"]]], "hash": b"x" * 8, "events": []}) == [{"type": "resync"}]
    # Messages for another table are not ours.
    assert m.table.feed(dict(good, table="t2")) == []


def test_commands_acks_and_rejects(tmp_path):
    m = Match(tmp_path)
    m.start()
    while 0 not in GAME.to_act(m.server.state):
        seat = GAME.to_act(m.server.state)[0]
        m.server.act(seat, __import__("bots").make("sanjuan", "random", 1).choose(GAME.view(m.server.state, seat)))
    m.snapshot()
    assert m.table.should_ask(time.monotonic()) is True
    cmd = m.table.act(["x"])
    assert cmd["type"] == "act" and cmd["seq"] == m.table.seq and unpack(cmd["move"]) == ["x"]
    # the move's bytes, signed by our key over the match and the entry the view was decided on
    seen = m.server.log[cmd["seq"]].hash
    assert verify_signature(player_key(tmp_path).public_key, SIG_MOVE,
                            move_payload(m.server.header.hash, 0, seen, cmd["move"]), cmd["sig"])
    assert m.table.should_ask(time.monotonic()) is False       # waiting for the answer
    cmd2_id = SeatSession.load(m.session.path).next_id
    assert cmd2_id == cmd["id"] + 1                            # ids are never reused, even after a restart
    m.table.feed({"type": "reject", "id": cmd["id"], "code": "illegal", "message": "Not that."})
    assert ("reject", ("illegal", "Not that.")) in m.table.drain()
    assert m.table.should_ask(time.monotonic()) is True        # asked again at once
    cmd = m.table.act(["y"])
    m.table.feed({"type": "reject", "id": cmd["id"], "code": "stale", "message": "Too late."})
    assert m.table.should_ask(time.monotonic()) is False       # wait for the snapshot that follows
    m.snapshot()
    assert m.table.should_ask(time.monotonic()) is True
    cmd = m.table.act(["z"])
    m.table.feed({"type": "ack", "id": cmd["id"]})
    # Acked, and the view still shows the same question: hold on for the update that follows.
    held = m.table.should_ask(time.monotonic())
    assert held is not True and held > 0
    assert m.table.should_ask(time.monotonic() + HOLD + 0.1) is True
    # An answer to an unknown command (resent after a reconnect) changes nothing.
    assert m.table.feed({"type": "ack", "id": 12345}) == []


def test_torn_message_file_is_cut_back(tmp_path):
    m = Match(tmp_path)
    m.start()
    path = m.session.msgs_path
    whole = path.read_bytes()
    first_item = whole[len(record.MAGIC):]
    path.write_bytes(whole + first_item[:40])      # a write cut short by a kill
    again = SeatSession.load(m.session.path)
    assert len(again.messages) == len(m.session.messages)
    assert path.read_bytes() == whole


def test_sessions_are_found_by_server_key_or_url_and_table(tmp_path):
    s = new_session(tmp_path)
    s.server_key = b"k" * 32
    s.save()
    assert SeatSession.find(tmp_path, "t1", url="ws://127.0.0.1:9/").player_id == s.player_id
    assert SeatSession.find(tmp_path, "t2", url="ws://127.0.0.1:9") is None
    assert SeatSession.find(tmp_path, "t1", url="ws://127.0.0.1:10") is None
    # the same server at another address: found by its key, and saved with its new address
    moved = SeatSession.find(tmp_path, "t1", server_key=b"k" * 32).moved_to("ws://127.0.0.1:10")
    assert moved.path == s.path and SeatSession.find(tmp_path, "t1", url="127.0.0.1:10").player_id == s.player_id
    assert SeatSession.find(tmp_path, "t1", server_key=b"x" * 32) is None
    assert [x.table for x in SeatSession.unfinished(tmp_path, b"k" * 32)] == ["t1"]
    assert SeatSession.unfinished(tmp_path, b"x" * 32) == []
    assert (s.path.stat().st_mode & 0o777) == 0o600
    s.finished = True
    s.save()
    assert SeatSession.unfinished(tmp_path, b"k" * 32) == []


def test_a_seat_saved_by_its_address_is_named_by_its_server_key_once_read(tmp_path):
    """Seats saved by an older client are named by address and table: read, they take the name
    the server's key gives them, messages and log with them."""
    s = new_session(tmp_path)
    s.server_key = b"k" * 32
    s.append_events([{"type": "x", "to": None, "text": "hello"}])
    old = tmp_path / "sessions" / f"{SeatSession.key(None, 't1', s.url)}.json"
    for suffix in (".json", ".msgs", ".log"):
        s.path.with_suffix(suffix).rename(old.with_suffix(suffix))
    [found] = SeatSession.unfinished(tmp_path, b"k" * 32)
    assert found.path == s.path and found.path.exists() and not old.exists()
    assert [e["text"] for e in found.log] == ["hello"]


def test_backoff_grows_with_jitter_up_to_a_cap_then_gives_up(monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr(link.time, "monotonic", lambda: clock[0])
    b = link.Backoff(patience=60, first=0.2, cap=5)
    delays = []
    while (d := b.next_delay()) is not None:
        delays.append(d)
        clock[0] += d + 0.01
    assert 0.1 <= delays[0] <= 0.2
    assert max(delays) <= 5
    assert delays[5] > delays[0] * 4
    assert 59 <= sum(delays) + 0.01 * len(delays) <= 61    # kept trying for the whole minute
    b.reset()
    assert b.next_delay() <= 0.2


def test_which_listed_tables_have_a_free_seat():
    free = {"name": None, "bot": None, "connected": False}
    ana = {"name": "Ana", "bot": None, "connected": True}
    bot = {"name": "Bot 2", "bot": "heuristic", "connected": True}
    assert table_is_open({"id": "a", "status": "waiting", "seats": [ana, free, bot]})
    assert not table_is_open({"id": "a", "status": "waiting", "seats": [ana, bot]})
    assert not table_is_open({"id": "a", "status": "playing", "seats": [ana, free]})
    assert table_id({"id": "a"}) == "a"


def started_with_events(tmp_path, n: int) -> tuple:
    """A started match, n public events, and a snapshot of seat 0's view to carry some of them."""
    m = Match(tmp_path)
    m.start()
    e = [{"type": "x", "to": None, "text": f"event {i}"} for i in range(n)]
    v = GAME.view(m.server.state, 0)
    return m, e, {"type": "snapshot", "table": "t1", "seq": 1, "view": v, "hash": view_hash(v)}


def test_snapshot_events_already_shown_are_not_repeated(tmp_path):
    m, e, snap = started_with_events(tmp_path, 6)
    m.table.feed({**snap, "events": e[:4]})
    m.table.feed({**snap, "events": e[2:6]})        # after a reconnect: the latest few, two of them new
    assert [x["text"] for x in m.table.log] == [f"event {i}" for i in range(6)]
    # what we alone were told is in our log, never in a snapshot's events: it is no new event either
    m.table.told.append({"type": "private", "to": 0, "text": "You draw Well."})
    m.table.feed({**snap, "events": e[3:6]})
    m.table.feed({**snap, "events": e[3:6]})        # a resync: nothing new
    assert [x["text"] for x in m.table.log] == [f"event {i}" for i in range(6)] + ["You draw Well."]


def test_a_reconnect_that_missed_more_than_a_snapshot_carries_marks_the_gap_in_the_log(tmp_path):
    m, e, snap = started_with_events(tmp_path, 12)
    m.table.feed({**snap, "events": e[:4]})
    m.table.feed({**snap, "events": e[8:12]})       # events 4 to 7 happened while we were away
    texts = [x["text"] for x in m.table.log]
    assert texts[:4] == [f"event {i}" for i in range(4)] and texts[5:] == [f"event {i}" for i in range(8, 12)]
    assert "while you were away" in texts[4]
    m.table.feed({**snap, "events": e[10:12]})      # the mark is no event: later overlaps still match
    assert len(m.table.log) == 9
