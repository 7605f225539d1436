"""Whole matches over real sockets: every client checks every signed message and audits the
record at the end (PlayerExchange.report)."""
from __future__ import annotations

import asyncio
import time

import pytest

from server import deciders
from server.table import Table

from .rawclient import Raw, SeatPlayer, play_all

BOT_ANSWER = 0.3      # seconds from a searching bot's question to its move


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


class TimedPlayer(SeatPlayer):
    """Notes when each message came, and who was to act after it."""

    def __init__(self, *a, **kw) -> None:
        super().__init__(*a, **kw)
        self.log: list[tuple[float, str, list | None]] = []

    def handle(self, msg: dict) -> None:
        super().handle(msg)
        self.log.append((time.monotonic(), msg["type"], list(self.view["to_act"]) if self.view else None))


def waits_for(log, seat: int) -> list[tuple[float, float]]:
    """The spans in which only `seat` was to act, by a player's message log (closed spans only)."""
    spans, start = [], None
    for t, _, to_act in log:
        if to_act == [seat] and start is None:
            start = t
        elif to_act != [seat] and start is not None:
            spans.append((start, t))
            start = None
    return spans


async def test_a_thinking_bot_never_delays_another_table(make_server):
    """A searching bot thinks one second per decision in a worker process; meanwhile another table
    goes on playing: its commands are answered while the bot is still thinking."""
    server = await make_server(bot_processes=True, bot_workers=1, bot_seconds=1.0)
    lobby = await Raw.connect(server.url)
    slow = await lobby.create(2, 1, bot="ismcts")
    fast = await lobby.create(2)
    await lobby.close()
    ana = TimedPlayer(server.url, slow, "Ana", seed=0)
    await ana.sit()
    def thinking(p):
        return sum(b - a for a, b in waits_for(p.log, 1))
    await ana.play(until=lambda p: p.view is not None and p.view["to_act"] == [1], timeout=60)

    bo, cy = TimedPlayer(server.url, fast, "Bo", seed=1), TimedPlayer(server.url, fast, "Cy", seed=2)
    await bo.sit()
    await cy.sit()
    await asyncio.gather(ana.play(until=lambda p: thinking(p) >= 2.0, timeout=60),
                         bo.play(until=lambda p: ana.done or thinking(ana) >= 2.0, timeout=60),
                         cy.play(until=lambda p: ana.done or thinking(ana) >= 2.0, timeout=60))
    spans = waits_for(ana.log, 1)
    acks = [t for p in (bo, cy) for t, kind, _ in p.log if kind == "ack"]
    during = [t for t in acks if any(a < t < b for a, b in spans)]
    # Blocking the event loop while searching would leave no room for these: at most the one
    # command each player had in flight as a search began could be acknowledged inside its span.
    # A count, not a pace: two seconds of thinking hold far more than this on a busy machine.
    assert len(during) >= 2 * len(spans) + 4, (len(during), len(acks), spans)
    assert bo.rejects == [] and cy.rejects == [] and ana.rejects == []


async def test_a_searching_bot_takes_as_long_when_it_searches_as_when_it_does_not(make_server, monkeypatch):
    """A searching bot's answer time tells nothing of what it holds: its move goes out
    `bot_answer` after its question, however long its search took. Its decisions here stand in
    for a search that runs only on some questions (those of more than three options: 80 ms) and
    not on the others (at once), as a real one runs only where there is a choice. What is
    checked is when the table sends each move on the event loop's clock, which the test holds
    still while a decision is handled, so that no sum depends on how busy the machine is."""
    moves = []       # (searched, asked, decided, when the move goes out: None if at once)

    def searches(view: dict) -> bool:
        return len(view["prompt"]["options"]) > 3

    def timed(level, seed, view, seconds=None):
        p = view["prompt"]
        if searches(view):
            time.sleep(0.08)
        return p["options"][:max(1, p["min"])][:p["max"]]

    real = Table._bot_decided

    def noted(table, ask, decision, asked):
        loop = asyncio.get_running_loop()
        decided = loop.time()
        before = set(table.held_moves)
        loop.time = lambda: decided         # the loop's clock, held still while the move is handled
        try:
            real(table, ask, decision, asked)
        finally:
            del loop.time
        [held] = table.held_moves - before or [None]
        moves.append((searches(ask.view), asked, decided, held.when() if held else None))

    monkeypatch.setattr(deciders, "decide", timed)
    monkeypatch.setattr(Table, "_bot_decided", noted)
    server = await make_server(bot_answer=BOT_ANSWER)
    lobby = await Raw.connect(server.url)
    table = await lobby.create(2, 1, bot="ismcts")
    await lobby.close()
    ana = SeatPlayer(server.url, table, "Ana", seed=0)
    await ana.sit()
    await ana.play(until=lambda p: sum(k for k, *_ in moves) >= 8 and sum(not k for k, *_ in moves) >= 8, timeout=90)
    for searched, asked, decided, out in moves:
        if searched:
            assert decided - asked >= 0.08          # the search took its time ...
        if out is None:     # decided after its time had come (a busy machine): sent at once
            assert decided >= asked + BOT_ANSWER, moves
        else:               # ... and the move is held to the same instant after its question either way
            assert out == pytest.approx(asked + BOT_ANSWER, abs=1e-9), moves
