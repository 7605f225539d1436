"""The end of a blind match on a real server: shares that cross the move ending the game are
dropped without a word, and they neither enter the log nor hold off a silent seat's forfeit."""
import asyncio

from .test_blind_tables import blind_table


async def test_late_shares_are_dropped_and_never_hold_off_a_forfeit(make_server):
    server = await make_server(grace=1.0, turn_time=1.0)
    table, (ana, bo), lobby = await blind_table(server.url, "sanjuan")
    sent_shares: list[dict] = []
    send = bo.raw.send

    async def keeping_shares(m):
        if m.get("type") == "shares":
            sent_shares.append(dict(m))
        await send(m)
    bo.raw.send = keeping_shares

    def stop_once_over(p):      # Bo never sends his deal seed
        if p.bx.reader is not None and p.bx.reader.over:
            p.answering = False
    bo.on_entry = stop_once_over
    playing = [asyncio.create_task(ana.play(timeout=300)), asyncio.create_task(bo.play(timeout=300))]
    try:
        while bo.answering:
            await asyncio.sleep(0.05)
        core = server.tables[table].core
        assert core.exchange.phase == "seeds" and sent_shares, "the game is over, Bo sent shares during it"
        rows = core.nrows
        # Bo sends an old shares message again and again, faster than his grace runs out
        for _ in range(12):
            await send(sent_shares[-1])
            await asyncio.sleep(0.25)
            if core.exchange.forfeited:
                break
        assert core.exchange.forfeited == [bo.seat], "late shares held off Bo's forfeit"
        assert core.exchange.phase == "over" and core.status == "over"
        assert core.nrows == rows + 1, "only the forfeit entered the log"
        assert not bo.errors, bo.errors
    finally:
        for task in playing:
            task.cancel()
        await asyncio.gather(*playing, return_exceptions=True)
        await lobby.close()
