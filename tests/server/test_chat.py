"""Chat at a table: seated players write, everyone at the table reads; the server strips control
characters, refuses empty and over-long lines and a too-fast sender, and keeps chat out of the
signed record."""
from __future__ import annotations

from protocol import wire

from .rawclient import Raw, SeatPlayer, play_all
from .test_games import seat_players


async def next_of(who, kind: str) -> dict:
    """The next message of `kind`, passing over everything else (views, entries, statuses); a
    SeatPlayer handles what it passes over, so that it can play on afterwards."""
    raw = who.raw if isinstance(who, SeatPlayer) else who
    while True:
        msg = await raw.recv()
        if isinstance(who, SeatPlayer):
            who.handle(msg)
        if msg["type"] == kind:
            return msg


async def test_a_line_reaches_every_seat_and_spectator(server):
    table, (ana, bo) = await seat_players(server, 2)
    watcher = await Raw.connect(server.url)
    await watcher.send({"type": "watch", "table": table})
    await watcher.expect("status", skip=("entry",))   # watching now
    await ana.raw.send({"type": "chat", "text": "  hello\x1b[2J all\n\x07 "})
    for raw in (ana.raw, bo.raw, watcher):
        msg = await next_of(raw, "chat")
        assert msg == {"type": "chat", "table": table, "seat": ana.seat, "name": "Ana", "text": "hello[2J all"}


async def test_refusals_change_nothing_and_keep_the_connection(make_server):
    server = await make_server(chat_rate=0.01, chat_burst=2)
    table, (ana, bo) = await seat_players(server, 2)
    for text in ("", " \n\t\x1b ", "x" * (wire.MAX_CHAT + 1)):
        await ana.raw.send({"type": "chat", "text": text})
        error = await next_of(ana, "error")
        assert error["code"] == "bad_chat", error
    await ana.raw.send({"type": "chat", "text": "x" * wire.MAX_CHAT + "\n"})   # exactly the limit: taken
    assert len((await next_of(ana, "chat"))["text"]) == wire.MAX_CHAT
    await ana.raw.send({"type": "chat", "text": "two"})
    assert (await next_of(ana, "chat"))["text"] == "two"
    await ana.raw.send({"type": "chat", "text": "three"})
    error = await next_of(ana, "error")
    assert error["code"] == "slow_down" and "chat" in error["message"] and "burst of 2" in error["message"]
    # still connected, still playing: the match finishes and verifies
    await play_all([ana, bo])
    assert ana.report.ok and bo.report.ok


async def test_only_a_seated_player_may_chat(server):
    table, players = await seat_players(server, 2)
    lobby = await Raw.connect(server.url)
    await lobby.send({"type": "chat", "text": "hi"})
    assert (await lobby.expect("error"))["code"] == "not_seated"
    await lobby.send({"type": "watch", "table": table})
    await lobby.send({"type": "chat", "text": "hi"})
    assert (await next_of(lobby, "error"))["code"] == "not_seated"
    # a seat at another table chats there, not here
    other = await Raw.connect(server.url)
    tid = await other.create(2, 1)
    cy = SeatPlayer(server.url, tid, "Cy")
    await cy.sit()
    await cy.raw.send({"type": "chat", "text": "wrong room"})
    msg = await next_of(cy.raw, "chat")
    assert msg["table"] == tid
    await players[0].raw.send({"type": "chat", "text": "right room"})
    assert (await next_of(players[1].raw, "chat"))["text"] == "right room"


async def test_chat_is_not_in_the_record(server):
    table, (ana, bo) = await seat_players(server, 2)
    await ana.raw.send({"type": "chat", "text": "secret-chat-marker"})
    await play_all([ana, bo])
    assert [c["text"] for c in bo.chats] == ["secret-chat-marker"]
    assert ana.report.ok and bo.report.ok, ana.report.text()
    for p in (ana, bo):
        assert all(b"secret-chat-marker" not in m.payload for m in p.px.record)
    rows = await server.store.finished_table(table)
    assert rows is not None
    for path in server.data_dir.rglob("*"):
        if path.is_file():
            assert b"secret-chat-marker" not in path.read_bytes(), path


async def test_the_clients_seat_runner_sends_chat_and_shows_what_comes_back(server, tmp_path):
    """The client's side over a real socket: a SeatRunner's chat goes out beside the game, comes
    back to it and to the other seat, and the seat plays on."""
    import asyncio

    from client.link import open_link
    from client.lobby import sit
    from client.seat import Leave, Player, SeatRunner

    lobby = await Raw.connect(server.url)
    table = await lobby.create(2)
    link = await open_link(server.url, quiet=True, rate=0)
    session = await sit(link, table, "Ana", tmp_path / "client")
    bo = SeatPlayer(server.url, table, "Bo", seed=1)
    await bo.sit()

    class Chatty(Player):
        def __init__(self):
            self.send, self.heard = None, []

        def bind_chat(self, send):
            if send is not None and self.send is None:
                assert send("hello from Ana")
            self.send = send

        def update(self, table, happened):
            self.heard += [data for kind, data in happened if kind == "chat"]
            if self.heard:
                raise Leave

        async def decide(self, table):
            await asyncio.Event().wait()

    player = Chatty()
    runner = asyncio.ensure_future(SeatRunner(session, player, link=link).run())
    msg = await next_of(bo, "chat")
    assert (msg["seat"], msg["name"], msg["text"]) == (session.seat, "Ana", "hello from Ana")
    try:
        await asyncio.wait_for(runner, 10)
    except Leave:
        pass
    assert player.heard == [{"seat": session.seat, "name": "Ana", "text": "hello from Ana"}]
