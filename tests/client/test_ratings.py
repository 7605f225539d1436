"""`governor ratings FOLDER|URL`: every record audited, hostile files reported one by one, and
nothing but verified rated matches among key holders counted."""
import json
import os
import subprocess

import pytest

from client.cli import main
from protocol import record

from .live import governor

RUN = 120       # seconds: ratings of a handful of files ends in one or two; past this it hangs


@pytest.fixture(scope="module")
def unrated(tmp_path_factory):
    """The bytes of a real record of a match no one rated (selfplay's, between computer players)."""
    folder = tmp_path_factory.mktemp("selfplay")
    assert main(["selfplay", "--bots", "heuristic,heuristic", "--games", "1", "--seed", "ratings",
                 "--record-dir", str(folder)]) == 0
    return (folder / "game-0.govrec").read_bytes()


def ratings(*args: str) -> tuple[int, str, str]:
    proc = governor("ratings", *args)
    out, err = proc.communicate(timeout=RUN)
    return proc.returncode, out, err


def test_hostile_files_are_each_reported_and_nothing_counts(unrated, tmp_path):
    folder = tmp_path / "records"
    (folder / "deeper").mkdir(parents=True)
    (folder / "cut.govrec").write_bytes(unrated[:len(unrated) // 2])
    (folder / "picture.png").write_bytes(b"\x89PNG\r\n\x1a\n" + os.urandom(2000))
    (folder / "huge.govrec").write_bytes(record.MAGIC + b"\x00" * (3 << 20))
    (folder / "notes.txt").write_text("not a record at all\n")
    (folder / "empty.govrec").write_bytes(b"")
    (folder / "deeper" / "unrated.govrec").write_bytes(unrated)
    os.mkfifo(folder / "pipe.govrec")         # opened, it would wait for a writer forever
    (folder / "loop.govrec").symlink_to(folder / "loop.govrec")
    code, out, err = ratings(str(folder))
    assert "Traceback" not in out + err
    assert code == 1, out      # some record could not be read
    lines = out.splitlines()
    said = {line.split(": ")[1]: line.strip() for line in lines if line.startswith("  ")}
    assert said == {
        "cut.govrec": "unreadable: cut.govrec: the record is cut short inside item " + said["cut.govrec"].rsplit(" ", 1)[1],
        "deeper/unrated.govrec": "not rated: deeper/unrated.govrec: the table was not rated",
        "empty.govrec": "unreadable: empty.govrec: not a Governor match record (it does not start with "
                        "'governor-record/1')",
        "huge.govrec": f"unreadable: huge.govrec: the record is {record.MAX_RECORD + 1} bytes, over the limit of "
                       f"{record.MAX_RECORD}",
        "loop.govrec": said["loop.govrec"],
        "notes.txt": "unreadable: notes.txt: not a Governor match record (it does not start with 'governor-record/1')",
        "picture.png": "unreadable: picture.png: not a Governor match record (it does not start with "
                       "'governor-record/1')",
        "pipe.govrec": "unreadable: pipe.govrec: it is not a regular file",
    }
    assert said["loop.govrec"].startswith("unreadable: loop.govrec: it cannot be read: ")
    assert "No rated match among the records." in out
    assert "8 records: 0 counted, 8 left out" in out


def test_json_lists_what_was_left_out(unrated, tmp_path):
    (tmp_path / "a.govrec").write_bytes(unrated)
    code, out, _ = ratings(str(tmp_path), "--json")
    assert code == 0           # read and verified: an unrated match is no failure
    assert json.loads(out) == {"games": {}, "counted": 0, "left_out": [
        {"record": "a.govrec", "verdict": "not rated", "why": "the table was not rated"}]}


@pytest.mark.parametrize("source, said", [
    ("/nonexistent/folder", "governor ratings: '/nonexistent/folder' is not a folder"),
    ("http://127.0.0.1:9/", "governor ratings: cannot read http://127.0.0.1:9/records.json: "),
])
def test_a_source_that_cannot_be_read_is_said(source, said):
    code, out, err = ratings(source)
    assert code == 2 and out.startswith(said) and "Traceback" not in err


def test_a_server_that_lists_no_records_is_said(tmp_path):
    """A web server that is not a records port: its answer is named, nothing is judged."""
    (tmp_path / "records.json").write_text('{"tables": 3}')
    http = subprocess.Popen(["python3", "-m", "http.server", "0", "--bind", "127.0.0.1"], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        port = int(http.stdout.readline().split(" port ")[1].split()[0])
        code, out, _ = ratings(f"http://127.0.0.1:{port}")
        assert (code, out.strip()) == (2, f"governor ratings: http://127.0.0.1:{port} does not list records "
                                          "(records.json holds no list of names)")
    finally:
        http.kill()
        http.wait()
