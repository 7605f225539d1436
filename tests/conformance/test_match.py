"""Every registered game through the whole stack: the fair exchange and its audit, and a real
server on 127.0.0.1 with headless clients and a spectator, each a process of its own."""
from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

import bots
from protocol import record
from protocol.harness import play_match
from protocol.verify import verify
from tests.client.live import LiveServer, bot_seat, first_line, governor, outcome
from tests.conformance.kept import KEPT_HERE
from tests.protocol.test_tamper import forge


def selfplay(game, players: int, options: dict, seed: str):
    names = [f"P{i}" for i in range(players)]
    deciders = [bots.make(game.INFO.id, "random", f"{seed}/{i}").choose for i in range(players)]
    return play_match(game.INFO.id, names, options, deciders, seed)


def test_a_selfplay_record_verifies_and_a_tampered_one_fails(game, table):
    players, options = table
    server, seats = selfplay(game, players, options, "conformance")
    assert all(p.report is not None and p.report.ok for p in seats)
    full = server.sent
    report = verify(record.loads(record.dumps(full)))
    assert report.ok and report.scores == [sc["total"] for sc in game.result(server.state)["scores"]]
    # A lying server re-signs the final entry with one move given to another seat; a record cut
    # before its final entry proves nothing either.
    rnd = random.Random("tamper")
    finals = [i for i, m in enumerate(full) if m.kind == "entry" and m.body["t"] == "final"]
    moves = full[finals[0]].body["moves"]
    k = rnd.randrange(len(moves))
    lied = forge(server.signer, full, finals[0],
                 lambda b: b["moves"].__setitem__(k, [(b["moves"][k][0] + 1) % players, b["moves"][k][1]]))
    assert not verify(lied).ok
    cut = [m for m in full if not (m.kind == "entry" and m.body["t"] == "final")]
    assert not verify(cut).ok


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    s = LiveServer(tmp_path_factory.mktemp("server"))
    s.start()
    yield s
    s.close()


def test_a_real_server_plays_a_whole_match_with_a_spectator(game, live, tmp_path):
    """The server in this process, the seats and the spectator in processes of their own (a game
    kept here: the `governor` that registers it)."""
    info = game.INFO
    players = info.min_players
    program = "tests.conformance.kept" if game in KEPT_HERE else "client"
    # Every switch on, and every number option at its largest.
    flags = [f"--{o.name.replace('_', '-')}" for o in info.options if o.type is bool]
    flags += [a for o in info.options if o.type is int for a in (f"--{o.name.replace('_', '-')}", str(max(o.choices)))]
    creator = bot_seat(live.url, tmp_path / "c0", "--create", info.id, "--seats", str(players), "--bots", "0",
                       "--think", "0.005", *flags, program=program)
    table = first_line(creator)
    watcher = governor("watch", live.url, table, "--data-dir", str(tmp_path / "w"), program=program)
    joiners = [bot_seat(live.url, tmp_path / f"c{i}", "--table", table, "--think", "0.005", program=program)
               for i in range(1, players)]
    results = [outcome(p) for p in [creator, *joiners]]
    assert all(r["verified"] and r["finished"] for r in results)
    assert len({r["game_id"] for r in results}) == 1 and len({tuple(r["scores"]) for r in results}) == 1
    out, err = watcher.communicate(timeout=60)
    assert watcher.returncode == 0, err
    saved = Path(re.search(r"Public match record saved: (\S+)", out).group(1))
    report = verify(record.read(saved))
    assert report.ok and report.seats_checked == [] and report.scores == results[0]["scores"]
