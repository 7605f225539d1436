"""A server upgraded from the release that spoke bgfair/v1 keeps that release's matches.

fixtures/bgfair-v1-store is the data directory that release's own server wrote (fixtures/
bgfair-v1-store/make.py): one finished match and one it left under way, each with two people and
a computer seat, the signed messages a player of each received from it, and a table waiting with
one person seated. The current server
starts on a copy: the finished match is watched as that release signed it, byte for byte; the
unfinished one, which cannot go on, ends with a signed cancel entry saying why. Both records
verify, and no table is frozen. (SQLite only: PostgreSQL rebuilds tables by the same code.)
"""
import json
import logging
import shutil
from pathlib import Path

from protocol import record
from protocol.messages import Signed
from protocol.verify import verify
from server.metrics import exposition
from server.table_core import UPGRADE_REASON

from .rawclient import Raw, SeatPlayer
from .test_published import get, listed

FIXTURE = Path(__file__).parent / "fixtures" / "bgfair-v1-store"


def v1_data_dir(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    for name in ("server_key.pem", "governor.db"):
        shutil.copy(FIXTURE / name, data / name)
        (data / name).chmod(0o600)
    return data


async def watched(url: str, table: str) -> list[Signed]:
    """The public entries of a match as a spectator gets them, up to its final or cancel entry."""
    raw = await Raw.connect(url)
    await raw.send({"type": "watch", "table": table})
    entries: list[Signed] = []
    while not entries or entries[-1].body["t"] not in ("final", "cancel"):
        msg = await raw.recv()
        assert msg["type"] not in ("error", "notice"), msg
        if msg["type"] == "entry":
            entries.append(Signed.parse("entry", msg["payload"], msg["sig"]))
    await raw.close()
    return entries


def public(items: list[Signed]) -> list[tuple[bytes, bytes]]:
    return [(m.payload, m.sig) for m in items if m.kind == "entry"]


async def test_matches_of_the_previous_version_are_watched_or_cancelled_never_frozen(make_server, tmp_path,
                                                                                       caplog):
    tables = json.loads((FIXTURE / "tables.json").read_text())
    caplog.set_level(logging.INFO)
    server = await make_server(data_dir=v1_data_dir(tmp_path), records_port=0)

    # The unfinished match: what the previous server sent, then a cancel entry saying why.
    entries = await watched(server.url, tables["unfinished"])
    before = public(record.read(FIXTURE / "unfinished.govrec"))
    assert public(entries[:len(before)]) == before          # rebuilt byte for byte, signatures too
    assert len(entries) == len(before) + 1
    cancel = entries[-1].body
    assert cancel["t"] == "cancel" and cancel["reason"] == UPGRADE_REASON
    assert "upgraded" in cancel["reason"] and "could not continue" in cancel["reason"]
    report = verify(entries)
    assert report.ok, report.text()
    assert report.protocol == "bgfair/v1"
    assert server.tables[tables["unfinished"]].status == "cancelled"
    cancelled = entries

    # The finished match: exactly as the previous server signed it, to its final entry.
    entries = await watched(server.url, tables["finished"])
    assert public(entries) == public(record.read(FIXTURE / "finished.govrec"))
    report = verify(entries)
    assert report.ok and report.protocol == "bgfair/v1", report.text()

    # The cancelled match is published on the records port, and its record verifies there too.
    name = f"{tables['unfinished']}.govrec"
    assert name in await listed(server.records_port)
    status, _, body = await get(server.records_port, f"/records/{name}")
    assert status == 200 and public(record.loads(body)) == public(cancelled)
    assert verify(record.loads(body)).ok

    # A table waiting for players: the seat a person held by a seat token is free, for them too.
    lobby = await Raw.connect(server.url)
    await lobby.send({"type": "list"})
    waiting = next(t for t in (await lobby.expect("tables"))["tables"] if t["id"] == tables["waiting"])
    assert [s["name"] for s in waiting["seats"]] == [None, None]
    await lobby.close()
    ed = SeatPlayer(server.url, tables["waiting"], "Ed")
    await ed.sit()
    assert ed.seat == 0
    await ed.drop()

    # No table frozen, no error; the cancel logged once at warning level and counted.
    assert not [t for t in server.tables.values() if t.core.frozen]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    warned = [r for r in caplog.records if r.levelno == logging.WARNING and "previous server version" in r.getMessage()]
    assert [tables["unfinished"] in r.getMessage() for r in warned] == [True]
    assert "governor_upgrade_cancels_total 1\n" in exposition(server)

    # Started again, the server has nothing left to cancel: the match was ended once, for good.
    data_dir = server.data_dir
    await server.stop()
    again = await make_server(data_dir=data_dir)
    assert "governor_upgrade_cancels_total 0\n" in exposition(again)
    assert tables["unfinished"] not in again.tables
    entries = await watched(again.url, tables["unfinished"])
    assert public(entries) == public(cancelled)
    assert len([r for r in caplog.records if "previous server version" in r.getMessage()]) == 1
