"""A seat played by a computer player in a client process of its own (`governor join --bot
LEVEL`), deciding from that seat's view only, for scripts, load tests and the test suite: it
sits (at a new table, a given one, or the first with a free seat) or resumes its saved seat,
plays to the end reporting progress on stderr, and prints the outcome (one JSON object with
--json)."""
from __future__ import annotations

import asyncio
import json
import secrets
import sys
import time

import bots
from games.errors import IllegalAction

from .errors import ClientError
from .link import DROPPED, Backoff, Link, ServerRefused, open_link, why_dropped
from .lobby import sit, table_id, table_is_open
from .seat import Player, SeatRunner
from .session import SeatSession, normalize_url
from .table import Table

MAX_REJECTS = 20        # refused moves in a row before a bot gives up: it is not going to learn


class Headless(Player):
    """A seat played by a bot (bots.AnyGame) from its own view; reports progress on stderr, briefly."""

    def __init__(self, bot, delay: float = 0.0) -> None:
        self.bot = bot
        self.delay = delay
        self.rejects = 0

    async def decide(self, table: Table) -> list:
        if self.delay:
            await asyncio.sleep(self.delay)
        try:
            return self.bot.choose(table.view)
        except IllegalAction as e:     # a level the table's game has not
            raise ClientError(e.code, e.message) from None

    def connection(self, state: str, detail: str = "") -> None:
        print(f"[{state}{': ' + detail if detail else ''}]", file=sys.stderr, flush=True)

    def update(self, table: Table, happened: list[tuple]) -> None:
        for kind, data in happened:
            if kind == "ack":
                self.rejects = 0
            elif kind in ("notice", "alert"):
                print(f"[{data}]", file=sys.stderr, flush=True)
            elif kind in ("reject", "error"):
                print(f"[server: {data[1]}]", file=sys.stderr, flush=True)
                if kind == "reject" and data[0] != "stale":
                    self.rejects += 1
                    if self.rejects > MAX_REJECTS:
                        raise ClientError("moves_refused", f"the server keeps refusing the bot's moves: {data[1]}")


async def play_headless(args) -> int:
    """The bot seat of `governor join --bot` to the end; the exit code: 0 when the match
    finished and its audit verified it."""
    url = normalize_url(args.url)
    seed = args.seed if args.seed is not None else secrets.token_hex(8)
    player = Headless(bots.AnyGame(args.bot, seed), args.think)
    session = SeatSession.find(args.data_dir, args.table, url=url) if args.table else None
    link = None
    if session is None:
        link, session = await _take_seat(url, args, player)
    if link is None:
        print(f"Resuming your seat at table {session.table} (seat {session.seat + 1}, as {session.name}).",
              file=sys.stderr, flush=True)
        runner = SeatRunner(session, player, patience=args.patience, rate=args.pace, cafile=args.cafile)
    else:
        print(f"Seated at table {session.table}, seat {session.seat + 1}.", file=sys.stderr, flush=True)
        runner = SeatRunner(session, player, link=link, patience=args.patience)
    outcome = await runner.run()
    if args.json:
        print(json.dumps(outcome.as_dict(), sort_keys=True), flush=True)
    else:
        print(outcome.report.text() if outcome.report else outcome.reason)
        if outcome.caveat:
            print(outcome.caveat)
        print(f"Match record saved: {outcome.record}")
    return 0 if outcome.verified else 1


async def _take_seat(url: str, args, player: Headless) -> tuple[Link | None, SeatSession]:
    """Connect and sit down as the arguments say. A server that cannot be reached, or a
    connection that drops before we have a seat (a server restarting), is tried again with the
    backoff and patience of a seat that lost its connection; a table we created is not created
    again. A seat saved at `--table` of the server with this key (it moved to `url`) is
    resumed: no link then, the seat's runner connects and claims the seat with the player key."""
    backoff = Backoff(args.patience)
    table = args.table
    while True:
        link = None
        try:
            link = await open_link(url, quiet=True, rate=args.pace, cafile=args.cafile)
            saved = SeatSession.find(args.data_dir, table, server_key=link.welcome["key"]) if table else None
            if saved is not None:
                await link.close()
                return None, saved.moved_to(url)
            if table is None and args.create:
                table = await link.create(args.create, args.seats, args.bots, args.options,
                                          levels=args.levels, rated=args.rated, blind=args.blind)
                print(table, flush=True)
            session = await (_sit_as_bot(link, table, args) if table else _sit_anywhere(link, args))
            return link, session
        except BaseException as e:
            if link is not None:
                await link.close()
            if isinstance(e, ClientError) and e.code == "unreachable":   # open_link's word for DROPPED
                why = e.message
            elif isinstance(e, DROPPED):
                why = f"the connection to {url} dropped before we had a seat ({why_dropped(e)})"
            else:
                raise
            delay = backoff.next_delay()
            if delay is None:
                raise ClientError("unreachable", f"{why}; gave up after {backoff.patience:g} s") from None
            player.connection("reconnecting", why)
            await asyncio.sleep(delay)


async def _sit_as_bot(link: Link, table: str, args) -> SeatSession:
    """Sit as --name, or as "<Level> NNN": names are unique at a table, so when another seat has
    that one, a fresh number is drawn."""
    for _ in range(20):
        name = args.name or f"{args.bot.capitalize()} {secrets.randbelow(900) + 100}"
        try:
            return await sit(link, table, name, args.data_dir)
        except ServerRefused as e:
            if e.code != "name_taken" or args.name:
                raise
    raise ClientError("no_free_name", f"no free name for a bot at table {table}")


async def _sit_anywhere(link: Link, args) -> SeatSession:
    """The first waiting table with a free seat; wait for one to appear."""
    deadline = time.monotonic() + args.patience
    while True:
        for t in await link.tables():
            if table_is_open(t):
                try:
                    return await _sit_as_bot(link, table_id(t), args)
                except ServerRefused:
                    continue   # taken in the meantime, or our --name is
        if time.monotonic() > deadline:
            raise ClientError("no_free_seat", "no table with a free seat appeared on this server")
        await asyncio.sleep(0.3)

