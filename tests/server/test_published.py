"""The records port (server/published.py): finished matches' public records and the standings
page, GET only, a clear status for every bad request, and never a traceback."""
import asyncio
import json
import logging

from protocol import record
from protocol.verify import verify
from server.metrics import exposition
from server.published import MAX_VISITORS

from .rawclient import PATIENCE, Raw, SeatPlayer, play_all


async def http(port: int, request: bytes) -> tuple[int, dict, bytes]:
    """One raw request; (status, headers, body) of the answer."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(request)
    await writer.drain()
    answer = await asyncio.wait_for(reader.read(), 10)
    writer.close()
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), headers, body


async def get(port: int, path: str) -> tuple[int, dict, bytes]:
    return await http(port, f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())


async def listed(port: int) -> list[str]:
    """The records published, once the records kept at start are judged."""
    deadline = asyncio.get_running_loop().time() + PATIENCE
    while asyncio.get_running_loop().time() < deadline:
        status, _, body = await get(port, "/records.json")
        if status == 200:
            return json.loads(body)["records"]
        await asyncio.sleep(0.02)
    raise AssertionError("the records were never listed")


async def published(port: int, names: list[str]) -> None:
    """Until the records port lists exactly `names` (a match is published once it is over)."""
    deadline = asyncio.get_running_loop().time() + PATIENCE
    while (now := await listed(port)) != names:
        assert asyncio.get_running_loop().time() < deadline, f"the records port lists {now}, never {names}"
        await asyncio.sleep(0.02)


async def test_bad_requests_get_a_clear_status_and_no_traceback(make_server, caplog):
    server = await make_server(records_port=0)
    port = server.records_port
    caplog.set_level(logging.DEBUG)
    assert await listed(port) == []
    cases = [
        (b"garbage\r\n\r\n", 400),
        (b"GET / HTTP/2\r\n\r\n", 400),
        (b"POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello", 405),
        (b"HEAD / HTTP/1.1\r\n\r\n", 405),
        (b"GET /nothing HTTP/1.1\r\n\r\n", 404),
        (b"GET /records/../server_key.pem HTTP/1.1\r\n\r\n", 404),
        (b"GET /records/abcdef.govrec HTTP/1.1\r\n\r\n", 404),
        (b"GET /\xff\xfe HTTP/1.1\r\n\r\n", 404),
        (b"GET / HTTP/1.1\r\n" + b"X-Padding: " + b"y" * 20_000 + b"\r\n\r\n", 431),
        (b"GET / HTTP/1.1\r\n" + b"X: y\r\n" * 3000 + b"\r\n", 431),
    ]
    for request, status in cases:
        got, headers, body = await http(port, request)
        assert (got, headers["Connection"]) == (status, "close"), request[:40]
        assert body.endswith(b".\n") and int(headers["Content-Length"]) == len(body)
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    status, headers, page = await get(port, "/?refresh=1")
    assert status == 200 and headers["Content-Type"] == "text/html; charset=utf-8"
    assert b"<h1>Standings</h1>" in page and b"No rated match yet." in page


async def test_more_visitors_than_allowed_are_cut_and_the_rest_still_answered(make_server):
    server = await make_server(records_port=0)
    port = server.records_port
    idle = [await asyncio.open_connection("127.0.0.1", port) for _ in range(MAX_VISITORS)]
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET / HTTP/1.1\r\n\r\n")
        try:
            answer = await asyncio.wait_for(reader.read(), 10)
        except ConnectionResetError:
            answer = b""
        assert answer == b""        # cut at once: nothing answered
        writer.close()
    finally:
        for _, w in idle:
            w.close()
    for _ in range(500):        # the idle ones gone, a visitor is answered again
        if server.published.visitors == 0:
            break
        await asyncio.sleep(0.01)
    assert (await get(port, "/"))[0] == 200


async def test_a_finished_match_is_published_public_and_listed_as_not_rated(make_server):
    server = await make_server(records_port=0)
    port = server.records_port
    assert await listed(port) == []
    raw = await Raw.connect(server.url)
    table = await raw.create(2, bots=1)
    await raw.close()
    ana = SeatPlayer(server.url, table, "<b>Ana</b>")
    await ana.sit()
    await play_all([ana])
    name = f"{table}.govrec"
    await published(port, [name])
    status, headers, data = await get(port, f"/records/{name}")
    assert status == 200 and headers["Content-Type"] == "application/octet-stream"
    items = record.loads(data)
    assert [m.kind for m in items] == ["entry"] * len(items)     # the public record: no seat's private messages
    assert [m.payload for m in items] == [m.payload for m in ana.px.entries]
    assert verify(items).ok
    _, _, page = await get(port, "/")
    assert f'<a href="records/{name}">{name}</a>'.encode() in page
    assert b"no: not rated" in page and b"<b>Ana</b>" not in page
    assert (server.data_dir / "records" / name).read_bytes() == data


async def test_a_record_that_cannot_be_written_is_logged_and_counted(make_server, caplog):
    server = await make_server(records_port=0)
    port = server.records_port
    assert await listed(port) == []
    folder = server.data_dir / "records"
    folder.rmdir()
    folder.write_text("a file where the folder was")       # no record can be written in it now
    raw = await Raw.connect(server.url)
    table = await raw.create(2, bots=1)
    await raw.close()
    ana = SeatPlayer(server.url, table, "Ana")
    await ana.sit()
    await play_all([ana])
    for _ in range(500):
        if server.metrics.records_failed:
            break
        await asyncio.sleep(0.02)
    assert "governor_records_failed_total 1" in exposition(server).splitlines()
    [error] = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert error.startswith(f"the record {table}.govrec could not be published: [Errno 20] Not a directory")
    assert await listed(port) == []        # the page and the list as they were
