"""A rated table: the creator's choice, said in the lobby, signed in the header, and counted in the
server's standings once its match is over; each person's key listed with their seat."""
import json

from protocol import record
from protocol.standings import judge, standings

from .rawclient import Raw, SeatPlayer, play_all
from .test_published import get, published


async def seated_pair(server, raw: Raw, table: str) -> tuple[SeatPlayer, SeatPlayer, dict]:
    """Ana and Bo seated at `table`, and its entry in the lobby's list (asked through `raw`)."""
    ana, bo = SeatPlayer(server.url, table, "Ana"), SeatPlayer(server.url, table, "Bo", seed=1)
    await ana.sit()
    await bo.sit()
    await raw.send({"type": "list"})
    [entry] = [t for t in (await raw.expect("tables"))["tables"] if t["id"] == table]
    return ana, bo, entry


async def test_a_rated_match_is_listed_signed_and_counted(make_server):
    server = await make_server(records_port=0)
    raw = await Raw.connect(server.url)
    await raw.send({"type": "create", "game": "sanjuan", "seats": 2, "bots": 0, "options": {}, "rated": True,
                    "blind": False})
    table = (await raw.expect("created"))["table"]
    ana, bo, entry = await seated_pair(server, raw, table)
    assert entry["rated"] is True
    assert {s["name"]: s["key"] for s in entry["seats"]} == {"Ana": ana.key.public_key, "Bo": bo.key.public_key}
    await raw.close()
    await play_all([ana, bo])
    assert ana.px.header["rated"] is True and ana.report.ok
    assert [s.get("key") for s in ana.status["seats"]] == [s["key"] for s in ana.px.header["seats"]]

    port = server.records_port
    name = f"{table}.govrec"
    await published(port, [name])
    _, _, data = await get(port, f"/records/{name}")
    mine = standings([judge(name, data)])
    assert [(p.name, p.key, p.games) for p in sorted(mine.games["sanjuan"], key=lambda p: p.name)] == [
        ("Ana", ana.key.public_key, 1), ("Bo", bo.key.public_key, 1)]
    _, _, page = await get(port, "/")
    for p in mine.games["sanjuan"]:
        assert (f"<tr><td>{p.rank}</td><td>{p.name}</td><td><code>{p.fingerprint}</code></td>"
                f"<td>{p.rating}</td><td>1</td></tr>").encode() in page
    assert f'<a href="records/{name}">{name}</a></td><td>yes</td>'.encode() in page
    assert json.loads((await get(port, "/records.json"))[2]) == {"records": [name]}
    assert record.loads(data)[0].body["rated"] is True


async def test_an_unrated_table_says_nothing_of_ratings_and_its_match_is_not_counted(make_server):
    server = await make_server(records_port=0)
    raw = await Raw.connect(server.url)
    table = await raw.create(2)
    ana, bo, entry = await seated_pair(server, raw, table)
    assert entry["rated"] is False
    await raw.close()
    await play_all([ana, bo])
    await published(server.records_port, [f"{table}.govrec"])
    _, _, page = await get(server.records_port, "/")
    assert b"No rated match yet." in page and b"no: not rated, the table was not rated" in page
