"""A whole match on a blind table against the same match on an open one: the server's CPU per
move, the record's size and the time to verify it.

    python bench/blind_match.py [--game ID] [--option NAME=VALUE ...] [--players 4] [--humans 4] [--games 3] [--json]

Both are played in this one process, every message through msgpack as on a wire, by uniformly
random legal moves from each seat's own prompt: the blind match through protocol/blind_exchange.py
(`--humans` seats are players' clients, the rest the server's computer seats; the driver is
tests/protocol/blind_match.py), the open one through protocol/exchange.py (protocol.harness).
"server CPU per move" is the process time spent inside the server exchange's methods over the
match, divided by its moves; a blind server also makes its shuffle steps and shares and checks
every client's. "verify" is the whole audit of the server's public log (what `governor verify`
reads), best of 3. "extra round trips per role phase" are those a blind table makes beyond an open
one's (one per person's move), on the network model of tests/protocol/blind_match.py, in each role
phase (a role chosen and played out) of every match: max, mean, the share of phases with more than
one, and how many of those round trips waited for a joint shuffle's steps, an `open` or shares.

Targets (issue 32): the server's CPU per move at most 2× the open table's; a 4-seat record
verified within 1 s; at most one extra round trip per role phase, but for a reshuffle's steps
(one per person) and the cards a phase turns up. Never asserted: speed depends on the machine and
its load.
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import time

from common import add_game_arguments, engine_and_options

from games.choice import pick_uniform
from protocol import record
from protocol.blind_exchange import BlindServerExchange
from protocol.harness import play_match
from protocol.verify import verify
from tests.protocol.blind_match import Match, per_phase


class Timed:
    """Wraps a server exchange's methods and adds up the process time spent in them (a call
    made from inside another is counted once, in the outer one)."""

    def __init__(self, exchange, methods) -> None:
        self.seconds = 0.0
        self.depth = 0
        for name in methods:
            setattr(exchange, name, self._timed(getattr(exchange, name)))

    def _timed(self, method):
        def call(*args, **kwargs):
            self.depth += 1
            start = time.process_time()
            try:
                return method(*args, **kwargs)
            finally:
                self.depth -= 1
                if not self.depth:
                    self.seconds += time.process_time() - start
        return call


def best_verify(items, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        report = verify(items)
        times.append(time.perf_counter() - start)
        assert report.ok, report.text()
    return min(times)


def blind_match(game: str, players: int, humans: int, options: dict, seed: str) -> dict:
    clock: list[Timed] = []

    class Server(BlindServerExchange):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            clock.append(Timed(self, ("receive", "act", "commit", "reveal", "prompt")))

    m = Match(game, players, range(humans), options, server_cls=Server, seed=seed)
    m.play()
    assert m.server.phase == "over"
    moves = sum(1 for e in m.server.log if e.body["t"] == "move")
    data = record.dumps(m.server.log)
    phases = [[w.cause.split()[0] for w in waits] for key, waits in per_phase(m).items() if key not in ("deal", "end")]
    return {"moves": moves, "server_cpu_ms_per_move": 1000 * clock[0].seconds / moves,
            "record_kib": len(data) / 1024, "verify_s": best_verify(record.loads(data)),
            "round_trips": m.round_trips, "phases": phases}


def phase_figures(matches: list[dict]) -> dict:
    """The extra round trips per role phase over every match: max, mean, share over one, and the
    extra round trips by what they waited for."""
    phases = [p for r in matches for p in r.pop("phases")]
    counts = [len(p) for p in phases]
    causes = {c: sum(p.count(c) for p in phases) for c in ("shuffle", "open", "shares")}
    return {"max": max(counts), "mean": round(statistics.mean(counts), 2),
            "over_one": round(sum(n > 1 for n in counts) / len(counts), 3), "phases": len(counts), **causes}


def open_match(game: str, players: int, options: dict, seed: str) -> dict:
    clock: list[Timed] = []
    import protocol.harness as harness
    original = harness.ServerExchange

    class Server(original):  # type: ignore[misc, valid-type]
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            clock.append(Timed(self, ("act", "act_signed", "commit", "reveal")))

    harness.ServerExchange = Server
    try:
        rnd = random.Random(seed)

        def decide(view):
            p = view["prompt"]
            return pick_uniform(p["options"], p["min"], p["max"], rnd)

        server, _ = play_match(game, [f"P{i}" for i in range(players)], options, [decide] * players, seed)
    finally:
        harness.ServerExchange = original
    moves = len(server.moves)
    data = record.dumps(server.log)
    return {"moves": moves, "server_cpu_ms_per_move": 1000 * clock[0].seconds / moves,
            "record_kib": len(data) / 1024, "verify_s": best_verify(record.loads(data))}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_game_arguments(ap)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--humans", type=int, default=4, help="seats played by clients (the rest by the server)")
    ap.add_argument("--games", type=int, default=3)
    ap.add_argument("--json", action="store_true", help="print only the JSON line")
    args = ap.parse_args(argv)
    engine, option_sets = engine_and_options(ap, args)
    game, options = engine.INFO.id, option_sets[-1]
    if not 1 <= args.humans <= args.players:
        ap.error("--humans: between 1 and --players")
    rows = {"blind": [], "open": []}
    for g in range(args.games):
        rows["blind"].append(blind_match(game, args.players, args.humans, options, f"bench-blind/{g}"))
        rows["open"].append(open_match(game, args.players, options, f"bench-blind/{g}"))
    out: dict = {"game": game, "options": options, "players": args.players, "humans": args.humans,
                 "extra_round_trips_per_phase": phase_figures(rows["blind"])}
    for kind, rs in rows.items():
        out[kind] = {k: round(statistics.median(r[k] for r in rs), 3) for k in rs[0]}
    out["server_cpu_ratio"] = round(out["blind"]["server_cpu_ms_per_move"] / out["open"]["server_cpu_ms_per_move"], 2)
    if not args.json:
        for kind in rows:
            r = out[kind]
            print(f"{kind:5}  {r['moves']:5.0f} moves  server CPU {r['server_cpu_ms_per_move']:6.2f} ms/move  "
                  f"record {r['record_kib']:6.1f} KiB  verify {r['verify_s']:5.3f} s"
                  + (f"  {r['round_trips']:.0f} round trips" if "round_trips" in r else ""))
        print(f"server CPU per move, blind / open: {out['server_cpu_ratio']}×")
        f = out["extra_round_trips_per_phase"]
        print(f"extra round trips per role phase ({f['phases']} phases): max {f['max']}, mean {f['mean']}, "
              f"{100 * f['over_one']:.0f}% over one; of them {f['shuffle']} shuffle steps, {f['open']} for an open, "
              f"{f['shares']} for shares")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
