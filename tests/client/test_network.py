"""End to end: `governor join`, `watch` and `play` against the real server on 127.0.0.1.

Every client is a separate process, as on a LAN: its seat is played by a random bot from its own
view (`--bot random --no-input --json`), it audits the match by itself and saves the record.
"""
import asyncio
import json
import re
import signal
import socket
import time
from pathlib import Path

import pytest

from client.cli import main
from protocol import record
from protocol.verify import verify

from tests.server.rawclient import Raw

from .live import LiveServer, bot_seat, first_line, governor, held_messages, outcome, wait_for


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = LiveServer(tmp_path_factory.mktemp("server"))
    s.start()
    yield s
    s.close()


def check_match(results: list[dict], seats: int) -> None:
    """Every client finished, verified the same match and saved a record that verifies."""
    assert all(r["verified"] and r["finished"] and r["verdict"] == "verified" for r in results)
    assert len({r["game_id"] for r in results}) == 1
    assert len({tuple(r["scores"]) for r in results}) == 1
    assert len(results[0]["scores"]) == seats and results[0]["winners"]
    assert sorted(r["seat"] for r in results) == sorted({r["seat"] for r in results})
    for r in results:
        path = Path(r["record"])
        # named for people: date and time, game, players, short id
        assert path.parent.name == "records" and path.name.endswith(f"_{r['game_id'][:8]}.govrec")
        assert re.fullmatch(r"\d{4}-\d\d-\d\d_\d{4}_sanjuan_[A-Za-z0-9-]+_[0-9a-f]{8}\.govrec", path.name)
        items, shown = record.read_all(path)
        report = verify(items, shown)
        assert report.ok and report.scores == r["scores"], report.text()
        if r["blind"]:
            # A blind table's client draws every view itself from the signed log (its replica):
            # there is nothing the server showed to compare, and nothing is kept.
            assert not shown.steps and report.shown_checked == 0
        else:
            # The client kept every view it showed, and each is the replay's (docs/fairness.md §8).
            assert shown.seat == r["seat"] and report.shown_checked == len(shown.steps) > 0
        # Each client holds its own hand only: the record audits its own seat.
        assert report.seats_checked == [r["seat"]]


@pytest.mark.parametrize("clients, options", [(2, ["--expansion"]), (3, ["--setup-variant"]), (4, [])])
def test_headless_clients_play_a_whole_match(server, tmp_path, clients, options):
    creator = bot_seat(server.url, tmp_path / "c0", "--create", "sanjuan", "--seats", str(clients),
                       "--bots", "0", "--name", "Ana", *options)
    table = first_line(creator)
    assert re.fullmatch(r"[a-z0-9]{6}", table)
    # One joins by table id, the others take the first waiting table with a free seat.
    joiners = [bot_seat(server.url, tmp_path / f"c{i}", *(["--table", table] if i == 1 else []),
                        "--name", f"P{i}") for i in range(1, clients)]
    results = [outcome(p) for p in [creator, *joiners]]
    check_match(results, clients)
    assert results[0]["names"][0] == "Ana"
    assert main(["verify", results[1]["record"]]) == 0


def test_two_people_and_two_computers(server, tmp_path):
    a = bot_seat(server.url, tmp_path / "a", "--create", "sanjuan", "--seats", "4", "--bots", "2")
    table = first_line(a)
    b = bot_seat(server.url, tmp_path / "b", "--table", table)
    results = [outcome(a), outcome(b)]
    check_match(results, 4)
    assert sum(name.startswith("Bot ") for name in results[0]["names"]) == 2


def test_killed_client_resumes_its_seat_and_finishes(server, tmp_path):
    data = tmp_path / "me"
    proc = bot_seat(server.url, data, "--create", "sanjuan", "--seats", "2", "--bots", "1", "--think", "0.03")
    table = first_line(proc)
    wait_for(lambda: held_messages(data) >= 12)       # well into the match
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    held = held_messages(data)
    again = bot_seat(server.url, data, "--table", table)
    result = outcome(again)
    assert "Resuming your seat" in result["_stderr"]
    check_match([result], 2)
    items = record.read(result["record"])
    assert len(items) > held


def test_a_player_away_when_the_match_started_gets_the_seat_back(tmp_path):
    """Gone before committing: the server makes the seat's seed (and says so); coming back, the
    client accepts that its own seed takes no part, plays the seat to the end and verifies. Only
    an open table can deal without a player (a blind one needs every player's deal key, and a
    seat silent before the deal cancels it: tests/server/test_blind_tables.py)."""
    live = LiveServer(tmp_path / "server", grace=0.3)
    live.start()
    try:
        ana_data = tmp_path / "ana"
        ana = bot_seat(live.url, ana_data, "--create", "sanjuan", "--seats", "3", "--bots", "1", "--name", "Ana",
                       "--open")
        table = first_line(ana)
        wait_for(lambda: (ana_data / "sessions").is_dir() and any((ana_data / "sessions").glob("*.json")))
        ana.send_signal(signal.SIGKILL)          # gone before the match starts
        ana.wait()
        bo = bot_seat(live.url, tmp_path / "bo", "--table", table, "--name", "Bo", "--think", "0.02")
        wait_for(lambda: held_messages(tmp_path / "bo") >= 12)    # the match is well under way
        result = outcome(bot_seat(live.url, ana_data, "--table", table))
        assert "the server made the seed for your seat" in result["_stderr"]
        assert result["verified"] and result["finished"] and result["own_seed"] is False, result
        check_match([result, outcome(bo)], 3)
        assert not any(p.kind == "private" and p.body["seat"] != result["seat"]
                       for p in record.read(result["record"]))
    finally:
        live.close()


def test_reconnects_after_the_server_drops_every_connection(tmp_path):
    live = LiveServer(tmp_path / "server")
    live.start()
    try:
        data = tmp_path / "me"
        proc = bot_seat(live.url, data, "--create", "sanjuan", "--seats", "2", "--bots", "1", "--think", "0.02")
        table = first_line(proc)
        wait_for(lambda: held_messages(data) >= 8)
        watcher = governor("watch", live.url, table, "--data-dir", str(tmp_path / "w"))
        assert watcher.stdout.readline().startswith("Connected to")
        live.stop()                      # every connection closed (1001), the port is gone ...
        live.start()                     # ... and back, rebuilt from its database
        result = outcome(proc)
        check_match([result], 2)
        assert "[reconnecting" in result["_stderr"] and result["_stderr"].count("[connected") >= 2
        out, err = watcher.communicate(timeout=30)
        assert watcher.returncode == 0, err
        assert "[reconnecting" in out and "The match is over." in out
        # it resumed the signed log where it was: the audit holds every entry exactly once
        assert "VERIFIED" in out and "Players: " in out
    finally:
        live.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_headless_client_started_before_its_server_waits_for_it(tmp_path):
    """Before it has a seat a headless client tries again as it does after: a server that is
    down, or restarting, for a few seconds costs it nothing."""
    live = LiveServer(tmp_path / "server")
    live.port = free_port()
    try:
        proc = bot_seat(live.url, tmp_path / "me", "--create", "sanjuan", "--seats", "2", "--bots", "1")
        # it finds nobody there, and says it tries again
        assert "[reconnecting: cannot reach a Governor server" in first_line(proc, stream="stderr")
        live.start()
        result = outcome(proc)
        check_match([result], 2)
    finally:
        live.close()


def test_headless_clients_waiting_for_a_free_seat_outlive_a_server_restart(tmp_path):
    live = LiveServer(tmp_path / "server")
    live.start()
    try:
        joiners = [bot_seat(live.url, tmp_path / f"j{i}", "--name", f"J{i}") for i in range(3)]
        wait_for(lambda: live.server.connections >= 3)   # they poll the lobby for a free seat ...
        live.stop()                      # ... which goes away ...
        time.sleep(0.5)
        live.start()                     # ... and comes back
        creator = bot_seat(live.url, tmp_path / "c", "--create", "sanjuan", "--seats", "4", "--name", "C")
        results = [outcome(p) for p in [creator, *joiners]]
        check_match(results, 4)
        assert all("Traceback" not in r["_stderr"] for r in results)
        assert any("[reconnecting" in r["_stderr"] for r in results)
    finally:
        live.close()


def test_a_claim_with_another_key_is_refused_reported_and_not_retried(server, tmp_path):
    """The seat is its player key's: a data folder whose key is another one cannot claim it."""
    data = tmp_path / "x"
    proc = bot_seat(server.url, data, "--create", "sanjuan", "--seats", "2", "--bots", "1", "--think", "0.05")
    table = first_line(proc)
    wait_for(lambda: held_messages(data) >= 4)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    from protocol.signing import PLAYER_KEY_FILE, Signer
    (data / PLAYER_KEY_FILE).write_bytes(Signer.generate().pem())
    again = bot_seat(server.url, data, "--table", table)
    out, err = again.communicate(timeout=30)
    assert again.returncode == 1 and "Traceback" not in err
    assert "cannot be resumed here: the header names another key than ours for our seat" in err


def test_a_finished_seat_leaves_only_its_record(server, tmp_path):
    proc = bot_seat(server.url, tmp_path, "--create", "sanjuan", "--seats", "2", "--bots", "1")
    result = outcome(proc)
    assert list((tmp_path / "sessions").iterdir()) == []
    assert [p for p in (tmp_path / "records").iterdir()] == [Path(result["record"])]   # one, resumed or not
    assert result["record"].endswith(f"_{result['game_id'][:8]}.govrec")


def test_watch_follows_a_match_to_its_end(server, tmp_path):
    player = bot_seat(server.url, tmp_path / "p", "--create", "sanjuan", "--seats", "2", "--bots", "1",
                      "--think", "0.01")
    table = first_line(player)
    watcher = governor("watch", server.url, table, "--data-dir", str(tmp_path / "w"))
    out, err = watcher.communicate(timeout=60)
    assert watcher.returncode == 0, err
    result = outcome(player)
    assert f"Watching table {table}" in out and "The match is over." in out
    # The spectator audited the match from the signed public log, and kept it.
    # It says what it could check, and what it could not: no player's hidden cards.
    assert "VERIFIED, the public part:" in out and "Not checked: the cards each player was dealt" in out
    assert "this public record holds no player's hidden cards to compare" in out and "every card shown" not in out
    assert "the deal and the scores are honest" not in out
    saved = Path(re.search(r"Public match record saved: (\S+)", out).group(1))
    assert saved.parent == tmp_path / "w" / "records" and saved.name.endswith(f"_{result['game_id'][:8]}.public.govrec")
    items, shown = record.read_all(saved)
    report = verify(items, shown)
    assert report.ok and report.seats_checked == [] and report.scores == result["scores"]
    assert shown.seat is None and report.shown_checked == len(shown.steps) > 0   # the public views, checked
    assert "Cities" in out and "Your hand" not in out          # the public view only
    assert re.search(r"Winners?[^:]*: [^\n]+, after \d+ rounds?\.", out)
    assert " ".join(str(s) for s in result["scores"]) in re.sub(r"\s+", " ", out[out.rindex("\ntotal"):])


def test_watching_a_table_closed_before_its_match_began(tmp_path):
    live = LiveServer(tmp_path / "server", idle_table=0.5)
    live.start()
    try:
        async def create():
            raw = await Raw.connect(live.url)
            table = await raw.create(2)
            await raw.close()
            return table
        table = asyncio.run(create())
        watcher = governor("watch", live.url, table, "--data-dir", str(tmp_path / "w"))
        out, err = watcher.communicate(timeout=30)
        assert watcher.returncode == 0 and "The table was closed before its match began." in out, (out, err)
        assert not (tmp_path / "w" / "records").exists()
    finally:
        live.close()


def test_watch_an_unknown_table(server):
    proc = governor("watch", server.url, "nosuch")
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 1 and "There is no table 'nosuch'" in out


def test_join_without_a_server_says_so(tmp_path):
    proc = governor("join", "ws://127.0.0.1:9", "--bot", "random", "--no-input", "--json", "--data-dir", str(tmp_path),
                    "--patience", "1")
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 1 and "Traceback" not in err
    assert "[reconnecting: cannot reach a Governor server at ws://127.0.0.1:9" in err   # tried again, as a seat is
    last = err.strip().splitlines()[-1]
    assert last.startswith("governor join: cannot reach a Governor server at ws://127.0.0.1:9: ")
    assert last.endswith("; gave up after 1 s")
    assert json.loads(out) == {"finished": False, "verified": False, "record": None,
                               "verdict": last.removeprefix("governor join: ")}


# ------------------------------------------------------------ governor play: the LAN party

@pytest.mark.parametrize("table", [["--players", "3", "--bots", "1"],
                                   ["--game", "puertorico", "--players", "2", "--bots", "0"]],
                         ids=["sanjuan", "puertorico"])
def test_play_auto_with_a_friend_over_the_network(tmp_path, table):
    play = governor("play", "--auto", *table, "--port", "0", "--name", "Ana",
                    "--data-dir", str(tmp_path / "host"))
    line = ""
    while "Friends can join with" not in line:
        line = play.stdout.readline()
        assert line, play.stderr.read()
    # The hint is a command that runs as printed: here `python -m client`, as the test started it.
    url, table = re.search(r" -m client join (ws://\S+) --table (\S+)", line).groups()
    friend = bot_seat(url, tmp_path / "friend", "--table", table, "--name", "Bo")
    out, err = play.communicate(timeout=60)
    assert play.returncode == 0, err
    result = outcome(friend)
    assert "Traceback" not in err
    assert "VERIFIED: the deal and the scores are honest." in out
    path = re.search(r"Match record saved: (\S+)", out).group(1)
    assert Path(path).is_relative_to(tmp_path / "host" / "records") and Path(path).exists()
    report = verify(*record.read_all(path))
    assert report.scores == result["scores"], report.text()
    assert result["blind"] and report.shown_checked == 0, "two people: a blind table, drawn from its own replica"
    assert result["names"][:2] == ["Ana", "Bo"]
    # The bot answered through the same input path as a person, at every question.
    assert out.count("(? for help, q to quit)") == out.count("\n> ") > 0
    assert "\ntotal " in out and re.search(r"Winners?[^:]*: [^\n]+, after \d+ rounds?\.", out)


def test_play_auto_against_bots(tmp_path):
    proc = governor("play", "--auto", "--players", "2", "--expansion", "--port", "0",
                    "--data-dir", str(tmp_path))
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert re.search(r"Others can watch with: \S+ -m client watch ws://127\.0\.0\.1:", out)
    assert "(expansion)" in out and "VERIFIED" in out
    assert len(list((tmp_path / "records").glob("*.govrec"))) == 1


def test_play_takes_another_port_when_8765_is_taken(tmp_path):
    import socket
    blocker = socket.socket()
    blocker.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)   # as the server does
    try:
        blocker.bind(("127.0.0.1", 8765))
        blocker.listen()
    except OSError:
        pass                                  # taken already: the same situation
    try:
        proc = governor("play", "--auto", "--players", "2", "--data-dir", str(tmp_path))
        out, err = proc.communicate(timeout=60)
    finally:
        blocker.close()
    assert proc.returncode == 0, err
    port = int(re.search(r"ws://127\.0\.0\.1:(\d+)", out).group(1))
    assert port != 8765 and "VERIFIED" in out


def test_a_headless_client_killed_before_it_had_a_seat_starts_again_with_the_same_arguments(server, tmp_path):
    """Killed just after its table was created, while it sits down: started again with the
    same arguments and data directory, it sits and plays a match to the end, and audits it."""
    data = tmp_path / "me"
    args = ("--create", "sanjuan", "--seats", "2", "--bots", "1")
    proc = bot_seat(server.url, data, *args)
    first_line(proc)                          # the table is made; the seat is being taken
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    result = outcome(bot_seat(server.url, data, *args))
    check_match([result], 2)


@pytest.mark.parametrize("torn", [b"", record.MAGIC[:3]])
def test_a_seat_whose_message_file_was_torn_as_it_was_made_is_resumed(server, tmp_path, torn):
    """A client killed as it sat down, between making its seat's message file and writing its
    first bytes (as one that wrote the file in place could be), finds the seat again: the file
    is taken as empty and the server sends every signed message anew."""
    data = tmp_path / "me"
    proc = bot_seat(server.url, data, "--create", "sanjuan", "--seats", "3", "--bots", "1", "--name", "Ana")
    table = first_line(proc)
    wait_for(lambda: any((data / "sessions").glob("*.msgs")))   # seated; the match waits for a third player
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    [msgs] = (data / "sessions").glob("*.msgs")
    msgs.write_bytes(torn)
    again = bot_seat(server.url, data, "--table", table)
    third = bot_seat(server.url, tmp_path / "bo", "--table", table, "--name", "Bo")
    result = outcome(again)
    assert "Resuming your seat" in result["_stderr"]
    check_match([result, outcome(third)], 3)
