"""Standings cost: the time `governor ratings` takes over N rated match records.

    python bench/ratings.py [--records N] [--seed S] [--folder DIR] [--json]

Makes N rated 2-player matches (four in five San Juan) among a pool of players, each with its own
key, played by the games' own computer players through the server's side of the exchange (every
commitment, seed and move signed by its player's key as a client signs it), and writes each match's public record to DIR (a fresh
temporary folder by default). Then runs `governor ratings DIR` and prints how long it took, and the
last line is one JSON object. `rated_records` is what the tests make their records with: the same
seed makes the same records, byte for byte.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import random
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

import bots
import games
from protocol import record
from protocol.codec import pack
from protocol.exchange import ServerExchange
from protocol.fairness import player_commit
from protocol.signing import (SIG_COMMIT, SIG_MOVE, SIG_REVEAL, Signer, commit_payload, move_payload,
                              reveal_payload)

POOL = ("Ana", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal", "Ivy", "Jo")
GAMES = {"sanjuan": 4, "puertorico": 1}   # how often each is drawn: a Puerto Rico match is twice as long
START = 1_780_000_000        # the first match's start, unix seconds; each next one ten minutes later
PLAYERS = 2                  # at most, at a table: the fewer, the shorter the match (and its audit)


def _derived(seed: str, label: str) -> bytes:
    return hashlib.sha256(f"governor-bench-ratings/{label}/{seed}".encode()).digest()


def _signer(seed: str, label: str) -> Signer:
    return Signer(Ed25519PrivateKey.from_private_bytes(_derived(seed, label)))


def rated_match(seed: str, i: int, away: tuple[int, ...] = ()) -> bytes:
    """The public record of rated match i of the pool: its game, players and moves drawn from the
    seed. The seats `away` never come: the server makes their seeds and their moves."""
    rnd = random.Random(f"{seed}/{i}")
    game = rnd.choices(list(GAMES), weights=list(GAMES.values()))[0]
    engine = games.get(game)
    info = engine.INFO
    n = rnd.choice([p for p in info.players if p <= PLAYERS])
    who = rnd.sample(range(len(POOL)), n)
    keys = [_signer(seed, f"player/{k}") for k in who]
    seats = [(f"{i}/{k}", POOL[k]) for k in who]
    match = f"{seed}/{i}"
    ex = ServerExchange(game, info.check_options({}), seats, _signer(seed, "server"),
                        game_id=_derived(match, "game-id")[:16], server_seed=_derived(match, "server-seed"),
                        players=[k.public_key for k in keys], rated=True, started=START + 600 * i)
    header = ex.header.hash
    own = [_derived(match, f"seed/{s}") for s in range(n)]
    for s, (pid, _) in enumerate(seats):
        commitment = player_commit(ex.game_id, pid, own[s])
        sig = None if s in away else keys[s].sign(SIG_COMMIT, commit_payload(header, s, commitment))
        ex.commit(s, commitment, sig)
    for s in range(n):
        ex.reveal(s, own[s], None if s in away else keys[s].sign(SIG_REVEAL, reveal_payload(header, s, own[s])))
    deciders = [bots.make(game, "heuristic", f"{match}/{s}") for s in range(n)]
    while ex.phase == "play":
        s = engine.to_act(ex.state)[0]
        action = deciders[s].choose(engine.view(ex.state, s))
        if s in away:
            ex.act(s, action)
            continue
        move = pack(list(action))
        seen = len(ex.log) - 1
        ex.act_signed(s, seen, move, keys[s].sign(SIG_MOVE, move_payload(header, s, ex.log[seen].hash, move)))
    return record.dumps(ex.log)


def _write(job: tuple[str, int, Path]) -> None:
    seed, i, folder = job
    (folder / f"match-{i:04}.govrec").write_bytes(rated_match(seed, i))


def rated_records(folder: Path, count: int, seed: str = "bench", first: int = 0) -> list[Path]:
    """Matches first .. first + count - 1 of the seed's pool, written to the folder, on every core."""
    folder.mkdir(parents=True, exist_ok=True)
    with ProcessPoolExecutor() as pool:
        list(pool.map(_write, [(seed, i, folder) for i in range(first, first + count)]))
    return sorted(folder.glob("match-*.govrec"))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=500)
    ap.add_argument("--seed", default="bench")
    ap.add_argument("--folder", type=Path, default=None)
    ap.add_argument("--json", action="store_true", help="only the JSON line")
    args = ap.parse_args(argv)
    folder = args.folder or Path(tempfile.mkdtemp(prefix="governor-ratings-"))
    start = time.perf_counter()
    rated_records(folder, args.records, args.seed)
    made = time.perf_counter() - start
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "client", "ratings", str(folder)], capture_output=True, text=True)
    rated = time.perf_counter() - start
    if not args.json:
        print(out.stdout)
        print(f"{args.records} records made in {made:.1f} s; governor ratings took {rated:.2f} s "
              f"({1000 * rated / args.records:.1f} ms a record)")
    print(json.dumps({"records": args.records, "made_s": round(made, 2), "ratings_s": round(rated, 2),
                      "exit": out.returncode}))


if __name__ == "__main__":
    main()
