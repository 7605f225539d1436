"""The move back over a real server: accepted like any move, signed into the record, and replayed
by every player's audit (protocol.verify, as `governor verify` runs it)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from client.replay import frames
from games.choice import BACK
from protocol import record

from .rawclient import Raw, SeatPlayer, play_all

BACKS = 4   # moves back each player sends, wherever it is offered first


class BackingPlayer(SeatPlayer):
    """A random player that goes back whenever a question offers it, until it has done so BACKS
    times, and notes the kinds of question it went back from."""

    def __init__(self, *a, **kw) -> None:
        super().__init__(*a, **kw)
        self.went_back: list[str] = []

    async def maybe_act(self) -> None:
        v = self.view
        if (self.answering and self.pending is None and self._reply is None and not self._resync
                and v is not None and v.get("prompt") and self.seat in v["to_act"]
                and v["prompt"]["back"] and len(self.went_back) < BACKS):
            self.went_back.append(v["prompt"]["kind"])
            self.pending = self.act_message(self.next_id, self.seq, [BACK])
            self.next_id += 1
            await self.raw.send(self.pending)
            return
        await super().maybe_act()


@pytest.mark.parametrize("game", ["sanjuan", "puertorico"])
async def test_moves_back_are_accepted_signed_and_verified(server, game, tmp_path):
    lobby = await Raw.connect(server.url)
    table = await lobby.create(3, 0, game=game)
    await lobby.close()
    players = [BackingPlayer(server.url, table, name, seed=i) for i, name in enumerate(["Ana", "Bo", "Cy"])]
    for p in players:
        await p.sit()
    await play_all(players, timeout=60)
    backs = sum(len(p.went_back) for p in players)
    assert backs > 0, "random play reached a question that offers back"
    for p in players:
        assert p.report.ok, p.report.text()
        assert p.rejects == [] and p.errors == [] and p.view["over"]
    moves = players[0].px.entries[-1].body["moves"]
    assert sum(1 for _, action in moves if action == [BACK]) == backs
    path = record.write(tmp_path / "match.govrec", players[0].px.record)
    verify = subprocess.run([sys.executable, "-m", "client", "verify", str(path)], capture_output=True, text=True,
                            cwd=Path(__file__).resolve().parents[2], timeout=60)
    assert verify.returncode == 0, verify.stdout + verify.stderr
    # `governor replay` shows each move back by its title.
    shown, _ = frames(players[0].px.record, 0)
    assert sum("goes back to the start of a decision" in f.title for f in shown) == backs
