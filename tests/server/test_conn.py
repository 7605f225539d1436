"""A connection's outbox over a real socket (server/conn.py): what a round of the event loop
pushes is written at once while the socket takes it, the writer task sends it when the client
falls behind, and the two never reorder, lose or repeat a frame."""
from __future__ import annotations

import asyncio
import socket

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.asyncio.client import connect
from websockets.asyncio.server import serve
from websockets.protocol import State
from websockets.server import ServerProtocol

from server.conn import Conn, framed

FRAME = 1000      # bytes of each frame: a few fill the small buffers below


def numbered(n: int) -> bytes:
    return n.to_bytes(4, "big") * (FRAME // 4)


async def served_conn(outbox: int = 100_000):
    """A server that wraps its one connection in a Conn, and a client to it whose socket takes
    little at a time (a tiny receive buffer; websockets reads on only when its one message is
    taken). Returns (conn, client, server, the handler's end)."""
    accepted: asyncio.Future = asyncio.get_running_loop().create_future()
    end = asyncio.Event()

    async def handler(ws):
        ws.transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
        ws.transport.set_write_buffer_limits(high=4096)
        accepted.set_result(Conn(ws, outbox, rate=100.0, burst=100))
        await end.wait()

    server = await serve(handler, "127.0.0.1", 0, compression=None)
    port = server.sockets[0].getsockname()[1]
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", port))
    sock.setblocking(False)
    client = await connect(f"ws://127.0.0.1:{port}", sock=sock, compression=None, max_queue=1)
    return await accepted, client, server, end


async def test_a_round_of_pushes_is_written_in_that_round_without_a_task():
    conn, client, server, end = await served_conn()
    try:
        for n in range(3):
            conn.push(numbered(n))
        assert conn.sent == 0                  # nothing is written while the round pushes
        await asyncio.sleep(0)                 # the round ends
        assert conn.sent == 3 and not conn.outbox and conn._writer is None
        assert [await client.recv() for _ in range(3)] == [numbered(n) for n in range(3)]
    finally:
        end.set()
        await client.close()
        server.close()
        await server.wait_closed()


async def test_written_now_the_frames_go_out_before_the_round_ends_and_only_once():
    """A table that has answered an input writes its connections' frames at once (write_now),
    before the loop turns to other tables' inputs; the round's own write then finds nothing
    left, and what is pushed after goes out at the round's end as before."""
    conn, client, server, end = await served_conn()
    try:
        conn.push(numbered(0))
        conn.push(numbered(1))
        conn.write_now()
        assert conn.sent == 2 and not conn.outbox      # written within the round
        conn.write_now()                              # nothing pushed since: nothing written
        conn.push(numbered(2))
        assert conn.sent == 2
        await asyncio.sleep(0)                        # the round ends
        assert conn.sent == 3 and conn._writer is None
        assert [await client.recv() for _ in range(3)] == [numbered(n) for n in range(3)]
        with pytest.raises(asyncio.TimeoutError):     # and no frame twice
            await asyncio.wait_for(client.recv(), 0.2)
    finally:
        end.set()
        await client.close()
        server.close()
        await server.wait_closed()


async def test_a_client_that_falls_behind_gets_every_frame_in_order_then_the_close():
    """The server pushes a few frames a round while the client reads slowly: the socket fills,
    the writer task takes over, the socket drains, the direct writes come back, again and again.
    Every frame arrives once and in order, and those queued when the connection is closed go out
    before the close."""
    conn, client, server, end = await served_conn()
    got: list[bytes] = []

    reads = asyncio.Event()

    async def read():
        while True:
            await reads.wait()
            got.append(await client.recv())

    reading = asyncio.create_task(read())
    rounds = {"direct": 0, "writer": 0}     # who had the outbox at each round's start
    try:
        n = 0
        for i in range(200):
            rounds["writer" if conn._writer is not None else "direct"] += 1
            for _ in range(3):
                conn.push(numbered(n))
                n += 1
            if i % 40 == 20:        # the client stops reading for a while, then reads on
                reads.clear()
            elif i % 40 == 0:
                reads.set()
            await asyncio.sleep(0.002)
        assert rounds["direct"] > 10 and rounds["writer"] > 10, rounds   # both ways, many times over
        conn.close(4000, "done")
        reads.set()
        with pytest.raises(ConnectionClosed):
            await asyncio.wait_for(reading, 30)
        assert got == [numbered(i) for i in range(n)]
        assert client.close_code == 4000
    finally:
        end.set()
        reading.cancel()
        await client.close()
        server.close()
        await server.wait_closed()


async def test_a_backlog_goes_out_whole_before_what_was_pushed_after_it():
    conn, client, server, end = await served_conn()
    try:
        conn.push(numbered(0))
        conn.push_backlog([numbered(n) for n in range(1, 41)])    # more than one write takes
        conn.push(numbered(41))
        frames = [await asyncio.wait_for(client.recv(), 10) for _ in range(42)]
        assert frames == [numbered(n) for n in range(42)]
    finally:
        end.set()
        await client.close()
        server.close()
        await server.wait_closed()


def test_frames_are_the_bytes_websockets_makes():
    """The outbox frames its messages itself: the same bytes as websockets' own framing, at every
    length where the length's encoding changes."""
    protocol = ServerProtocol()
    protocol.state = State.OPEN
    messages = [bytes([n % 251]) * n for n in (0, 1, 125, 126, 127, 65535, 65536, 70000)]
    for message in messages:
        protocol.send_binary(message)
    assert framed(messages) == b"".join(protocol.data_to_send())


async def test_the_server_takes_no_extension_a_client_offers(server):
    """`framed` writes frames with no extension's bits, and a compressed frame's length would tell
    what it carries (docs/protocol.md): a client that offers compression gets none."""
    async with connect(server.url, compression="deflate") as client:
        assert client.protocol.extensions == []
        assert "Sec-WebSocket-Extensions" not in client.response.headers


def test_a_drained_bucket_says_how_long_until_it_holds_a_message_again():
    """The client's pace (client/link.py) sleeps this long between tries: never 0 while empty,
    so it does not spin, and 0 once a message's worth is there."""
    from protocol.bucket import TokenBucket
    bucket = TokenBucket(rate=4, burst=2)
    assert bucket.wait() == 0 and bucket.take() and bucket.take()
    bucket.tokens = 0.0
    assert bucket.wait() == 0.25 and bucket.wait(2) == 0.5 and bucket.wait(9) == 0.5   # at most the burst
    bucket.tokens = 1.0
    assert bucket.wait() == 0
