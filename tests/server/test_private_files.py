"""Files no other user of the machine may read: the server's data directory (its key, its
database with every seed and move), the client's (seat tokens, secret seeds, the records of a
seat's cards), and the operator key file, which is refused when others may read it or when the
key is too weak."""
from __future__ import annotations

import asyncio
import logging
import stat
import subprocess
import sys

from client.cli import main

from tests.client.live import ROOT, bot_seat, outcome

from .rawclient import Raw, SeatPlayer


def mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


async def test_the_servers_data_directory_and_its_files_are_its_users_alone(make_server, tmp_path):
    data = tmp_path / "new" / "data"
    server = await make_server(data_dir=data)
    lobby = await Raw.connect(server.url)
    table = await lobby.create(2, 1)
    await lobby.close()
    ana = SeatPlayer(server.url, table, "Ana")
    await ana.sit()
    await ana.play(until=lambda p: p.acks >= 2)       # the database has written its log
    assert mode(data) == 0o700
    files = {p.name: mode(p) for p in data.iterdir()}
    assert {"server_key.pem", "governor.db", "governor.db-wal", "governor.db-shm", "server.lock"} <= set(files)
    assert files == {name: 0o600 for name in files}


async def test_a_data_directory_open_to_others_is_made_private_at_start(make_server, tmp_path, caplog):
    data = tmp_path / "data"
    first = await make_server(data_dir=data)
    lobby = await Raw.connect(first.url)
    table = await lobby.create(2, 1)
    await lobby.close()
    await first.stop()
    data.chmod(0o755)                   # as a folder made by hand, or by a server of an earlier release
    for name in ("governor.db", "server_key.pem"):
        (data / name).chmod(0o644)
    with caplog.at_level(logging.WARNING, logger="governor.server"):
        second = await make_server(data_dir=data)
    assert mode(data) == 0o700 and {p.name: mode(p) for p in data.iterdir()} == {
        p.name: 0o600 for p in data.iterdir()}
    said = [r.getMessage() for r in caplog.records if "open to other users" in r.getMessage()]
    assert said and str(data) in said[0] and "governor.db (0644)" in said[0] and ". (0755)" in said[0]
    raw = await Raw.connect(second.url)     # and it serves what it had
    await raw.send({"type": "watch", "table": table})
    assert (await raw.expect("status"))["table"] == table
    await raw.close()


async def test_a_players_seat_and_records_are_their_users_alone(server, tmp_path):
    lobby = await Raw.connect(server.url)
    table = await lobby.create(2, 1)
    await lobby.close()
    data = tmp_path / "client"
    proc = bot_seat(server.url, data, "--table", table, "--name", "Ana")
    result = await asyncio.get_running_loop().run_in_executor(None, outcome, proc, 120)
    assert result["finished"] and result["verified"]
    assert mode(data) == 0o700
    folders = [p for p in data.rglob("*") if p.is_dir()]
    files = [p for p in data.rglob("*") if p.is_file()]
    assert data / "records" in folders and any(p.suffix == ".govrec" for p in files)
    assert {p: mode(p) for p in folders} == {p: 0o700 for p in folders}
    assert {p: mode(p) for p in files} == {p: 0o600 for p in files}


def serve_with_key(tmp_path, key: str, key_mode: int) -> subprocess.CompletedProcess:
    """`governor serve` with this key in a file of this mode (a server that starts is stopped
    by the timeout, failing the test)."""
    path = tmp_path / "operator.key"
    path.write_text(key + "\n")
    path.chmod(key_mode)
    return subprocess.run([sys.executable, "-m", "client", "serve", "--operator-key-file", str(path), "--data-dir",
                           str(tmp_path / "d"), "--port", "0", "--no-announce"], cwd=ROOT, capture_output=True,
                          text=True, timeout=20)


def test_an_operator_key_file_other_users_may_read_is_refused(tmp_path):
    for key_mode in (0o644, 0o640, 0o604, 0o620):
        refused = serve_with_key(tmp_path, "a-long-and-varied-key-0123456789", key_mode)
        assert refused.returncode == 2 and (
            f"the operator key file {tmp_path / 'operator.key'} may be read or changed by other users "
            f"(mode {key_mode:04o}); make it yours alone: chmod 600") in refused.stderr
    assert not (tmp_path / "d").exists()        # refused before anything starts


def test_a_weak_operator_key_is_refused(tmp_path):
    refused = serve_with_key(tmp_path, "a" * 16, 0o600)
    assert refused.returncode == 2 and "has only 1 different characters; it needs at least 8" in refused.stderr
    refused = serve_with_key(tmp_path, "abcabcabcabcabcabcabc", 0o600)
    assert refused.returncode == 2 and "has only 3 different characters" in refused.stderr
    assert not (tmp_path / "d").exists()


def test_governor_admin_refuses_a_key_file_other_users_may_read(tmp_path, capsys):
    path = tmp_path / "operator.key"
    path.write_text("a-long-and-varied-key-0123456789\n")
    path.chmod(0o644)
    assert main(["admin", "ws://127.0.0.1:1", "tables", "--key-file", str(path)]) == 2
    assert "may be read or changed by other users (mode 0644)" in capsys.readouterr().err


def test_a_record_is_written_through_a_new_private_file_whatever_stale_one_lies_there(tmp_path):
    """A kill between making the temporary file and renaming it leaves it behind; anything at its
    name (a stale file others may read, a link to another file) is replaced, not written through."""
    from protocol import record
    stale = tmp_path / "match.govrec.tmp"
    stale.write_bytes(b"half a record")
    stale.chmod(0o644)
    path = record.write(tmp_path / "match.govrec", [])
    assert path.read_bytes() == record.MAGIC and mode(path) == 0o600 and not stale.exists()

    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_bytes(b"not to be touched")
    stale.symlink_to(elsewhere)
    record.write(path, [])
    assert elsewhere.read_bytes() == b"not to be touched"
    assert not path.is_symlink() and mode(path) == 0o600 and not stale.exists()
