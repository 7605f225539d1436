"""protocol/exchange.py: the two state machines of the fair-dealing exchange (docs/fairness.md §4).

Whole matches through protocol.harness.play_match (every record verifies, round-trips through
the record file and is reproducible from its seed), then every message each side must refuse:
a refusal raises ProtocolError with a specific code (IllegalAction for an illegal move) and
changes nothing, and a player never lets its seed go before the complete commitment set holds
its own commitment unchanged.
"""
import functools
import gc
import hashlib

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from bots.random_bot import RandomBot
from games import sanjuan
from games.errors import IllegalAction
from protocol import record
from protocol.codec import pack, unpack
from protocol.exchange import PlayerExchange, ServerExchange
from protocol.fairness import player_commit, server_commit
from protocol.harness import deliver, play_match
from protocol.messages import ProtocolError, Signed
from protocol.signing import SIG_ENTRY, SIG_PRIVATE, Signer
from protocol.verify import verify

NAMES = ["Ana", "Bo", "Cy", "Di"]


def _bytes(label: str) -> bytes:
    return hashlib.sha256(f"test-exchange/{label}".encode()).digest()


def _signer(label: str = "server") -> Signer:
    return Signer(Ed25519PrivateKey.from_private_bytes(_bytes(label)))


def _match(n: int, expansion: bool, seed: str):
    deciders = [RandomBot(f"{seed}/{k}").choose for k in range(n)]
    return play_match("sanjuan", NAMES[:n], {"expansion": expansion}, deciders, seed)


def resign(signer: Signer, msg: Signed, **changes) -> Signed:
    """`msg` with fields changed (None deletes one), re-signed with `signer`: a server whose
    signatures are valid but whose content is not."""
    body = unpack(msg.payload)
    for k, v in changes.items():
        if v is None:
            body.pop(k, None)
        else:
            body[k] = v
    payload = pack(body)
    purpose = SIG_ENTRY if msg.kind == "entry" else SIG_PRIVATE
    return Signed.parse(msg.kind, payload, signer.sign(purpose, payload))


def flip_sig(msg: Signed) -> Signed:
    sig = bytearray(msg.sig)
    sig[5] ^= 0x10
    return Signed.parse(msg.kind, msg.payload, bytes(sig))


# --- whole matches --------------------------------------------------------------------------

MATCHES = [(2, False, "m2"), (3, True, "m3e"), (4, True, "m4e"), (4, False, "m4")]


@functools.lru_cache(maxsize=None)
def played(n: int, expansion: bool, seed: str):
    """Each match of MATCHES is played once for the whole module; tests must not change it."""
    return _match(n, expansion, seed)


@pytest.fixture(params=MATCHES, ids=lambda p: f"{p[0]}p-{'exp' if p[1] else 'base'}")
def match(request):
    n, expansion, seed = request.param
    server, players = played(n, expansion, seed)
    return n, expansion, seed, server, players


def test_every_player_verifies_the_match(match):
    n, _, _, server, players = match
    assert server.phase == "over"
    assert len(players) == n
    for seat, p in enumerate(players):
        assert p.seat == seat
        assert p.report is not None and p.report.ok, p.report.text()
        assert p.report.seats_checked == [seat]
        assert p.record[-1].body["t"] == "final"
        again = verify(p.record)
        assert again.ok, again.text()


def test_the_server_record_verifies_for_every_seat(match):
    n, _, _, server, _ = match
    report = verify(server.sent)
    assert report.ok, report.text()
    assert report.seats_checked == list(range(n))
    assert "VERIFIED" in report.text()


def test_records_round_trip_through_the_file_format(match, tmp_path):
    _, _, _, server, players = match
    for items in [server.sent] + [p.record for p in players]:
        data = record.dumps(items)
        assert data.startswith(record.MAGIC)
        back = record.loads(data)
        assert [(m.kind, m.payload, m.sig) for m in back] == [(m.kind, m.payload, m.sig) for m in items]
        assert record.dumps(back) == data
    assert verify(record.loads(record.dumps(players[-1].record))).ok
    path = record.write(tmp_path / "sub" / "match.govrec", players[0].record)
    assert path.read_bytes() == record.dumps(players[0].record)
    assert record.dumps(record.read(path)) == path.read_bytes()


def test_the_record_each_player_keeps(match):
    """A player's record is every entry (the whole public log) and its own private messages."""
    _, _, _, server, players = match
    for seat, p in enumerate(players):
        assert [m for m in p.record if m.kind == "entry"] == server.log
        assert [m for m in p.record if m.kind == "private"] == \
            [m for m in server.sent if m.kind == "private" and m.body["seat"] == seat]
        assert [m for m in server.sent if m.kind == "entry" or m.body["seat"] == seat] == p.record


def test_final_scores_are_the_engines(match):
    n, _, _, server, players = match
    result = sanjuan.result(server.state)
    final = server.log[-1].body
    totals = [sc["total"] for sc in result["scores"]]
    assert final["scores"] == totals
    assert final["winners"] == result["winners"]
    assert final["server_seed"] == server.server_seed
    assert len(final["moves"]) == len(server.log) - 4  # header, commits, reveals, final
    for p in players:
        assert p.report.scores == totals
        assert p.report.winners == result["winners"]


def test_the_header_and_the_seeds(match):
    n, expansion, _, server, players = match
    header = server.header.body
    assert header["protocol"] == "bgfair/v2"
    assert [s["key"] for s in header["seats"]] == [p.signer.public_key for p in players]
    assert header["rated"] is False and header["started"] == 0
    assert header["game"] == "sanjuan" and header["rules"] == sanjuan.INFO.rules_version
    assert header["manifest"] == sanjuan.manifest_hash({"expansion": expansion})
    assert header["server_key"] == server.signer.public_key
    assert header["server_commit"] == server_commit(server.game_id, server.server_seed)
    assert [s["name"] for s in header["seats"]] == NAMES[:n]
    commits = server.log[1].body["commits"]
    seeds = server.log[2].body["seeds"]
    assert seeds == [p.seed for p in players]
    assert commits == [player_commit(server.game_id, s["id"], p.seed) for s, p in zip(header["seats"], players)]


@pytest.mark.parametrize("n, expansion, seed", [MATCHES[0], MATCHES[2]])
def test_same_seed_gives_byte_identical_records(n, expansion, seed):
    server1, players1 = played(n, expansion, seed)
    server2, players2 = _match(n, expansion, seed)
    assert record.dumps(server1.sent) == record.dumps(server2.sent)
    for a, b in zip(players1, players2):
        assert record.dumps(a.record) == record.dumps(b.record)


def test_another_seed_gives_another_match():
    server1, _ = played(*MATCHES[2])
    server2, _ = played(*MATCHES[3])
    assert server1.game_id != server2.game_id
    assert server1.server_seed != server2.server_seed
    assert server1.log[2].body["seeds"] != server2.log[2].body["seeds"]


# --- the server side ------------------------------------------------------------------------

PIDS = ["p0", "p1", "p2"]


def player_seed(seat: int) -> bytes:
    return _bytes(f"player/{seat}")


def new_server(n: int = 3) -> ServerExchange:
    seats = [(PIDS[i] if i < len(PIDS) else f"p{i}", NAMES[i]) for i in range(n)]
    return ServerExchange("sanjuan", {"expansion": True}, seats, _signer(),
                          game_id=_bytes("game-id")[:16], server_seed=_bytes("server-seed"))


def commitment(server: ServerExchange, seat: int, seed: bytes | None = None) -> bytes:
    return player_commit(server.game_id, server.seats[seat][0], seed or player_seed(seat))


def committed(n: int = 3) -> ServerExchange:
    server = new_server(n)
    for seat in range(n):
        server.commit(seat, commitment(server, seat))
    return server


def playing(n: int = 3) -> ServerExchange:
    server = committed(n)
    for seat in range(n):
        server.reveal(seat, player_seed(seat))
    assert server.phase == "play"
    return server


def snapshot(server: ServerExchange):
    return (server.phase, len(server.log), len(server.sent), list(server.commits), list(server.seeds),
            len(server.moves), sanjuan.dump(server.state) if server.state is not None else None)


def refused(server: ServerExchange, code: str, call, *args):
    before = snapshot(server)
    with pytest.raises(ProtocolError) as info:
        call(*args)
    assert info.value.code == code, info.value
    assert info.value.message
    assert snapshot(server) == before
    return info.value


def test_server_runs_commit_and_reveal():
    server = new_server()
    assert server.phase == "commit" and len(server.log) == 1
    assert server.commit(0, commitment(server, 0)) == []
    assert server.commit(1, commitment(server, 1)) == []
    out = server.commit(2, commitment(server, 2))
    assert [m.body["t"] for m in out] == ["commits"] and server.phase == "reveal"
    assert out[0].body["commits"] == [commitment(server, s) for s in range(3)]
    assert server.reveal(1, player_seed(1)) == []
    assert server.reveal(0, player_seed(0)) == []
    out = server.reveal(2, player_seed(2))
    assert [m.body["t"] for m in out] == ["reveals", "private", "private", "private"]
    assert [m.body["seat"] for m in out[1:]] == [0, 1, 2]
    assert all(m.body["seq"] == 2 for m in out[1:])
    assert server.phase == "play"


def test_reveal_before_the_commitment_set_is_complete():
    server = new_server()
    refused(server, "out_of_order", server.reveal, 0, player_seed(0))
    server.commit(0, commitment(server, 0))
    server.commit(1, commitment(server, 1))
    refused(server, "out_of_order", server.reveal, 0, player_seed(0))


def test_commitment_after_the_set_is_complete():
    server = committed()
    refused(server, "out_of_order", server.commit, 0, commitment(server, 0))
    refused(server, "out_of_order", server.commit, 1, commitment(server, 1, _bytes("other")))
    server = playing()
    refused(server, "out_of_order", server.commit, 0, commitment(server, 0))


def test_second_different_commitment_is_refused_and_the_same_one_ignored():
    server = new_server()
    mine = commitment(server, 0)
    assert server.commit(0, mine) == []
    refused(server, "already_committed", server.commit, 0, commitment(server, 0, _bytes("changed mind")))
    before = snapshot(server)
    assert server.commit(0, mine) == []
    assert snapshot(server) == before
    # The first commitment stands: it is the one in the commitment set.
    server.commit(1, commitment(server, 1))
    out = server.commit(2, commitment(server, 2))
    assert out[0].body["commits"][0] == mine


def test_seed_that_does_not_match_its_commitment():
    server = committed()
    refused(server, "seed_mismatch", server.reveal, 0, _bytes("not my seed"))
    refused(server, "seed_mismatch", server.reveal, 0, player_seed(1))  # another seat's seed
    # A seed revealed for the wrong seat, even a correct one, is refused too.
    refused(server, "seed_mismatch", server.reveal, 1, player_seed(0))
    server.reveal(0, player_seed(0))
    refused(server, "seed_mismatch", server.reveal, 1, player_seed(0))


@pytest.mark.parametrize("bad", [b"", bytes(31), bytes(33), bytes(64), bytearray(32), "a" * 32, None, 0,
                                 list(range(32))])
def test_malformed_commitment(bad):
    server = new_server()
    refused(server, "bad_commit", server.commit, 0, bad)


@pytest.mark.parametrize("bad", [b"", bytes(16), bytes(31), bytes(33), bytearray(32), "s" * 32, None, 7])
def test_malformed_seed(bad):
    server = committed()
    refused(server, "bad_seed", server.reveal, 0, bad)


@pytest.mark.parametrize("seat", [-1, 3, 4, 100, "0", 0.0, 1.0, True, None, [0]])
def test_seat_out_of_range_or_not_int(seat):
    server = new_server()
    refused(server, "bad_seat", server.commit, seat, commitment(server, 0))
    server = committed()
    refused(server, "bad_seat", server.reveal, seat, player_seed(0))


def test_move_before_play():
    server = new_server()
    refused(server, "out_of_order", server.act, 0, ["builder"])
    server = committed()
    refused(server, "out_of_order", server.act, 0, ["builder"])


@pytest.mark.parametrize("who, action", [
    ("chooser", ["no such role"]),
    ("chooser", ["builder", "trader"]),
    ("chooser", []),
    ("chooser", None),
    ("other", ["builder"]),
    (7, ["builder"]),
    ("0", ["builder"]),
])
def test_illegal_move_appends_nothing(who, action):
    server = playing()
    seat = sanjuan.to_act(server.state)[0]
    if who == "chooser":
        who = seat
    elif who == "other":
        who = (seat + 1) % 3
    before = snapshot(server)
    with pytest.raises(IllegalAction):
        server.act(who, action)
    assert snapshot(server) == before
    assert server.last_events == []


def test_moves_are_chained_and_recorded():
    server = playing()
    seat = sanjuan.to_act(server.state)[0]
    out = server.act(seat, ["builder"])
    assert out[0].kind == "entry" and out[0].body == {**out[0].body, "t": "move", "seat": seat, "seq": 3}
    assert out[0].body["prev"] == server.log[2].hash
    assert server.moves == [[seat, ["builder"]]]
    assert all(m.kind == "private" and m.body["seq"] == 3 for m in out[1:])


def test_cancel_after_the_end():
    server, _ = played(*MATCHES[0])
    assert server.phase == "over"
    refused(server, "out_of_order", server.cancel, "too late")


def test_cancel_twice():
    server = committed()
    server.cancel("first")
    refused(server, "out_of_order", server.cancel, "second")
    refused(server, "out_of_order", server.commit, 0, commitment(server, 0))
    refused(server, "out_of_order", server.reveal, 0, player_seed(0))
    refused(server, "out_of_order", server.act, 0, ["builder"])


def _pinned_players(server: ServerExchange) -> list[PlayerExchange]:
    return [PlayerExchange(pid, player_seed(i), server_key=server.signer.public_key)
            for i, (pid, _) in enumerate(server.seats)]


@pytest.mark.parametrize("stage", ["commit-none", "commit-some", "reveal-none", "reveal-some"])
def test_cancel_before_play_reveals_the_server_seed_and_verifies(stage):
    server = new_server()
    players = _pinned_players(server)
    replies = deliver(players, [server.header])
    step, count = stage.split("-")
    k = {"none": 0, "some": 2}[count]
    for seat, c in (replies if step == "reveal" else replies[:k]):
        deliver(players, server.commit(seat, c))
    if step == "reveal":
        for seat in range(k):
            assert server.reveal(seat, player_seed(seat)) == []
    [cancel] = server.cancel("a player did not answer in time")
    assert server.phase == "cancelled"
    body = cancel.body
    assert body["t"] == "cancel" and body["reason"] == "a player did not answer in time"
    assert body["server_seed"] == server.server_seed
    assert server_commit(server.game_id, body["server_seed"]) == server.header.body["server_commit"]
    assert body["seeds"] == [player_seed(s) if step == "reveal" and s < k else None for s in range(3)]
    assert body["moves"] == []
    deliver(players, [cancel])
    for report in [verify(server.sent)] + [p.report for p in players]:
        assert report is not None and report.ok, report.text()
        assert any("cancelled" in c and "server seed matches" in c for c in report.checks), report.checks


def test_cancel_mid_game_verifies_the_moves_so_far():
    server = new_server()
    players = _pinned_players(server)
    for seat, c in deliver(players, [server.header]):
        for seat2, seed in deliver(players, server.commit(seat, c)):
            deliver(players, server.reveal(seat2, seed))
    bots = [RandomBot(f"cancel/{k}") for k in range(3)]
    for _ in range(40):
        seat = sanjuan.to_act(server.state)[0]
        deliver(players, server.act(seat, bots[seat].choose(sanjuan.view(server.state, seat))))
    [cancel] = server.cancel("the server shuts down")
    assert cancel.body["moves"] == server.moves and len(server.moves) == 40
    # a server holds hundreds of matches: their moves are kept as bytes, which the collector never walks
    assert not any(gc.is_tracked(m) for m in server.packed_moves)
    assert cancel.body["seeds"] == [player_seed(s) for s in range(3)]
    deliver(players, [cancel])
    for report in [verify(server.sent)] + [p.report for p in players]:
        assert report.ok, report.text()
        assert any("40 moves replayed" in c for c in report.checks), report.checks
        assert any("match cancelled" in c for c in report.checks), report.checks
        assert report.scores is None and report.winners is None


def test_server_refuses_a_bad_table():
    with pytest.raises(ProtocolError) as info:
        ServerExchange("sanjuan", {}, [("a", "A")], _signer())
    assert info.value.code == "bad_table"
    with pytest.raises(ProtocolError) as info:
        ServerExchange("sanjuan", {}, [("a", "A"), ("a", "B")], _signer())
    assert info.value.code == "bad_table"


# --- the player side ------------------------------------------------------------------------

@pytest.fixture
def table():
    """A 3-seat server whose header, commitment set, reveal set and first move exist, and fresh
    players (pinned to its key) that have received nothing yet."""
    server = new_server()
    for seat in range(3):
        server.commit(seat, commitment(server, seat))
    for seat in range(3):
        server.reveal(seat, player_seed(seat))
    seat = sanjuan.to_act(server.state)[0]
    server.act(seat, ["builder"])
    return server, _pinned_players(server)


def entry(server, seq) -> Signed:
    return server.log[seq]


def private(server, seq, seat) -> Signed:
    [m] = [m for m in server.sent if m.kind == "private" and m.body["seq"] == seq and m.body["seat"] == seat]
    return m


def refuses(player: PlayerExchange, msg: Signed, code: str):
    before = (len(player.entries), len(player.privates), len(player.record), player.seat)
    with pytest.raises(ProtocolError) as info:
        player.receive(msg)
    assert info.value.code == code, info.value
    assert (len(player.entries), len(player.privates), len(player.record), player.seat) == before
    return info.value


def test_player_commits_then_reveals_only_after_the_commitment_set(table):
    server, players = table
    p = players[1]
    reply = p.receive(entry(server, 0))
    assert reply == commitment(server, 1) and reply != p.seed
    assert p.seat == 1
    assert p.receive(entry(server, 1)) == p.seed
    assert p.receive(entry(server, 2)) is None
    assert p.receive(private(server, 2, 1)) is None
    assert p.receive(entry(server, 3)) is None
    assert p.record == [entry(server, 0), entry(server, 1), entry(server, 2), private(server, 2, 1), entry(server, 3)]


def test_entry_out_of_sequence(table):
    server, players = table
    p = players[0]
    refuses(p, entry(server, 1), "bad_seq")          # before the header
    p.receive(entry(server, 0))
    refuses(p, entry(server, 2), "bad_seq")          # skips the commitment set
    refuses(p, entry(server, 0), "bad_seq")          # the header again
    p.receive(entry(server, 1))
    refuses(p, entry(server, 1), "bad_seq")          # duplicated
    refuses(p, entry(server, 3), "bad_seq")
    p.receive(entry(server, 2))


def test_entry_with_a_bad_signature(table):
    server, players = table
    p = players[0]
    p.receive(entry(server, 0))
    refuses(p, flip_sig(entry(server, 1)), "bad_signature")
    # Signed by another key (a valid signature, but not the server's).
    refuses(p, resign(_signer("intruder"), entry(server, 1)), "bad_signature")
    # An entry's bytes signed as a private message.
    msg = entry(server, 1)
    refuses(p, Signed.parse("entry", msg.payload, server.signer.sign(SIG_PRIVATE, msg.payload)), "bad_signature")
    assert p.receive(entry(server, 1)) == p.seed


def test_header_with_a_bad_signature(table):
    server, _ = table
    p = PlayerExchange("p0", player_seed(0))  # not pinned: the header's own key is checked
    refuses(p, flip_sig(entry(server, 0)), "bad_signature")
    forged = resign(_signer("intruder"), entry(server, 0))  # names the real key, signed by another
    refuses(p, forged, "bad_signature")


def test_entry_with_a_broken_chain(table):
    server, players = table
    p = players[0]
    p.receive(entry(server, 0))
    refuses(p, resign(server.signer, entry(server, 1), prev=bytes(32)), "bad_chain")
    refuses(p, resign(server.signer, entry(server, 1), prev=None), "bad_chain")
    p.receive(entry(server, 1))
    p.receive(entry(server, 2))
    p.receive(private(server, 2, 0))
    refuses(p, resign(server.signer, entry(server, 3), prev=entry(server, 1).hash), "bad_chain")
    p.receive(entry(server, 3))


@pytest.mark.parametrize("change", ["short", "long", "empty", "not a list"])
def test_commitment_set_with_the_wrong_count(table, change):
    server, players = table
    p = players[0]
    p.receive(entry(server, 0))
    commits = entry(server, 1).body["commits"]
    bad = {"short": commits[:2], "long": commits + [commits[2]], "empty": [],
           "not a list": commits[0]}[change]
    refuses(p, resign(server.signer, entry(server, 1), commits=bad), "bad_commits")
    assert p.receive(entry(server, 1)) == p.seed


@pytest.mark.parametrize("seat", [0, 1, 2])
@pytest.mark.parametrize("change", ["changed", "another seat's", "missing", "for another seed"])
def test_commitment_set_with_our_commitment_changed_or_missing(table, seat, change):
    server, players = table
    p = players[seat]
    assert p.receive(entry(server, 0)) == commitment(server, seat)
    commits = list(entry(server, 1).body["commits"])
    mine = commits[seat]
    commits[seat] = {
        "changed": bytes([mine[0] ^ 1]) + mine[1:],
        "another seat's": commits[(seat + 1) % 3],
        "missing": None,
        "for another seed": commitment(server, seat, _bytes("chosen by the server")),
    }[change]
    error = refuses(p, resign(server.signer, entry(server, 1), commits=commits), "commit_changed")
    assert p.seed.hex() not in str(error)
    # Only the genuine set gets the seed.
    assert p.receive(entry(server, 1)) == p.seed


def test_a_seed_the_server_said_it_made_is_accepted_and_ours_never_leaves(table):
    """A player away past the grace period before committing gets a server-made seed (the
    server says so in its status). The returning client then accepts a commitment set without
    its own commitment, and never sends its seed: it is not the one committed to."""
    server, players = table
    p = players[1]
    p.receive(entry(server, 0))
    commits = list(entry(server, 1).body["commits"])
    commits[1] = commitment(server, 1, _bytes("made by the server"))
    replaced = resign(server.signer, entry(server, 1), commits=commits)
    p.seed_made_by_server = True
    assert p.receive(replaced) is None
    # with our own commitment in the set after all, the seed is ours to reveal as usual
    q = players[2]
    q.seed_made_by_server = True
    q.receive(entry(server, 0))
    assert q.receive(entry(server, 1)) == q.seed


@pytest.mark.parametrize("hole", [None, b"", bytes(31), "not bytes"], ids=["None", "empty", "31-bytes", "str"])
def test_commitment_set_missing_another_seats_commitment(table, hole):
    """docs/fairness.md §4.3: exactly one commitment per seat. A set in which another seat has no
    commitment is not complete, so the seed must not leave."""
    server, players = table
    p = players[0]
    p.receive(entry(server, 0))
    commits = list(entry(server, 1).body["commits"])
    commits[2] = hole
    refuses(p, resign(server.signer, entry(server, 1), commits=commits), "bad_commits")


def test_an_entry_of_another_type_where_the_commitment_set_belongs(table):
    """Signed and chained, but a move where the commitment set must come: the player must refuse
    it, or at the latest the reveal set after it, with a ProtocolError (never another exception),
    and must not send its seed."""
    server, players = table
    p = players[0]
    p.receive(entry(server, 0))
    move = Signed.parse("entry", pack({"t": "move", "seat": 0, "seq": 1, "prev": entry(server, 0).hash}), b"")
    move = resign(server.signer, move)
    reveals = resign(server.signer, entry(server, 2), prev=move.hash)
    with pytest.raises(ProtocolError):
        assert p.receive(move) != p.seed
        p.receive(reveals)


def test_reveal_set_with_a_seed_that_does_not_match(table):
    server, players = table
    p = players[0]
    p.receive(entry(server, 0))
    p.receive(entry(server, 1))
    seeds = list(entry(server, 2).body["seeds"])
    for seat in range(3):
        bad = list(seeds)
        bad[seat] = _bytes("a seed chosen later")
        refuses(p, resign(server.signer, entry(server, 2), seeds=bad), "seed_mismatch")
    swapped = [seeds[1], seeds[0], seeds[2]]
    refuses(p, resign(server.signer, entry(server, 2), seeds=swapped), "seed_mismatch")
    missing = [seeds[0], seeds[1], None]
    refuses(p, resign(server.signer, entry(server, 2), seeds=missing), "seed_mismatch")
    p.receive(entry(server, 2))


def test_reveal_set_with_the_wrong_count(table):
    server, players = table
    p = players[0]
    p.receive(entry(server, 0))
    p.receive(entry(server, 1))
    seeds = entry(server, 2).body["seeds"]
    refuses(p, resign(server.signer, entry(server, 2), seeds=seeds[:2]), "bad_reveals")
    refuses(p, resign(server.signer, entry(server, 2), seeds=None), "bad_reveals")


def test_private_message_before_the_header(table):
    server, players = table
    refuses(players[0], private(server, 2, 0), "out_of_order")


def test_private_message_for_another_seat(table):
    server, players = table
    p = players[0]
    for seq in range(3):
        p.receive(entry(server, seq))
    refuses(p, private(server, 2, 1), "not_for_us")
    refuses(p, private(server, 2, 2), "not_for_us")
    p.receive(private(server, 2, 0))


def test_private_message_from_another_match(table):
    server, players = table
    p = players[0]
    for seq in range(3):
        p.receive(entry(server, seq))
    forged = resign(server.signer, private(server, 2, 0), game_id=_bytes("another match")[:16])
    refuses(p, forged, "wrong_match")
    # The same private message of a real other match by the same server.
    other = ServerExchange("sanjuan", {"expansion": True}, server.seats, server.signer)
    for seat in range(3):
        other.commit(seat, player_commit(other.game_id, server.seats[seat][0], player_seed(seat)))
    for seat in range(3):
        out = other.reveal(seat, player_seed(seat))
    refuses(p, [m for m in out if m.kind == "private" and m.body["seat"] == 0][0], "wrong_match")
    p.receive(private(server, 2, 0))


def test_private_message_with_a_bad_signature(table):
    server, players = table
    p = players[0]
    for seq in range(3):
        p.receive(entry(server, seq))
    msg = private(server, 2, 0)
    refuses(p, flip_sig(msg), "bad_signature")
    refuses(p, resign(_signer("intruder"), msg), "bad_signature")
    # Signed as a log entry instead of a private message (C9).
    refuses(p, Signed.parse("private", msg.payload, server.signer.sign(SIG_ENTRY, msg.payload)), "bad_signature")
    # Changed cards, old signature.
    body = unpack(msg.payload)
    body["dealt"] = list(reversed(body["dealt"]))
    refuses(p, Signed.parse("private", pack(body), msg.sig), "bad_signature")
    p.receive(msg)


def test_private_message_for_an_older_entry(table):
    server, players = table
    p = players[0]
    for seq in range(4):
        p.receive(entry(server, seq))
    refuses(p, private(server, 2, 0), "bad_seq")


def test_header_signed_by_another_key_than_the_pinned_one(table):
    server, players = table
    impostor = ServerExchange("sanjuan", {"expansion": True}, server.seats, _signer("impostor"))
    refuses(players[0], impostor.header, "wrong_server")
    # Naming the pinned key while signed by another is no better.
    refuses(players[0], resign(_signer("impostor"), server.header), "bad_signature")
    assert players[0].receive(server.header) == commitment(server, 0)


def test_unpinned_player_accepts_any_correctly_signed_header(table):
    server, _ = table
    impostor = ServerExchange("sanjuan", {"expansion": True}, server.seats, _signer("impostor"))
    p = PlayerExchange("p0", player_seed(0))
    assert p.receive(impostor.header) == player_commit(impostor.game_id, "p0", player_seed(0))


def test_header_not_naming_this_player(table):
    server, _ = table
    stranger = PlayerExchange("p9", _bytes("p9"), server_key=server.signer.public_key)
    refuses(stranger, server.header, "not_seated")
    # Nor a header that names the player twice: player ids differ, so that is no header at all.
    doubled = resign(server.signer, server.header,
                     seats=[{"id": "p0", "name": "A"}, {"id": "p0", "name": "B"}, {"id": "p2", "name": "C"}])
    refuses(PlayerExchange("p0", player_seed(0), server_key=server.signer.public_key), doubled, "bad_header")


def test_header_that_is_not_a_header(table):
    server, players = table
    refuses(players[0], resign(server.signer, server.header, protocol="bgfair/v0"), "bad_header")
    refuses(players[0], resign(server.signer, server.header, t="commits"), "bad_header")


# --- the spectator's side ---------------------------------------------------------------------

def test_a_spectator_checks_the_public_entries_and_audits_them():
    """PlayerExchange(None): every entry checked as a player checks it, nothing sent back, no
    private message taken, nothing after the last entry; the audit passes without the hands."""
    server, _ = _match(3, True, "spectator")
    watcher = PlayerExchange(None, server_key=server.signer.public_key)
    entries = [m for m in server.sent if m.kind == "entry"]
    refuses(watcher, entries[1], "bad_seq")
    replies = [watcher.receive(m) for m in entries]
    assert replies == [None] * len(entries) and watcher.seat is None and watcher.seed is None
    assert watcher.report.ok and watcher.report.seats_checked == []
    assert watcher.report.scores == [sc["total"] for sc in sanjuan.result(server.state)["scores"]]
    refuses(watcher, next(m for m in server.sent if m.kind == "private"), "not_for_us")
    after = resign(server.signer, entries[-1], seq=len(entries), prev=entries[-1].hash)
    refuses(watcher, after, "out_of_order")


def test_a_spectator_catches_a_forged_entry():
    server, _ = _match(2, False, "spectator-forged")
    watcher = PlayerExchange(None, server_key=server.signer.public_key)
    entries = [m for m in server.sent if m.kind == "entry"]
    for m in entries[:5]:
        watcher.receive(m)
    forged = resign(_signer("someone else"), entries[5])
    refuses(watcher, forged, "bad_signature")
