"""Fit the search's position evaluation: final score as a linear function of a position's features.

    python bench/fit_estimate.py [--games 600] [--write]

Plays games between heuristic players (2, 3 and 4 players, with and without the expansion),
records every player's features (bots/policy.features) at the start of each round, and fits the
final score by ridge least squares, one model per player count and size of the biggest city.
Prints the fit quality (residual standard deviation per bucket); with --write, writes the
weights to bots/fitted.py. The last line is one JSON object.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bots  # noqa: E402
from bots import policy  # noqa: E402
from bots import values as V  # noqa: E402
from games import sanjuan  # noqa: E402
from protocol.fairness import local_streams  # noqa: E402

TOP = 11          # buckets: biggest city 1..TOP buildings
RIDGE = 1.0


def samples(players: int, games: int) -> dict:
    """{(players, biggest city): [(features, final score)]} from heuristic games."""
    out: dict = {}
    for g in range(games):
        seed = f"fit/{players}/{g}"
        rng = local_streams(seed)
        s = sanjuan.setup([f"P{i}" for i in range(players)], {"expansion": g % 2 == 1}, rng)
        movers = [bots.make("heuristic", f"{seed}/{i}") for i in range(players)]
        rows, last_round = [], 0
        while not s.over:
            if s.round != last_round:
                last_round = s.round
                most = policy.most_buildings(s)
                rl = V.rounds_left(most)
                rows += [(min(most, TOP), i, policy.features(s, i, rl)) for i in range(players)]
            seat = sanjuan.to_act(s)[0]
            sanjuan.apply(s, seat, movers[seat].choose(sanjuan.view(s, seat)), rng)
        final = [sc["total"] for sc in sanjuan.result(s)["scores"]]
        for most, i, f in rows:
            out.setdefault((players, most), []).append((f, final[i]))
    return out


def solve(rows: list) -> list[float]:
    """Ridge least squares by the normal equations and Gauss-Jordan elimination."""
    k = len(rows[0][0])
    a = [[RIDGE * (i == j and i < k - 1) for j in range(k)] + [0.0] for i in range(k)]
    for f, y in rows:
        for i in range(k):
            for j in range(k):
                a[i][j] += f[i] * f[j]
            a[i][k] += f[i] * y
    for c in range(k):
        piv = max(range(c, k), key=lambda r: abs(a[r][c]))
        a[c], a[piv] = a[piv], a[c]
        if abs(a[c][c]) < 1e-12:
            continue
        for r in range(k):
            if r != c:
                m = a[r][c] / a[c][c]
                a[r] = [x - m * y for x, y in zip(a[r], a[c])]
    return [a[i][k] / a[i][i] if abs(a[i][i]) > 1e-12 else 0.0 for i in range(k)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=600, help="games per player count")
    ap.add_argument("--write", action="store_true", help="write bots/fitted.py")
    args = ap.parse_args()
    weights, quality = {}, {}
    for players in (2, 3, 4):
        data = samples(players, args.games)
        for most in range(1, TOP + 1):
            rows = data.get((players, most)) or data.get((players, most - 1)) or []
            # Sparse buckets borrow their neighbours' rows.
            if len(rows) < 200:
                rows = rows + data.get((players, most + 1), []) + data.get((players, most - 1), [])
            w = solve(rows)
            err = [y - sum(a * b for a, b in zip(w, f)) for f, y in rows]
            weights[(players, most)] = [round(x, 4) for x in w]
            quality[f"{players}/{most}"] = {"rows": len(rows),
                                            "sd": round(math.sqrt(sum(e * e for e in err) / len(err)), 2)}
            print(f"{players} players, biggest city {most:2d}: {len(rows):5d} positions, "
                  f"residual sd {quality[f'{players}/{most}']['sd']:5.2f}, weights {weights[(players, most)]}")
    if args.write:
        path = Path(__file__).resolve().parent.parent / "bots" / "fitted.py"
        lines = ['"""Weights of bots/policy.estimate, one row per (players, biggest city): written by',
                 f'bench/fit_estimate.py --games {args.games} --write; do not edit by hand.',
                 f'Features: {", ".join(policy.FEATURES)}."""', "", f"TOP = {TOP}", "WEIGHTS = {"]
        lines += [f"    {key!r}: {tuple(w)!r}," for key, w in sorted(weights.items())]
        lines += ["}", ""]
        path.write_text("\n".join(lines), encoding="utf-8")
    print(json.dumps({"bench": "fit_estimate", "games": args.games, "features": list(policy.FEATURES),
                      "quality": quality}))


if __name__ == "__main__":
    main()
