"""`governor ratings FOLDER|URL`: every record audited, hostile files reported one by one, and
nothing but verified rated matches among key holders counted."""
import importlib.util
import json
import os
import random
import shutil
import subprocess
import sys
import urllib.request
from html.parser import HTMLParser
from pathlib import Path

import pytest

from client.cli import main
from client.ratings import judge_all
from client.session import player_key
from protocol import record
from protocol.messages import Signed
from protocol.standings import judge, standings
from protocol.verify import verify

from .live import ROOT, first_line, governor, outcome, wait_for

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


# ---------------------------------------------------------------------- rated matches

def _bench_ratings():
    spec = importlib.util.spec_from_file_location("bench_ratings", ROOT / "bench" / "ratings.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module         # its worker processes find its functions by this name
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """A real `governor serve` with its records port, and the matches finished there: three rated
    ones between players with keys (one of them named with HTML), and one with a computer player.
    Yields (records URL, the players' names)."""
    home = tmp_path_factory.mktemp("served")
    serve = governor("serve", "--port", "0", "--records", "--records-port", "0", "--no-announce",
                     "--data-dir", str(home / "server"), "--limit", "rate=10000", "--limit", "burst=10000")
    try:
        lines = [first_line(serve) for _ in range(4)]
        url = next(line.split()[-1] for line in lines if line.startswith("listening on "))
        records = next(line.split()[-1] for line in lines if line.startswith("records and standings on "))
        names = {"ana": "<i>Ana</i> & co", "bo": "Bo", "cy": "Cy"}
        for who in names:       # each player's key made once, before they play at once
            player_key(home / who)
        seats = []
        for first, second in (("ana", "bo"), ("bo", "cy"), ("cy", "ana")):
            creator = seat(url, home / first, names[first], "--create", "sanjuan", "--seats", "2", "--bots", "0",
                           "--rated")
            seats += [creator, seat(url, home / second, names[second], "--table", first_line(creator))]
        seats.append(seat(url, home / "dee", "Dee", "--create", "puertorico", "--seats", "2", "--bots", "1",
                          "--rated"))
        for proc in seats:
            assert outcome(proc, timeout=180)["verified"] is True
        wait_for(lambda: len(json.loads(urllib.request.urlopen(records + "records.json").read())["records"]) == 4,
                 timeout=60)
        yield records, names
    finally:
        serve.terminate()
        serve.wait(timeout=30)


def seat(url: str, data: Path, name: str, *args: str) -> subprocess.Popen:
    return governor("join", url, "--bot", "heuristic", "--no-input", "--json", "--pace", "0",
                    "--data-dir", str(data), "--name", name, *args)


@pytest.fixture(scope="module")
def two_hundred(served, tmp_path_factory):
    """200 records: 196 rated matches made in-process (bench/ratings.py) and the 4 of the server."""
    folder = tmp_path_factory.mktemp("two-hundred")
    _bench_ratings().rated_records(folder, 196, seed="suite")
    url, _ = served
    for name in json.loads(urllib.request.urlopen(url + "records.json").read())["records"]:
        (folder / name).write_bytes(urllib.request.urlopen(url + "records/" + name).read())
    assert len(list(folder.iterdir())) == 200
    return folder


def test_200_records_give_the_same_standings_in_any_order_and_on_a_copy(two_hundred, tmp_path):
    copy = tmp_path / "copy"
    copy.mkdir()
    for path in sorted(two_hundred.iterdir(), reverse=True):       # written in the other order
        shutil.copyfile(path, copy / path.name)
    # The records audited once (each audit is some 50 ms: the suite's time), then the standings
    # computed from them in three orders, and `governor ratings` run on the copy.
    judged = judge_all((p.name, p.read_bytes()) for p in sorted(two_hundred.iterdir()))
    orders = [judged, judged[::-1], random.Random(3).sample(judged, len(judged))]
    texts = {standings(list(j)).text() + "\n" for j in orders}
    dumped = {json.dumps(standings(list(j)).as_dict(), sort_keys=True, ensure_ascii=False) for j in orders}
    code, out, _ = ratings(str(copy))
    assert code == 0
    assert texts == {out} and len(dumped) == 1
    assert "200 records: 199 counted, 1 left out" in out       # the match with a computer player
    tables = standings(judged).as_dict()["games"]
    assert tables["sanjuan"]["matches"] + tables["puertorico"]["matches"] == 199
    assert sum(p["games"] for g in tables.values() for p in g["players"]) == sum(
        len(j.match.keys) for j in judged if j.match is not None)


def test_a_tampered_record_is_named_and_left_out(two_hundred, tmp_path):
    names = sorted(p.name for p in two_hundred.iterdir() if p.name.startswith("match-"))[:6]
    for name in names:
        shutil.copyfile(two_hundred / name, tmp_path / name)
    items = record.loads((two_hundred / names[2]).read_bytes())
    forged = items[7].sig[:10] + bytes([items[7].sig[10] ^ 1]) + items[7].sig[11:]
    items[7] = Signed(items[7].kind, items[7].payload, forged, items[7].body)
    (tmp_path / names[2]).write_bytes(record.dumps(items))
    code, out, _ = ratings(str(tmp_path), "--json")
    result = json.loads(out)
    assert code == 1
    assert result["counted"] == 5 and [(j["record"], j["verdict"]) for j in result["left_out"]] == [(names[2], "failed")]
    assert result["left_out"][0]["why"].startswith("entry 7 ")
    assert sum(g["matches"] for g in result["games"].values()) == 5
    honest = standings(judge_all((n, (two_hundred / n).read_bytes()) for n in names if n != names[2])).as_dict()
    assert result["games"] == honest["games"]      # as if the tampered record were not there


def test_the_standings_page_in_a_real_browser_shows_what_ratings_computes(served):
    url, names = served
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.fail("Chromium is not installed, and the standings page is tested in it: install it with "
                    "`apt-get install chromium` (`make test` does, when run as root)")
    shown = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", url],
                           capture_output=True, text=True, timeout=120)
    assert shown.returncode == 0, shown.stderr[-2000:]
    page = Page()
    page.feed(shown.stdout)
    code, out, _ = ratings(url, "--json")
    assert code == 0
    computed = json.loads(out)
    assert page.tables == {game: [[str(p["rank"]), p["name"], p["fingerprint"], p["rating"], str(p["games"])]
                                  for p in g["players"]] for game, g in computed["games"].items()}
    assert computed["games"]["sanjuan"]["matches"] == 3 and "puertorico" not in computed["games"]
    assert {row[1] for row in page.tables["sanjuan"]} == {names["ana"], "Bo", "Cy"}
    assert "i" not in page.elements            # a name is text, never markup
    assert [row[1] for row in page.records].count("yes") == 3
    [unrated] = [row for row in page.records if row[1] != "yes"]
    assert unrated[1] == "no: not rated, seat 2 (Bot 2) was a computer player"


class Page(HTMLParser):
    """The standings tables of a page as the browser holds it (rows of cell texts), its records
    table, and every element's name."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self.records: list[list[str]] = []
        self.elements: set[str] = set()
        self._rows: list[list[str]] | None = None
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        self.elements.add(tag)
        attrs = dict(attrs)
        if tag == "table":
            self._rows = self.tables.setdefault(attrs["data-game"], []) if attrs.get("class") == "standings" \
                else self.records
        elif tag == "tr" and self._rows is not None:
            self._rows.append([])
        elif tag == "td":
            self._cell = []

    def handle_endtag(self, tag):
        if tag == "td" and self._cell is not None:
            self._rows[-1].append("".join(self._cell))
            self._cell = None
        elif tag == "table":
            self._rows[:] = [row for row in self._rows if row]     # the head's row has no cells
            self._rows = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def test_a_match_a_player_never_signed_is_not_counted():
    """A server can make the seed and the moves of a player away; a match whose player never
    signed their commitment to it does not show that player ever sat there."""
    bench = _bench_ratings()
    signed, unsigned = bench.rated_match("away", 0), bench.rated_match("away", 0, away=(1,))
    assert judge("a.govrec", signed).verdict == "counted"
    judged = judge("b.govrec", unsigned)
    name = record.loads(unsigned)[0].body["seats"][1]["name"]
    assert (judged.verdict, judged.why) == ("not rated", f"{name} (seat 2) never signed this match: the server made "
                                                         "their seed, so the record does not show they played")
    assert verify(record.loads(unsigned)).ok        # an honest record all the same


def test_a_record_whose_first_item_is_a_private_message_is_judged_by_its_header(unrated):
    """The audit takes a record's private messages wherever they stand among its entries: a
    file that starts with one is judged like the same record in order."""
    items = record.loads(unrated)
    first_private = next(i for i, m in enumerate(items) if m.kind == "private")
    moved = [items[first_private]] + items[:first_private] + items[first_private + 1:]
    assert verify(record.loads(record.dumps(moved))).ok
    judged = judge("moved.govrec", record.dumps(moved))
    assert (judged.verdict, judged.why) == ("not rated", "the table was not rated")
