"""A blind LAN party, whole, with the real programs: `governor play --host … --blind` in a
pseudo-terminal (its full-screen table played with keys), a friend's headless `governor join`
at the same table, and a computer player. The lobby lists the table as blind, the host's header
line says "blind dealing", both clients play from their own replicas to a verified end, and the
record each saves is a blind table's that `governor verify` checks again. The host's log pane
tells her own draws and keeps."""
from __future__ import annotations

import asyncio
import re

from client.link import open_link

from .live import bot_seat, governor, outcome
from .real_terminal import SIZES, play_args, play_to_the_end

HOST = "127.0.0.2"      # an address of this machine that counts as hosting and is not announced
LIMIT = 240             # seconds a whole game may take before it is called stuck (not a timing test)


async def listed(url: str, table: str) -> dict:
    link = await open_link(url, quiet=True, rate=0)
    try:
        return next(t for t in await link.tables() if t.get("id", t.get("table")) == table)
    finally:
        await link.close()


def test_a_blind_lan_party_is_played_to_a_verified_end_by_host_and_friend(real_terminal, tmp_path):
    term = real_terminal(play_args("--host", HOST, "--name", "Ana", "--players", "3", "--bots", "1", "--blind"),
                         *SIZES[2])
    found = re.search(rf"join (ws://{re.escape(HOST)}:\d+) --table (\w+)",
                      term.wait_for(re.compile(r"Friends join with: .* --table \w+")).replace("\n", " "))
    assert found, term.text()
    url, table = found.groups()
    term.wait_until(lambda: "blind dealing" in term.text().splitlines()[0], "blind dealing on the header line")

    entry = asyncio.run(listed(url, table))
    assert entry["blind"] is True, entry

    friend = bot_seat(url, tmp_path / "bo", "--table", table, "--name", "Bo")
    played = play_to_the_end(term, limit=LIMIT)
    assert "The match is over. VERIFIED" in played.end, played.end
    assert played.questions > 10, played.questions
    assert any("blind dealing" in line for line in played.seen)
    # The log pane tells Ana her own draws and keeps, as an open table does: her replica reads
    # them once the others' shares open the cards to her.
    own = [line for line in played.seen if re.search(r"\bYou (draw|keep) [A-Z]", line)]
    assert own, sorted(played.seen)
    print("\n".join(own[:8]))

    result = outcome(friend, timeout=LIMIT)
    assert result["blind"] is True and result["finished"] and result["verified"], result
    assert result["forfeits"] == []

    term.enter()
    assert term.wait_exit() == 0, term.text()
    [record] = list((term.home / "client" / "records").glob("*.govrec"))
    check = governor("verify", str(record))
    out, err = check.communicate(timeout=120)
    assert check.returncode == 0, out + err
    assert "blind dealing among 3 parties" in out and "VERIFIED" in out, out
