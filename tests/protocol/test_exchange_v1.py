"""ServerExchange rebuilds a bgfair/v1 match (one a server of that version stored) exactly as that
version signed it, and takes nothing a v1 match cannot hold.

The match is one that release's own server played (tests/server/fixtures/bgfair-v1-store/make.py):
with its server key, the rebuilt messages are the ones a player received from it, byte for byte."""
from pathlib import Path

import pytest

from protocol import record
from protocol.exchange import ServerExchange
from protocol.messages import ProtocolError
from protocol.signing import Signer, from_pem
from protocol.verify import verify

STORE = Path(__file__).parents[1] / "server" / "fixtures" / "bgfair-v1-store"
V1_SERVER = from_pem((STORE / "server_key.pem").read_bytes(), "the fixture's server key")
SIGNER = Signer.generate()


def replayed(items, moves: int | None = None) -> ServerExchange:
    """The match of a record played again from its public entries (its first `moves` moves)."""
    entries = [m for m in items if m.kind == "entry"]
    header, final = entries[0].body, entries[-1].body
    ex = ServerExchange(header["game"], header["options"], [(s["id"], s["name"]) for s in header["seats"]],
                        V1_SERVER, game_id=header["game_id"], server_seed=final["server_seed"], protocol="bgfair/v1")
    for seat, commitment in enumerate(entries[1].body["commits"]):
        ex.commit(seat, commitment)
    for seat, seed in enumerate(entries[2].body["seeds"]):
        ex.reveal(seat, seed)
    for seat, action in final["moves"][:moves]:
        ex.act(seat, action)
    return ex


def test_a_v1_match_is_rebuilt_to_the_bytes_its_server_signed():
    items = record.read(STORE / "finished.govrec")     # what seat 0 received: every entry, its own privates
    ex = replayed(items)
    ours = [m for m in ex.sent if m.kind == "entry" or m.body["seat"] == 0]
    assert ex.phase == "over" and [(m.kind, m.payload, m.sig) for m in ours] == \
        [(m.kind, m.payload, m.sig) for m in items]
    report = verify(ex.sent)
    assert report.ok and report.protocol == "bgfair/v1", report.text()


def test_a_v1_match_cancelled_midway_still_verifies():
    items = record.read(STORE / "finished.govrec")
    ex = replayed(items, moves=7)
    ex.cancel("the server was upgraded")
    report = verify(ex.sent)
    assert report.ok, report.text()
    assert len(ex.log[-1].body["moves"]) == 7


def test_a_v1_match_takes_no_player_key_and_no_players_signature():
    with pytest.raises(ProtocolError, match="names no player keys"):
        ServerExchange("sanjuan", {}, [("a", "A"), ("b", "B")], SIGNER, players=[b"k" * 32, "random"],
                       protocol="bgfair/v1")
    with pytest.raises(ProtocolError, match="'bgfair/v0' is not one of"):
        ServerExchange("sanjuan", {}, [("a", "A"), ("b", "B")], SIGNER, protocol="bgfair/v0")
    ex = ServerExchange("sanjuan", {}, [("a", "A"), ("b", "B")], SIGNER, protocol="bgfair/v1")
    with pytest.raises(ProtocolError, match="nobody but the server signs"):
        ex.commit(0, b"c" * 32, b"s" * 64)
    assert ex.commits == [None, None] and len(ex.log) == 1     # refused: nothing changed
