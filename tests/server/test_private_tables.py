"""Private tables (a `governor play` alone against computer players) and a host's farewell, on a
real server over real sockets."""
from __future__ import annotations

from protocol import wire

from .rawclient import Raw, SeatPlayer, play_all


async def listed(server) -> list[str]:
    lobby = await Raw.connect(server.url)
    await lobby.send({"type": "list"})
    tables = [t["id"] for t in (await lobby.expect("tables"))["tables"]]
    await lobby.close()
    return tables


async def create(server, private: bool) -> str:
    lobby = await Raw.connect(server.url)
    await lobby.send({"type": "create", "game": "sanjuan", "seats": 2, "bots": 1, "bot": "random",
                      "options": {}, "private": private})
    table = (await lobby.expect("created"))["table"]
    await lobby.close()
    return table


async def test_a_private_table_is_never_listed_open_finished_or_after_a_restart(make_server, tmp_path):
    server = await make_server(data_dir=tmp_path / "data", finished_cache=0)
    public, private = await create(server, False), await create(server, True)
    assert await listed(server) == [public]
    # Still a table like any other by its id: sat at, played, watched.
    players = [SeatPlayer(server.url, t, "Ana") for t in (public, private)]
    for p in players:
        await p.sit()
    await play_all(players)
    assert all(p.report.ok for p in players)
    watcher = await Raw.connect(server.url)
    await watcher.send({"type": "watch", "table": private})
    assert (await watcher.expect("entry", skip=("status", "snapshot")))["table"] == private
    await watcher.close()
    assert await listed(server) == [public]       # finished
    unfinished = await create(server, True)
    await server.stop()
    again = await make_server(data_dir=tmp_path / "data")     # read back from the database
    assert unfinished in again.tables and await listed(again) == [public]


async def test_a_create_whose_private_is_not_a_bool_is_refused_as_a_bad_frame(server):
    raw = await Raw.connect(server.url)
    await raw.send({"type": "create", "game": "sanjuan", "seats": 2, "bots": 1, "private": "yes"})
    code, reason = await raw.closed()
    assert code == wire.CLOSE_BAD_FRAME and "private" in reason


async def test_a_farewell_reaches_everyone_at_a_table_before_the_server_closes(server):
    table = await create(server, False)
    ana = SeatPlayer(server.url, table, "Ana")
    await ana.sit()
    watcher = await Raw.connect(server.url)
    await watcher.send({"type": "watch", "table": table})
    await watcher.expect("entry")        # it watches: the match began when Ana sat down
    await server.stop(farewell=("host_left", "The host left; back soon."))
    for raw in (ana.raw, watcher):
        said = await raw.expect("notice", skip=("status", "entry", "private", "snapshot", "delta", "clock"))
        assert (said["code"], said["message"]) == ("host_left", "The host left; back soon.")
        code, reason = await raw.closed()
        assert code == wire.CLOSE_SHUTDOWN and reason == "The host left; back soon."
