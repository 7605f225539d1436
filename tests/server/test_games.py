"""Whole matches over real sockets: every client checks every signed message and audits the
record at the end (PlayerExchange.report)."""
from __future__ import annotations

import pytest

from .rawclient import Raw, SeatPlayer, play_all


async def seat_players(server, seats: int, bots: int = 0, names=("Ana", "Bo", "Cy", "Di")):
    lobby = await Raw.connect(server.url)
    table = await lobby.create(seats, bots)
    players = [SeatPlayer(server.url, table, names[i], seed=i) for i in range(seats - bots)]
    for p in players:
        await p.sit()
    await lobby.close()
    return table, players


@pytest.mark.parametrize("seats", [2, 3, 4])
async def test_a_full_match_of_headless_clients_verifies(server, seats):
    table, players = await seat_players(server, seats)
    await play_all(players)
    for p in players:
        assert p.report.ok, p.report.text()
        assert p.rejects == [] and p.errors == []
        assert p.view["over"]
    assert players[0].report.names == ["Ana", "Bo", "Cy", "Di"][:seats]
    lobby = await Raw.connect(server.url)
    await lobby.send({"type": "list"})
    listed = {t["id"]: t for t in (await lobby.expect("tables"))["tables"]}
    assert listed[table]["status"] == "over"


async def test_two_people_and_two_computer_seats(server):
    table, players = await seat_players(server, 4, bots=2)
    await play_all(players)
    for p in players:
        assert p.report.ok, p.report.text()
    assert server.tables[table].status == "over"
    assert [s["bot"] for s in players[0].status["seats"]] == [None, None, "random", "random"]
