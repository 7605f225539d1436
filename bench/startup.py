"""Start-up time of the commands that should start at once: `governor --version`, `records` and
`verify`. Each is started as a new process (the interpreter, the imports, the command's work)
several times; the table gives the fastest and the median run. The last line is one JSON object.

    python bench/startup.py [--runs N] [--governor PATH]

`records` lists an empty data folder and `verify` reads a record of a 2-player San Juan match
made by `governor selfplay` in a scratch folder, so what is measured is the start-up and the one
audit, not the size of someone's folder.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def timed(argv: list[str], env: dict) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, env=env)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=10, help="runs of each command (default 10)")
    ap.add_argument("--governor", default=str(Path(sys.executable).parent / "governor"),
                    help="the governor program to measure (default: the one beside this python)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        env = dict(os.environ, GOVERNOR_DATA=scratch)
        subprocess.run([args.governor, "selfplay", "--players", "2", "--games", "1", "--seed", "startup",
                        "--record-dir", scratch], check=True, stdout=subprocess.DEVNULL, env=env)
        commands = {"--version": [args.governor, "--version"],
                    "records": [args.governor, "records"],
                    "verify": [args.governor, "verify", str(Path(scratch) / "game-0.govrec")]}
        results = {}
        print(f"{'command':<12}{'min s':>8}{'median s':>10}   ({args.runs} runs each)")
        for name, command in commands.items():
            times = [timed(command, env) for _ in range(args.runs)]
            results[name] = {"min": round(min(times), 4), "median": round(statistics.median(times), 4)}
            print(f"{name:<12}{min(times):>8.3f}{statistics.median(times):>10.3f}")
    print(json.dumps({"runs": args.runs, "seconds": results}, sort_keys=True))


if __name__ == "__main__":
    main()
