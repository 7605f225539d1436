"""Records a person can find and step through: named by date, game, players and short id;
`governor records` lists them with scores, winner and verdict; `governor replay` steps through
one, forward and back, as its holder saw it."""
import io
import re

import pytest

from client.cli import main
from client.replay import frames
from client.session import save_record
from protocol import record
from protocol.messages import Signed
from protocol.signing import fingerprint


@pytest.fixture(scope="module")
def match(tmp_path_factory):
    """The signed messages of a 2-player San Juan match between bots, every seat's included."""
    folder = tmp_path_factory.mktemp("selfplay")
    assert main(["selfplay", "--players", "2", "--games", "1", "--seed", "records", "--record-dir", str(folder)]) == 0
    return record.read(folder / "game-0.govrec")


def _game_id(items):
    return items[0].body["game_id"]


def _public(items):
    """What a spectator keeps: the entries only."""
    return [m for m in items if m.kind == "entry"]


def test_a_record_is_named_for_people(match, tmp_path):
    path = save_record(tmp_path, match, _game_id(match))
    names = "-".join(s["name"] for s in match[0].body["seats"])
    assert re.fullmatch(rf"\d{{4}}-\d\d-\d\d_\d{{4}}_sanjuan_{names}_{_game_id(match).hex()[:8]}\.govrec", path.name)
    assert save_record(tmp_path, match, _game_id(match)) == path          # saved again: the same file
    assert save_record(tmp_path, _public(match), _game_id(match), "public") != path


def test_records_lists_date_game_players_scores_winner_verdict(match, tmp_path, capsys):
    save_record(tmp_path, match, _game_id(match))
    save_record(tmp_path, _public(match), _game_id(match), "public")
    (tmp_path / "records" / "junk.govrec").write_bytes(b"not a record")
    assert main(["records", "--data-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if re.match(r"\s*\d+\. ", line)]
    assert len(lines) == 3
    # each name with its player key's short fingerprint beside it
    names = [f"{s['name']} [{':'.join(fingerprint(s['key']).split(':')[:4])}]" for s in match[0].body["seats"]]
    mine = next(line for line in lines if "San Juan " in line and "watched" not in line)
    assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d  San Juan  ", mine)
    assert all(f"{n} (" in mine for n in names) and "winner: " in mine and mine.endswith(
        f"verified  [{_game_id(match).hex()[:8]}]")
    watched = next(line for line in lines if "watched" in line)
    assert "verified (public part)" in watched
    assert any("junk.govrec: not a readable record" in line for line in lines)
    assert "replay 1" in out


def test_a_tampered_record_is_listed_as_failed_and_not_replayed(match, tmp_path, capsys):
    end = match[-2] if match[-1].kind == "private" else match[-1]
    # Only the payload is written to the file: the body decoded from the untouched one may stay.
    forged = [m if m is not end else Signed(m.kind, m.payload.replace(b"Bo", b"Bx", 1) if b"Bo" in m.payload
                                             else m.payload[:-1] + bytes([m.payload[-1] ^ 1]), m.sig, m.body)
              for m in match]
    record.write(tmp_path / "records" / "forged.govrec", forged)
    assert main(["records", "--data-dir", str(tmp_path)]) == 0
    line = next(line for line in capsys.readouterr().out.splitlines() if "forged" in line or "FAILED" in line)
    # What failed and where, as the audit says it; no winner and no scores that it does not prove.
    assert re.search(r"FAILED audit: entry \d+ \((final|move by \w+)\): .+\[", line), line
    assert "winner" not in line and "not finished" not in line and not re.search(r"\w \(\d+\)", line)
    assert main(["replay", "forged", "--data-dir", str(tmp_path)]) == 1
    assert "does not pass its audit: it is not replayed" in capsys.readouterr().err


def test_no_records_yet(tmp_path, capsys):
    assert main(["records", "--data-dir", str(tmp_path)]) == 0
    assert "No match records yet" in capsys.readouterr().out
    assert main(["replay", "1", "--data-dir", str(tmp_path)]) == 2
    assert "no saved records" in capsys.readouterr().err


def _replay(monkeypatch, capsys, keys: str, *args) -> str:
    monkeypatch.setattr("sys.stdin", io.StringIO(keys))
    assert main(["replay", *args]) == 0
    return capsys.readouterr().out


def test_replay_steps_forward_and_back(match, tmp_path, monkeypatch, capsys):
    save_record(tmp_path, match, _game_id(match))
    out = _replay(monkeypatch, capsys, "\nn\np\nzz\nq\n", "1", "--data-dir", str(tmp_path))
    titles = re.findall(r"— (The deal|Move \d+ of \d+: [^—]+) —", out)
    assert [t.split(":")[0] for t in titles] == ["The deal", f"Move 1 of {len(titles) and _moves(match)}",
                                                 f"Move 2 of {_moves(match)}", f"Move 1 of {_moves(match)}"]
    assert "'zz': type Enter or n for the next move" in out
    first = match[0].body["seats"][0]["name"]
    assert f"as {first} saw it" in out and "Your hand" in out and "Log (latest last):" in out


def test_replay_reaches_the_end_and_shows_the_scores(match, tmp_path, monkeypatch, capsys):
    path = save_record(tmp_path, match, _game_id(match))
    n = _moves(match)
    out = _replay(monkeypatch, capsys, f"{n}\n\n", str(path), "--data-dir", str(tmp_path))   # then EOF: quit
    assert f"Move {n} of {n}" in out and "That was the last move" in out and "total" in out


def test_each_seat_and_a_spectator_see_their_own_board(match):
    steps = {seat: frames(match, seat)[0] for seat in (0, 1, None)}
    assert steps[0][0].board != steps[1][0].board          # each its own hand
    assert "Your hand" not in steps[None][0].board          # a spectator has none
    assert len(steps[0]) == len(steps[None]) == _moves(match) + 1
    public = frames(_public(match), None)[0]
    assert [f.board for f in public] == [f.board for f in steps[None]]


def test_replay_seat_out_of_range(match, tmp_path, capsys):
    path = save_record(tmp_path, match, _game_id(match))
    assert main(["replay", str(path), "--seat", "9"]) == 2
    assert "this match has seats 1 to 2" in capsys.readouterr().err


def _moves(items) -> int:
    entries = [m for m in items if m.kind == "entry"]
    return len(entries[-1].body["moves"])
