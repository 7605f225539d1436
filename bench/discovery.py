"""LAN discovery: what announcing costs a server, and how soon `governor join` hears it.

    python bench/discovery.py [--host 0.0.0.0] [--runs 5]

Starts a real server (server.app.Server) on --host with and without its announcement and times
start() and stop(); then, with the server announced, a fresh listener like `governor join`'s
(client/discover.py) and the time until it has heard the server and resolved its address, which
is what the 2 s default of `join --listen` must cover. The last line is JSON. The listener runs in this process, so it
hears the server through the machine's own multicast loopback. It announces on the real network:
run it where that is fine (or inside a network namespace).
"""
from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from zeroconf import IPVersion, ServiceStateChange
from zeroconf.asyncio import AsyncServiceBrowser, AsyncZeroconf

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # the project, before bench/server.py

from client.discover import RESOLVE_MS  # noqa: E402
from server.announce import SERVICE  # noqa: E402
from server.app import Server  # noqa: E402


async def start_stop(host: str, announce: str | None) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as folder:
        server = Server(folder, host, 0, announce=announce, bot_processes=False)
        t0 = time.perf_counter()
        await server.start()
        t1 = time.perf_counter()
        if announce is not None and server.announcement is None:
            raise SystemExit(f"not announced: {server.not_announced}")
        await server.stop()
        return t1 - t0, time.perf_counter() - t1


async def heard_after(name: str) -> float:
    """Seconds until a fresh listener has heard the service `name` and resolved it."""
    zeroconf = AsyncZeroconf(ip_version=IPVersion.V4Only)
    heard = asyncio.Event()
    t0 = time.perf_counter()

    def on_change(zeroconf, service_type, name, state_change) -> None:
        if state_change is ServiceStateChange.Added and name == wanted:
            heard.set()

    wanted = f"{name}.{SERVICE}"
    browser = AsyncServiceBrowser(zeroconf.zeroconf, SERVICE, handlers=[on_change])
    try:
        await asyncio.wait_for(heard.wait(), 10)
        info = await zeroconf.async_get_service_info(SERVICE, wanted, RESOLVE_MS)
        assert info is not None and info.port, "heard but not resolved"
        return time.perf_counter() - t0
    finally:
        await browser.async_cancel()
        await zeroconf.async_close()


async def main(args) -> None:
    result = {}
    for announce in (None, "Bench"):
        starts, stops = zip(*[await start_stop(args.host, announce) for _ in range(args.runs)])
        what = "announced" if announce else "not_announced"
        result[what] = {"start_ms": round(statistics.median(starts) * 1000, 1),
                        "stop_ms": round(statistics.median(stops) * 1000, 1)}
        print(f"server {what.replace('_', ' '):13}: start {result[what]['start_ms']:7.1f} ms, "
              f"stop {result[what]['stop_ms']:6.1f} ms (median of {args.runs})")
    with tempfile.TemporaryDirectory() as folder:
        server = Server(folder, args.host, 0, announce="Bench", bot_processes=False)
        await server.start()
        try:
            times = [await heard_after(server.announcement.name) for _ in range(args.runs)]
        finally:
            await server.stop()
    result["heard_ms"] = round(statistics.median(times) * 1000)
    result["heard_slowest_ms"] = round(max(times) * 1000)
    print(f"a fresh listener heard and resolved it after {result['heard_ms']} ms "
          f"(median of {args.runs}; slowest {result['heard_slowest_ms']} ms)")
    print(json.dumps(result, sort_keys=True))


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--host", default="0.0.0.0", help="address the server listens on (default 0.0.0.0)")
    p.add_argument("--runs", type=int, default=5)
    asyncio.run(main(p.parse_args()))
