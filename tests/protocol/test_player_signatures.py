"""The players' signatures of bgfair/v2 (docs/fairness.md §9): a record proves what each player did.

A forged move (the server applies a move its player never signed) and a denied move (the player
says it never sent a move it signed) are both settled by the audit, naming the entry; so are a
signature made for another match or another position, and a commitment or seed not signed by
its seat's key. The server's side refuses a move signed with another key, or a malformed
signature, and changes nothing. Records of bgfair/v1 still verify.
"""
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

import client.cli
import games
import protocol.harness
from bots.random_bot import RandomBot
from protocol import record
from protocol.codec import pack, unpack
from protocol.exchange import PlayerExchange, ServerExchange
from protocol.harness import deliver, play_match
from protocol.messages import ProtocolError, Signed
from protocol.signing import SIG_ENTRY, SIG_MOVE, Signer, move_payload, verify_signature
from protocol.verify import verify, who_made

NAMES = ["Ana", "Bo", "Cy", "Di"]
SEED = "signatures"
FIXTURES = Path(__file__).parent / "fixtures"


def deciders(seed: str):
    return [RandomBot(f"{seed}/{k}").choose for k in range(len(NAMES))]


@pytest.fixture(scope="module")
def match():
    server, players = play_match("sanjuan", NAMES, {}, deciders(SEED), SEED)
    assert server.phase == "over" and all(p.report.ok for p in players)
    return server, players


def edit(signer: Signer, msg: Signed, change) -> Signed:
    body = unpack(msg.payload)
    change(body)
    payload = pack(body)
    return Signed.parse("entry", payload, signer.sign(SIG_ENTRY, payload))


def forge(server: ServerExchange, items: list[Signed], seq: int, change) -> list[Signed]:
    """A lying server's record: entry `seq` changed and re-signed with the server's key (it has no
    player's key), and the chain after it re-linked."""
    out, prev = [], None
    for m in items:
        if m.kind == "entry":
            if m.body["seq"] == seq:
                m = edit(server.signer, m, change)
            elif prev is not None and m.body.get("prev") != prev.hash:
                m = edit(server.signer, m, lambda b: b.__setitem__("prev", prev.hash))
            prev = m
        out.append(m)
    return out


def check(items):
    return verify(record.loads(record.dumps(items)))


def fails_at(items, seq: int, *what: str):
    report = check(items)
    assert not report.ok, "the audit did not notice"
    assert report.where.startswith(f"entry {seq} "), (report.where, report.what)
    for w in what:
        assert w in report.what, (report.where, report.what)
    assert f"FAILED at {report.where}" in report.text()
    return report


def player_move(server, seq: int) -> dict:
    """Move entry `seq` as the audit sees it: its entry, with the bytes and signature that the
    final entry lists for it."""
    body = server.log[seq].body
    assert body["t"] == "move" and "seen" in body
    move, sig = server.log[-1].body["signed"][seq - 3]
    return {**body, "move": move, "sig": sig}


def forge_signed(server, items, seq: int, value) -> list[Signed]:
    """A lying server's record whose final entry lists `value` as move `seq`'s signed bytes."""
    return forge(server, items, len(server.log) - 1, lambda b: b["signed"].__setitem__(seq - 3, value))


# --- the honest record --------------------------------------------------------------------------

def test_every_move_of_the_record_is_signed_by_its_player(match):
    server, players = match
    moves = [player_move(server, i) for i in range(3, len(server.log) - 1)]
    assert moves and all("bot" not in b for b in moves)
    for b in moves:
        key = server.header.body["seats"][b["seat"]]["key"]
        payload = move_payload(server.header.hash, b["seat"], server.log[b["seen"]].hash, b["move"])
        assert verify_signature(key, SIG_MOVE, payload, b["sig"])
    report = check(server.sent)
    assert report.ok, report.text()
    assert report.keys == [p.signer.fingerprint for p in players]
    assert f"{len(moves)} moves signed by their players' keys" in report.text()
    assert "every player signed their commitment and seed with their key" in report.text()


# --- a forged move: the server applies a move the player never signed ----------------------------

class _Forger(ServerExchange):
    """At move FORGE_AT, the server plays another legal move than the one its player signed,
    and keeps the player's signature in the entry."""
    forge_at = 30

    def act_signed(self, seat, seen, move, sig):
        if len(self.moves) != self.forge_at:
            return super().act_signed(seat, seen, move, sig)
        view = self.engine.view(self.state, seat)
        signed = unpack(move)
        other = next(a for k in range(200) if (a := RandomBot(f"forge/{k}").choose(view)) != signed)
        return self._apply_move(seat, other, {"seen": seen}, [pack(other), sig])


def test_a_forged_move_fails_the_audit_at_its_entry(tmp_path, capsys):
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(protocol.harness, "ServerExchange", _Forger)
        server, players = play_match("sanjuan", NAMES, {}, deciders(SEED), SEED)
    seq = _Forger.forge_at + 3
    name = NAMES[server.log[seq].body["seat"]]
    for items in [server.sent] + [p.record for p in players]:
        report = fails_at(items, seq, f"{name}'s signature does not match this move", "never signed it")
        assert report.where == f"entry {seq} (move by {name})"
    assert all(not p.report.ok and p.report.where == f"entry {seq} (move by {name})" for p in players)
    path = record.write(tmp_path / "forged.govrec", players[0].record)     # and `governor verify` says so
    capsys.readouterr()
    assert client.cli.main(["verify", str(path)]) == 1
    assert f"FAILED at entry {seq} (move by {name}): {name}'s signature does not match this move" \
        in capsys.readouterr().out


def test_a_move_without_its_players_signature_fails(match):
    server, _ = match
    seq = 40
    player_move(server, seq)
    fails_at(forge_signed(server, server.sent, seq, None), seq, "carries no signature of", "never signed this move")


def test_a_move_entry_that_shows_its_signed_bytes_fails(match):
    """A server that shows everyone a player's signed move before the end tells them the cards it
    picked (docs/fairness.md §9): the audit names the entry."""
    server, _ = match
    seq = 40
    b = player_move(server, seq)
    forged = forge(server, server.sent, seq, lambda body: body.update(move=b["move"], sig=b["sig"]))
    fails_at(forged, seq, "only the final or cancel entry may list them")


def test_a_client_refuses_a_move_entry_that_shows_a_signed_move_when_it_arrives(match):
    """Not only the audit at the end: a client (a spectator here) that receives such an entry
    refuses it at once, naming it, and takes in nothing of it."""
    server, _ = match
    seq = 40
    b = player_move(server, seq)
    forged = forge(server, server.sent, seq, lambda body: body.update(move=b["move"], sig=b["sig"]))
    entries = [m for m in forged if m.kind == "entry"]
    watcher = PlayerExchange(None, server_key=server.signer.public_key)
    for m in entries[:seq]:
        watcher.receive(m)
    with pytest.raises(ProtocolError, match=f"entry {seq} shows a player's signed move"):
        watcher.receive(entries[seq])
    assert len(watcher.entries) == seq


def test_a_players_move_passed_off_as_the_servers_is_named(match):
    """A server may play for a player away or out of time: it marks such a move as its own, and
    the audit names how many it made for whom. (The last move: a later player's signature covers
    every entry before it, so no earlier entry can be changed without breaking it.)"""
    server, _ = match
    seq = len(server.log) - 2
    name = NAMES[server.log[seq].body["seat"]]
    forged = forge(server, server.sent, seq, lambda b: (b.pop("seen"), b.__setitem__("bot", True)))
    report = check(forge_signed(server, forged, seq, None))
    assert report.ok, report.text()
    assert f"moves the server made for players away or out of time: {name} 1" in report.text()


# --- a denied move: the player signed it --------------------------------------------------------

def test_a_denied_move_is_settled_by_governor_verify(match, tmp_path, capsys):
    """Bo says the move of entry N was never his: `governor verify --entry N` shows his key signed it."""
    server, players = match
    seq = next(i for i in range(20, len(server.log)) if server.log[i].body.get("seat") == 1)
    path = record.write(tmp_path / "bo.govrec", players[1].record)
    capsys.readouterr()
    assert client.cli.main(["verify", str(path), "--entry", str(seq)]) == 0
    out = capsys.readouterr().out
    assert "VERIFIED" in out
    action = unpack(player_move(server, seq)["move"])
    assert f"entry {seq} (move by Bo): Bo made the move {action!r}" in out
    assert f"signed by Bo's key {players[1].signer.fingerprint}" in out
    # and the signature is not the server's to make: any change to the move breaks it
    forged = forge_signed(server, players[1].record, seq, [pack(["x"]), player_move(server, seq)["sig"]])
    fails_at(forged, seq, "Bo's signature does not match this move")
    assert who_made(server.sent, 2).startswith("entry 2 (reveals): signed by the server")


# --- a signature made for another match, another position, another seat ------------------------

def test_a_signature_from_another_match(match):
    server, players = match
    seq = 50
    b = player_move(server, seq)
    key = players[b["seat"]].signer
    other_header = bytes(32)   # the player's signature of the same move in another match
    sig = key.sign(SIG_MOVE, move_payload(other_header, b["seat"], server.log[b["seen"]].hash, b["move"]))
    fails_at(forge_signed(server, server.sent, seq, [b["move"], sig]), seq,
             "signature does not match this move, in this match")


def test_a_signature_moved_to_another_position(match):
    """The server says the player decided on an earlier entry than the one it signed."""
    server, _ = match
    seq = next(i for i in range(30, len(server.log) - 1)
               if server.log[i].body["seat"] != server.log[i - 1].body.get("seat")
               and server.log[i - 2].body.get("seat") != server.log[i].body["seat"])
    forged = forge(server, server.sent, seq, lambda b: b.__setitem__("seen", b["seen"] - 1))
    fails_at(forged, seq, "signature does not match this move", f"after entry {seq - 2}")


def test_a_signed_move_used_again_later(match):
    """The server copies a player's signed move to that player's next move."""
    server, _ = match
    first = 40
    seat = server.log[first].body["seat"]
    later = next(i for i in range(first + 1, len(server.log) - 1) if server.log[i].body["seat"] == seat)
    copied = player_move(server, first)
    forged = forge(server, server.sent, later, lambda b: b.__setitem__("seen", copied["seen"]))
    forged = forge_signed(server, forged, later, [copied["move"], copied["sig"]])
    fails_at(forged, later, f"having seen entry {copied['seen']}", "not between their previous move")


def test_a_commitment_not_signed_by_its_seats_key(match):
    server, _ = match
    forged = forge(server, server.sent, 1, lambda b: b["sigs"].__setitem__(0, b["sigs"][1]))
    fails_at(forged, 1, "Ana's commitment is not signed by their key")


def test_a_seed_not_signed_by_its_seats_key(match):
    server, _ = match
    forged = forge(server, server.sent, 2, lambda b: b["sigs"].__setitem__(2, bytes(64)))
    fails_at(forged, 2, "Cy's seed is not signed by their key")


# --- honest concurrent moves: several seats answer the same question at once --------------------

def test_concurrent_moves_signed_on_the_same_entry_verify():
    """Every seat asked at once decides on the same view and signs the same entry; the server
    applies their answers one after the other: the later ones follow entries their player never
    saw, and the record verifies."""
    keys = [Signer(Ed25519PrivateKey.from_private_bytes(bytes([k + 1]) * 32)) for k in range(3)]
    seats = [(f"p{k}", NAMES[k]) for k in range(3)]
    engine = games.get("sanjuan")
    server = ServerExchange("sanjuan", {}, seats, Signer.generate(), players=[k.public_key for k in keys], started=1)
    players = [PlayerExchange(pid, None, server_key=server.signer.public_key, signer=keys[k])
               for k, (pid, _) in enumerate(seats)]
    for seat, commitment in deliver(players, [server.header]):
        for seat2, seed in deliver(players, server.commit(seat, commitment, players[seat].sign_commit(commitment))):
            deliver(players, server.reveal(seat2, seed, players[seat2].sign_reveal(seed)))
    bots = deciders("concurrent")
    gaps = 0
    while server.phase == "play":
        asked = engine.to_act(server.state)
        seen = len(server.log) - 1
        decided = {s: (engine.prompt(server.state, s), pack(bots[s](engine.view(server.state, s)))) for s in asked}
        for s in reversed(asked):   # the last asked answers first
            if server.phase != "play" or engine.prompt(server.state, s) != decided[s][0]:
                break   # its question changed: an honest server refuses it as stale, and it asks again
            gaps += len(server.log) - 1 > seen
            deliver(players, server.act_signed(s, seen, decided[s][1], players[s].sign_move(seen, decided[s][1])))
    assert gaps > 5
    report = check(server.sent)
    assert report.ok, report.text()
    assert all(p.report.ok for p in players)


# --- the server's side refuses and changes nothing -----------------------------------------------

def _started():
    keys = [Signer.generate() for _ in range(2)]
    server = ServerExchange("sanjuan", {}, [("a", "Ana"), ("b", "Bo")], Signer.generate(),
                            players=[keys[0].public_key, "random"])
    players = [PlayerExchange("a", None, server_key=server.signer.public_key, signer=keys[0])]

    def to_ana(messages):
        return deliver(players, [m for m in messages if m.kind == "entry" or m.body["seat"] == 0])

    [(_, commitment)] = to_ana([server.header])
    server.commit(0, commitment, players[0].sign_commit(commitment))
    bot_seed = b"\x05" * 32
    to_ana(server.commit(1, protocol.fairness.player_commit(server.game_id, "b", bot_seed)))
    to_ana(server.reveal(0, players[0].seed, players[0].sign_reveal(players[0].seed)))
    to_ana(server.reveal(1, bot_seed))
    while 0 not in games.get("sanjuan").to_act(server.state):
        to_ana(server.act(1, RandomBot("b").choose(games.get("sanjuan").view(server.state, 1))))
    return server, players[0], keys


@pytest.mark.parametrize("sig, code", [
    ("another key", "bad_signature"), (b"\x00" * 64, "bad_signature"), (b"\x01" * 63, "bad_signature"),
    (b"\x01" * 65, "bad_signature"), ("text", "bad_signature"), (None, "bad_signature"),
])
def test_a_move_not_signed_by_its_seats_key_is_refused_and_changes_nothing(sig, code):
    server, player, _ = _started()
    engine = games.get("sanjuan")
    move = pack(RandomBot("a").choose(engine.view(server.state, 0)))
    seen = len(server.log) - 1
    if sig == "another key":
        sig = Signer.generate().sign(SIG_MOVE, move_payload(server.header.hash, 0, server.log[seen].hash, move))
    before = (len(server.sent), engine.view(server.state, 0), engine.view(server.state, 1))
    with pytest.raises(ProtocolError) as e:
        server.act_signed(0, seen, move, sig)
    assert e.value.code == code
    assert (len(server.sent), engine.view(server.state, 0), engine.view(server.state, 1)) == before
    sig = player.sign_move(seen, move)
    server.act_signed(0, seen, move, sig)   # the right signature is taken, kept for the final entry
    assert server.log[-1].body == {**server.log[-1].body, "seat": 0, "seen": seen}
    assert server.cancel("test")[0].body["signed"][-1] == [move, sig]


def test_a_players_signature_for_a_computer_seat_is_refused():
    server, player, keys = _started()
    seen = len(server.log) - 1
    with pytest.raises(ProtocolError) as e:
        server.act_signed(1, seen, pack(["x"]), bytes(64))
    assert e.value.code == "not_a_player"


@pytest.mark.parametrize("players", [[bytes(31), "random"], [bytes(32), bytes(32)], [None, "random"]])
def test_a_table_of_bad_or_shared_keys_is_refused(players):
    with pytest.raises(ProtocolError) as e:
        ServerExchange("sanjuan", {}, [("a", "Ana"), ("b", "Bo")], Signer.generate(), players=players)
    assert e.value.code == "bad_table"


def test_a_client_refuses_a_header_that_names_another_key_for_its_seat():
    server = ServerExchange("sanjuan", {}, [("a", "Ana"), ("b", "Bo")], Signer.generate(),
                            players=[Signer.generate().public_key, "random"])
    me = PlayerExchange("a", None, server_key=server.signer.public_key, signer=Signer.generate())
    with pytest.raises(ProtocolError) as e:
        me.receive(server.header)
    assert e.value.code == "wrong_key" and not me.entries


# --- records of bgfair/v1 ----------------------------------------------------------------------

@pytest.mark.parametrize("name", ["bgfair-v1-player.govrec", "bgfair-v1-server.govrec"])
def test_bgfair_v1_records_still_verify(name):
    """Records written by the release that spoke bgfair/v1 (no player keys, no player signatures)."""
    items = record.read(FIXTURES / name)
    report = verify(items)
    assert report.ok, report.text()
    assert report.protocol == "bgfair/v1" and report.keys == [None, None]
    assert "VERIFIED" in report.text()
    entries = [m for m in items if m.kind == "entry"]
    name = entries[0].body["seats"][entries[5].body["seat"]]["name"]
    assert who_made(items, 5) == f"entry 5 (move by {name}): signed by the server alone (a bgfair/v1 record: " \
                                 "players signed nothing)"
