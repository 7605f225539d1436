"""The clocks: a connected player who never answers does not hold a table forever."""
from __future__ import annotations

import asyncio

import pytest

from .rawclient import Raw, SeatPlayer, play_all


async def two_seats(server, bo_class=SeatPlayer):
    """A table of two: Ana, who plays, and Bo, of the class under test."""
    lobby = await Raw.connect(server.url)
    table = await lobby.create(2)
    await lobby.close()
    ana, bo = SeatPlayer(server.url, table, "Ana", seed=0), bo_class(server.url, table, "Bo", seed=1)
    for p in (ana, bo):
        await p.sit()
    return table, ana, bo


class Timed(SeatPlayer):
    """Counts the statuses that say this seat ran out of time."""

    def __init__(self, *a, **kw) -> None:
        super().__init__(*a, **kw)
        self.ran_out = 0

    def handle(self, msg: dict) -> None:
        super().handle(msg)
        if msg["type"] == "status" and msg["seats"][self.seat]["out_of_time"]:
            self.ran_out += 1


async def test_a_question_left_unanswered_is_answered_by_a_computer(make_server):
    server = await make_server(turn_time=0.3)
    table, ana, bo = await two_seats(server, Timed)
    bo.answering = False
    await asyncio.gather(ana.play(until=lambda p: bo.ran_out >= 2), bo.play(until=lambda p: p.ran_out >= 2))
    assert bo.status["turn_time"] == 0.3
    seat = server.tables[table].seats[bo.seat]
    assert seat.conn is not None and not seat.standin and seat.bot is None   # still Bo's seat
    bo.answering = True                    # Bo is back at the keyboard and plays on
    await play_all([ana, bo])
    assert ana.report.ok and bo.report.ok, (ana.report.text(), bo.report.text())
    assert bo.acks > 0 and ana.rejects == []
    # Bo's first answer may have been decided on the question the computer had just answered.
    assert all(r["code"] == "stale" for r in bo.rejects) and len(bo.rejects) <= 1
    assert not any(s["out_of_time"] for s in bo.status["seats"])


class Withholding(SeatPlayer):
    """Connected, but never sends its commitment (or its seed) for the fair exchange."""
    withholds = "commit"    # or "reveal"

    def handle(self, msg: dict) -> None:
        super().handle(msg)
        if self._reply is not None and self._reply["type"] == self.withholds:
            self._reply = None


@pytest.mark.parametrize("step, says", [("commit", "did not commit to their seed within 0.3 s"),
                                        ("reveal", "did not reveal their seed within 0.3 s")])
async def test_a_seed_held_back_cancels_the_match(make_server, step, says):
    server = await make_server(turn_time=0.3)
    table, ana, bo = await two_seats(server, type("Withholding", (Withholding,), {"withholds": step}))
    await play_all([ana, bo])
    ex = server.tables[table].core.exchange
    assert ex.phase == "cancelled" and ex.log[-1].body["reason"] == "Bo " + says
    assert ana.report.ok and bo.report.ok       # a cancelled match verifies: every seed revealed
    assert server.tables[table].status == "cancelled"


async def test_no_clock_when_turn_time_is_zero(make_server):
    server = await make_server(turn_time=0)
    table, ana, bo = await two_seats(server)
    bo.answering = False
    await asyncio.gather(ana.play(until=lambda p: p.view is not None and bo.seat in p.view["to_act"]),
                         bo.play(until=lambda p: p.view is not None and p.seat in p.view["to_act"]))
    seq = server.tables[table].core.seq
    await asyncio.sleep(0.6)
    assert server.tables[table].core.seq == seq         # nobody answered for Bo
    assert "turn_time" not in bo.status
    assert all(s.clock is None for s in server.tables[table].seats)


async def test_the_commit_clock_leaves_a_player_away_to_the_grace_period(make_server):
    """Bo left before committing but is within his grace period: the clock does not cancel the
    match in his name (the grace period decides: his seed, or his return)."""
    server = await make_server(turn_time=0.3, grace=30)
    table, ana, bo = await two_seats(server)
    await bo.drop()
    await ana.play(until=lambda p: p.px.entries and server.tables[table].core.exchange.commits[ana.seat] is not None)
    await asyncio.sleep(0.8)
    assert server.tables[table].core.exchange.phase == "commit"      # still waiting for Bo, not cancelled
    await bo.resume()
    await play_all([ana, bo])
    assert ana.report.ok and bo.report.ok and server.tables[table].status == "over"
