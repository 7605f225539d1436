"""A server that shows a player a game other than the one it signs, or that aborts a match once it
knows the deal (docs/fairness.md §8): the client's Table is fed by a ServerExchange that lies in
what it shows, and the audit of what the Table kept must name the entry and what differs."""
import io
import random
from pathlib import Path

import pytest

import client.cli
import games
from client.session import SeatSession, player_key, save_record
from client.table import Outcome, Table
from client.terminal import Terminal
from protocol import record
from protocol.codec import pack
from protocol.diff import diff, view_hash
from protocol.exchange import PlayerExchange, ServerExchange
from protocol.messages import late_seed_reason
from protocol.signing import Signer
from protocol.verify import verify

from .live import LiveServer, bot_seat, first_line, held_messages, outcome, wait_for

GAME = games.get("sanjuan")


def frame(m):
    return {"type": m.kind, "table": "t1", "payload": m.payload, "sig": m.sig}


class Lying:
    """A match whose seat 0 is a client Table and seat 1 a PlayerExchange. After every step the
    server shows seat 0 its view and the public events (a delta, or a snapshot every `snapshot_every`
    steps), each first passed through `view_lie(seq, view)` and `events_lie(seq, events)`: the
    hash it sends is of what it shows, so the lie passes every check the view update has."""

    def __init__(self, tmp_path, view_lie=None, events_lie=None, snapshot_every=0, seed=1):
        self.signer = Signer.generate()
        self.server = ServerExchange("sanjuan", {}, [("p0", "Ana"), ("p1", "Bo")], self.signer,
                                     players=[player_key(tmp_path).public_key, "random"])
        self.session = SeatSession(tmp_path, "ws://127.0.0.1:9", "t1", 0, "p0", "Ana", bytes(range(32)))
        self.session.save()
        self.table = Table("t1", self.session, server_key=self.signer.public_key)
        self.other = PlayerExchange("p1")
        self.view_lie = view_lie or (lambda seq, v: v)
        self.events_lie = events_lie or (lambda seq, es: es)
        self.snapshot_every = snapshot_every
        self.sent = None          # the view last sent to seat 0
        self.steps = 0
        self.rnd = random.Random(seed)

    def deliver(self, messages):
        pending = list(messages)
        while pending:
            m = pending.pop(0)
            if m.kind == "entry" or m.body["seat"] == 0:
                for out in self.table.feed(frame(m)):
                    if out["type"] == "commit":
                        pending += self.server.commit(0, out["commitment"], out["sig"])
                    elif out["type"] == "reveal":
                        pending += self.server.reveal(0, out["seed"], out["sig"])
            if m.kind == "entry" or m.body["seat"] == 1:
                reply = self.other.receive(m)
                if reply is not None:
                    pending += (self.server.commit if m.body["t"] == "header" else self.server.reveal)(1, reply)

    def show(self, events):
        seq = len(self.server.log) - 1
        view = self.view_lie(seq, GAME.view(self.server.state, 0))
        events = self.events_lie(seq, GAME.visible_events(events, None))
        self.steps += 1
        if self.sent is None or (self.snapshot_every and self.steps % self.snapshot_every == 0):
            msg = {"type": "snapshot", "seq": seq, "view": view, "events": events}
        else:
            msg = {"type": "delta", "base": self.table.seq, "seq": seq, "ops": diff(self.sent, view),
                   "events": events}
        assert self.table.feed({**msg, "table": "t1", "hash": view_hash(view)}) == []
        self.sent = view

    def start(self):
        self.deliver([self.server.header])
        assert self.server.phase == "play"
        self.show([])

    def move(self):
        seat = GAME.to_act(self.server.state)[0]
        self.deliver(self.server.act(seat, GAME.random_action(self.server.state, seat, self.rnd)))
        self.show(self.server.last_events)

    def play(self, moves=None):
        self.start()
        while self.server.phase == "play" and (moves is None or moves > 0):
            self.move()
            moves = None if moves is None else moves - 1
        return self


def test_an_honest_server_shows_what_it_signs(tmp_path):
    match = Lying(tmp_path, snapshot_every=7).play()
    report = match.table.audit()
    assert report.ok, report.text()
    assert report.shown_checked == len(match.table.shown.steps) > 100
    assert "views shown to Ana, and the public events shown with them, are the replay's" in report.text()
    # kept on disk with the seat as it went, and in the record file, read back the same
    assert SeatSession.load(match.session.path).steps == match.table.shown.steps
    path = save_record(tmp_path, match.table.exchange.record, match.server.game_id, shown=match.table.shown)
    items, shown = record.read_all(path)
    assert shown == match.table.shown and verify(items, shown).ok
    assert record.read(path) == items and verify(items).shown_checked == 0   # the signed part alone


def test_a_damaged_step_of_what_was_shown_is_said_by_the_audit_not_checked_in_silence(tmp_path):
    """A client killed and started again finds its `.shown` file damaged at step 11: the audit
    checks the 10 before it and what was shown since, and says the ones between are not checked."""
    match = Lying(tmp_path, snapshot_every=7).play(moves=30)
    path = match.session.shown_path
    data = bytearray(path.read_bytes())
    eleventh = sum(len(pack(s.as_list())) for s in match.table.shown.steps[:10])
    data[eleventh] = 0xc1                       # a byte msgpack never uses
    path.write_bytes(bytes(data))
    again = SeatSession.load(match.session.path)
    assert again.steps == match.table.shown.steps[:10] and again.shown_unreadable_after == 10
    match.session = again
    match.table = Table("t1", again, server_key=match.signer.public_key)
    match.sent = None                           # a client started again is sent the whole view
    while match.server.phase == "play":
        match.move()
    report = match.table.audit()
    assert report.ok and report.shown_checked == len(match.table.shown.steps) > 10
    said = ("NOT CHECKED  the views shown after the first 10, until this client started again: its file of "
            "what was shown is damaged there")
    assert said in report.text()
    path = save_record(tmp_path, match.table.exchange.record, match.server.game_id, shown=match.table.shown)
    assert said in verify(*record.read_all(path)).text()          # `governor verify` says it too
    # the damage is cut off the file, and remembered with the seat
    last = SeatSession.load(match.session.path)
    assert last.steps == match.table.shown.steps and last.shown_unreadable_after == 10


def test_a_torn_last_step_is_no_damage_and_is_cut_off(tmp_path):
    match = Lying(tmp_path).play(moves=5)
    path = match.session.shown_path
    whole = path.read_bytes()
    path.write_bytes(whole[:-3])                # killed while writing the last step
    again = SeatSession.load(match.session.path)
    assert again.steps == match.table.shown.steps[:-1] and again.shown_unreadable_after is None
    assert path.read_bytes() == whole[:len(whole) - len(pack(match.table.shown.steps[-1].as_list()))]
    assert "NOT CHECKED" not in verify(match.table.exchange.record, Table("t1", again).shown).text()


def test_a_view_missing_a_hand_card_fails_the_audit_at_its_entry(tmp_path):
    """225 views each missing a hand card once ended 'verified': the views were never compared."""
    lied = []

    def drop_a_card(seq, view):
        if seq >= 20 and view["you"]["hand"]:
            lied.append(seq)
            view = {**view, "you": {**view["you"], "hand": view["you"]["hand"][1:]}}
        return view
    match = Lying(tmp_path, view_lie=drop_a_card).play()
    assert match.table.exchange.report.ok      # the signed record alone is honest
    report = match.table.audit()
    assert not report.ok
    assert report.where.startswith(f"entry {lied[0]} ")
    assert "the view shown to Ana is not the replay's: it differs in you" in report.what
    # nothing of the hand is told: only the field's name
    hand = GAME.view(match.server.state, 0)["you"]["hand"]
    assert not any(name in report.text() for _, name in hand)
    # governor verify of the saved record fails the same way
    path = save_record(tmp_path, match.table.exchange.record, match.server.game_id, shown=match.table.shown)
    assert client.cli.main(["verify", str(path)]) == 1


def test_a_rewritten_public_event_fails_the_audit_naming_it(tmp_path, capsys):
    """274 public events rewritten once ended 'verified': their words were never compared."""
    rewritten = {}

    def rewrite(seq, events):
        if not rewritten and seq >= 10 and events:
            rewritten[seq] = events[0]["text"]
            events = [{**events[0], "text": "Bo builds a palace."}, *events[1:]]
        return events
    match = Lying(tmp_path, events_lie=rewrite).play()
    [(seq, honest)] = rewritten.items()
    report = match.table.audit()
    assert not report.ok and report.where.startswith(f"entry {seq} ")
    assert report.what == f"the 1st public event shown to Ana there is not the replay's {honest!r}"
    path = save_record(tmp_path, match.table.exchange.record, match.server.game_id, shown=match.table.shown)
    assert client.cli.main(["verify", str(path)]) == 1
    assert f"FAILED at entry {seq} " in capsys.readouterr().out


def test_a_dropped_public_event_fails_the_audit(tmp_path):
    dropped = []

    def drop(seq, events):
        if not dropped and seq >= 30 and events:
            dropped.append(seq)
            return events[1:]
        return events
    match = Lying(tmp_path, events_lie=drop).play()
    report = match.table.audit()
    assert not report.ok and report.where.startswith(f"entry {dropped[0]} ")
    assert "public events were shown to Ana there, where the replay has" in report.what


def test_a_snapshot_whose_hash_does_not_match_is_refused_and_asked_again(tmp_path):
    match = Lying(tmp_path).play(moves=5)
    table = match.table
    before, steps = table.view, len(table.shown.steps)
    table.drain()
    view = GAME.view(match.server.state, 0)
    shown = {**view, "you": {**view["you"], "hand": [*view["you"]["hand"], [999, "palace"]]}}
    out = table.feed({"type": "snapshot", "table": "t1", "seq": table.seq, "view": shown, "hash": view_hash(view),
                      "events": [{"type": "x", "to": None, "text": "Nothing happened."}]})
    assert out == [{"type": "resync"}]
    assert table.view is before and len(table.shown.steps) == steps and table.want_snapshot
    happened = table.drain()
    assert ("view", shown) not in happened and not [h for h in happened if h[0] == "events"]
    assert any(kind == "notice" and "did not match its hash" in text for kind, text in happened)
    # the right one is taken
    assert table.feed({"type": "snapshot", "table": "t1", "seq": table.seq, "view": view, "hash": view_hash(view),
                       "events": []}) == []
    assert table.view == view and not table.want_snapshot


def _cancelled(tmp_path, reason, moves=6):
    match = Lying(tmp_path).play(moves=moves)
    match.deliver(match.server.cancel(reason))
    assert match.table.ended
    return match


def test_a_cancel_after_the_deal_is_called_what_it_is(tmp_path, capsys):
    match = _cancelled(tmp_path / "c", "the server is shutting down")
    report = match.table.audit()
    assert report.ok and report.after_deal, report.text()
    assert "CANCELLED AFTER THE DEAL WAS FIXED" in report.text()
    # the end screen
    out = io.StringIO()
    outcome = Outcome(finished=False, report=report, record=None, table="t1", seat=0, names=["Ana", "Bo"],
                      reason="the server is shutting down")
    Terminal("ws://x", out=out).finished(outcome, "ws://x")
    assert "CANCELLED AFTER THE DEAL WAS FIXED" in out.getvalue()
    # governor verify and governor records
    data = tmp_path / "data"
    path = save_record(data, match.table.exchange.record, match.server.game_id, shown=match.table.shown)
    capsys.readouterr()
    assert client.cli.main(["verify", str(path)]) == 0
    assert "CANCELLED AFTER THE DEAL WAS FIXED" in capsys.readouterr().out
    assert client.cli.main(["records", "--data-dir", str(data)]) == 0
    assert "verified, CANCELLED after the deal was fixed" in capsys.readouterr().out
    assert client.cli.main(["records", "--aborts", "--data-dir", str(data)]) == 0
    assert f"server {report.server}: 1 of 1 matches aborted after the deal was fixed (1 cancelled, 0 abandoned)" \
        in capsys.readouterr().out


def test_a_cancel_before_the_deal_is_not_called_an_abort(tmp_path):
    server = ServerExchange("sanjuan", {}, [("p0", "Ana"), ("p1", "Bo")], Signer.generate())
    server.cancel(late_seed_reason(["Bo"], "commit", 30))
    report = verify(server.sent)
    assert report.ok and not report.after_deal and "CANCELLED" not in report.text()


@pytest.mark.parametrize("moves", [0, 6])
def test_a_cancel_whose_reason_the_record_contradicts_fails(tmp_path, moves):
    """'Ana did not reveal' signed right after the reveal set that holds her seed."""
    match = _cancelled(tmp_path, late_seed_reason(["Ana"], "reveal"), moves=moves)
    report = match.table.audit()
    assert not report.ok
    assert report.where == f"entry {len(match.server.log) - 1} (cancel)"
    assert report.what == "its reason says 'Ana' did not reveal their seed, but the record holds that seed"
    report = verify(match.table.exchange.record)
    assert not report.ok and "did not reveal" in report.what
    # and 'did not commit' once the commitment set is signed
    match = _cancelled(tmp_path / "2", late_seed_reason(["Bo", "Cy"], "commit", 30), moves=moves)
    assert "did not commit, but entry 1 (commits) holds every seat's commitment" in match.table.audit().what


def test_a_server_gone_after_the_deal_leaves_a_record_of_an_abandoned_match(tmp_path, capsys):
    """The server stops for good mid-match: the client gives up after its patience, keeps what
    the server signed as a record marked abandoned, and `records --aborts` counts it; the seat is
    kept, and a server that comes back after all finishes the match, whose record replaces it."""
    live = LiveServer(tmp_path / "server")
    live.start()
    data = tmp_path / "me"
    try:
        proc = bot_seat(live.url, data, "--create", "sanjuan", "--seats", "2", "--bots", "1", "--think", "0.05",
                        "--patience", "2")
        table = first_line(proc)
        wait_for(lambda: held_messages(data) >= 12)          # well past the reveal set
        live.stop()
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 1 and "Traceback" not in err
        assert "The server abandoned this match after the deal was fixed: the " in err
        [path] = (data / "records").glob("*.govrec")
        assert str(path) in err
        capsys.readouterr()
        assert client.cli.main(["verify", str(path)]) == 1
        said = capsys.readouterr().out
        assert "ABANDONED at entry " in said and "the server abandoned this match after the deal was fixed" in said
        assert client.cli.main(["records", "--data-dir", str(data)]) == 0
        assert "ABANDONED after the deal was fixed" in capsys.readouterr().out
        assert client.cli.main(["records", "--aborts", "--data-dir", str(data)]) == 0
        assert "1 of 1 matches aborted after the deal was fixed (0 cancelled, 1 abandoned)" in capsys.readouterr().out
        assert SeatSession.unfinished(data)               # the seat is kept: it can be resumed
        # the server comes back after all: the match ends, and its record replaces the abandoned one
        live.start()
        result = outcome(bot_seat(live.url, data, "--table", table))
        assert result["verified"] and [Path(result["record"])] == list((data / "records").glob("*.govrec"))
        assert client.cli.main(["records", "--aborts", "--data-dir", str(data)]) == 0
        assert "0 of 1 matches aborted" in capsys.readouterr().out
    finally:
        live.close()


def test_the_record_file_refuses_a_malformed_part_of_what_was_shown(tmp_path):
    match = Lying(tmp_path).play(moves=3)
    items, shown = match.table.exchange.record, match.table.shown
    data = record.dumps(items, shown)
    with pytest.raises(record.RecordError, match="follows what the client was shown, which comes last"):
        record.loads_all(data + record.dump_item(items[0]))
    bad = type(shown)(shown.seat, [*shown.steps[:1], type(shown.steps[0])(3, False, b"short", b"", b"")])
    with pytest.raises(record.RecordError, match="step 1 has digests of the wrong length"):
        record.loads_all(record.dumps(items, bad))
