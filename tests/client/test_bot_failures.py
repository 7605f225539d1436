"""A computer player whose decisions fail is never silent: the player reads each failure as it
happens and again in the end-of-game summary."""
from __future__ import annotations

import io

import bots
from client.lobby import sit
from client.link import open_link
from client.terminal import AutoAnswers, Terminal, play_seat
from server import deciders

from .live import LiveServer


async def test_a_failing_bot_is_named_at_the_table_and_at_the_end(tmp_path, monkeypatch):
    def broken_bot(level, seed, view, seconds=None):
        raise KeyError("Silver smelter")

    monkeypatch.setattr(deciders, "decide", broken_bot)    # the server thinks in threads here
    server = LiveServer(tmp_path / "server", turn_time=0)
    server.start()
    try:
        link = await open_link(server.url, quiet=True, rate=0)
        reply = await link.request({"type": "create", "game": "sanjuan", "seats": 2, "bots": 1, "options": {},
                                    "bot": "heuristic"}, ("created",))
        session = await sit(link, reply["table"], "Ana", tmp_path / "client")
        out = io.StringIO()
        player = Terminal(link.url, auto=AutoAnswers(bots.make("sanjuan", "random", "t")), colour=False, out=out)
        assert await play_seat(player, session=session, link=link, intro=False) == 0
    finally:
        server.close()
    text = out.getvalue()
    line = "Bot 2 (heuristic) failed: it raised KeyError; a random move is played for it."
    during, _, summary = text.partition("Computer players failed")
    assert f"[{line}]" in during                         # told as it happened
    n = during.count(f"[{line}]")
    assert summary.startswith(f" {n} times") and f"  {line} ({n} times)" in summary
    assert "Match record saved" in summary and "KeyError('Silver" not in text and "'Silver smelter'" not in text
