"""A table followed as a spectator: `Spectator` watches it over the network until its match
ends, reconnecting like a seat, and is sent every signed public entry too; `Watcher` prints the
public view and log on this screen; `watch_table` runs both to the end, audits the match as a
player does (bar the hands: docs/fairness.md §5 without private messages) and saves the public record.
Shared by `governor watch` and the lobby of `governor join`.
"""
from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

from .errors import ClientError
from .link import DROPPED, PACE_RATE, PATIENCE, Addresses, Backoff, Link, ServerRefused, why_dropped
from .render import renderer_for, seats_line
from .seat import Player
from .session import normalize_url, save_record
from .table import Table


class Spectator:
    """Watches a table (the public view) until its match ends; reconnects like a seat. It is
    sent every signed public entry too, and audits the match at its end as a player does (bar
    the hands: docs/fairness.md §5 without private messages)."""

    def __init__(self, url: str, table: str, player: Player, *, link: Link | None = None,
                 patience: float = PATIENCE, cafile: str | None = None) -> None:
        self.url = normalize_url(url)
        self.rate = link.rate if link is not None else PACE_RATE
        self.cafile = link.cafile if link is not None else cafile
        self.player = player
        self.link = link
        self.addresses = Addresses(url)     # where to come back: a cluster's processes too
        self.addresses.learn(link.welcome if link is not None else None)
        self.backoff = Backoff(patience)
        self.server_key = link.welcome["key"] if link is not None and link.welcome else None
        self.table = Table(table, server_key=self.server_key)

    async def run(self) -> Table:
        try:
            while not self._over():
                try:
                    if self.link is None or self.link.ws is None:
                        await self._connect()
                    await self.link.send({"type": "watch", "table": self.table.table, "have": self.table.held})
                    while not self._over():
                        msg = await self.link.recv()
                        if msg["type"] == "redirect":    # another process of the cluster serves the table
                            await self.link.go(msg["url"])
                            await self.link.open()
                            break                        # and it is watched there
                        await self._step(msg)
                except DROPPED as e:
                    if self._over():
                        break
                    self.player.connection("reconnecting", why_dropped(e))
                    await self.link.close()
                    self.link = None
            await self._last_view()
            return self.table
        finally:
            if self.link is not None:
                await self.link.close()

    def _over(self) -> bool:
        """The match ended (its last signed entry is in), or the table closed before it began."""
        return self.table.ended or (self.table.header is None and self.table.status in ("cancelled", "over"))

    async def _step(self, msg: dict) -> None:
        if msg["type"] == "error" and self.table.view is None:
            raise ServerRefused(msg["code"], msg["message"])
        for out in self.table.feed(msg):
            await self.link.send(out)
        happened = self.table.drain()
        if happened:
            self.player.update(self.table, happened)

    async def _last_view(self) -> None:
        """The final entry and the view that shows the result may come in either order: wait a
        little for that view (a cancelled match has none)."""
        deadline = time.monotonic() + 2.0
        try:
            while (self.link is not None and self.table.status != "cancelled"
                   and not (self.table.view or {}).get("over") and time.monotonic() < deadline):
                await self._step(await asyncio.wait_for(self.link.recv(), deadline - time.monotonic()))
        except (*DROPPED, ClientError):
            pass

    async def _connect(self) -> None:
        while True:
            delay = self.backoff.next_delay()
            if delay is None:
                raise ClientError("connection_lost", f"lost the connection to {self.url} and could not get it back "
                                  f"in {self.backoff.patience:.0f} s.")
            await asyncio.sleep(delay)
            link = Link(self.addresses.current, self.rate, self.cafile)
            try:
                welcome = await link.open()
            except DROPPED:
                await link.close()
                self.addresses.unreachable()    # a cluster's process that died: try another
                continue
            if self.server_key is None:
                self.server_key = self.table.exchange.pinned_key = welcome["key"]
            elif welcome["key"] != self.server_key:
                await link.close()
                raise ClientError("other_key", "the server at this address now has another key "
                                  f"({welcome['server']}): it is not the server this match is played on")
            self.link = link
            self.addresses.learn(welcome)
            self.backoff.reset()
            self.player.connection("connected", welcome["server"])
            return


class Watcher(Player):
    """Prints the board whenever a decision is made, and the log as it happens."""

    def __init__(self, colour: bool = False) -> None:
        self.colour = colour
        self.screen = None
        self.status_line = ""
        self.shown_to_act = None

    def connection(self, state: str, detail: str = "") -> None:
        print(f"[{state}{': ' + detail if detail and state != 'connected' else ''}]", flush=True)

    def update(self, table: Table, happened: list[tuple]) -> None:
        v = table.view
        if v is not None and self.screen is None:
            self.screen = renderer_for(v, self.colour)
        redraw = False
        for kind, data in happened:
            if kind == "events":
                for e in data:
                    print(f"  {e['text']}")
            elif kind == "view":
                redraw = True
            elif kind == "status":
                line = seats_line(data)
                if line and line != self.status_line:
                    self.status_line = line
                    print(f"[{line}]")
            elif kind == "error":
                print(f"[server: {data[1]}]")
            elif kind == "alert":
                print(f"[{data}]")
            elif kind == "chat":
                print(f"[chat] {data['name']}: {data['text']}")
        if redraw and v is not None and not v.get("over"):
            to_act = tuple(v.get("to_act", ()))
            if to_act != self.shown_to_act:
                self.shown_to_act = to_act
                print()
                print(self.screen.view(v))
                if to_act:
                    print(self.screen.paint(self.screen.waiting(v), "dim"))
        sys.stdout.flush()


async def watch_table(link: Link, table: str, data_dir: Path, *, colour: bool = False,
                      patience: float = PATIENCE) -> int:
    """Watch on this screen to the end; the exit code: 0 when the match ended and its audit passed."""
    watcher = Watcher(colour)
    print(f"Watching table {table} (Ctrl-C to leave).", flush=True)
    try:
        t = await Spectator(link.url, table, watcher, link=link, patience=patience).run()
    except ServerRefused as e:
        print(f"Cannot watch table {table}: {e}")
        return 1
    if t.header is None:
        print("The table was closed before its match began.")
        return 0
    v = t.view or {}
    if v.get("result") and watcher.screen:
        print()
        print(watcher.screen.board(v))
        print()
        print(watcher.screen.result(v["result"], [p["name"] for p in v["players"]]))
    elif t.status == "cancelled":
        print("The match was cancelled.")
    print("The match is over.")
    report = t.audit()
    print()
    print(report.text())
    path = save_record(data_dir, t.exchange.record, t.header["game_id"], "public", shown=t.shown)
    print(f"Public match record saved: {path}")
    return 0 if report.ok else 1

