"""`governor selfplay`: JSON lines, byte-for-byte repeatable, every game played through the fair
exchange and its record audited independently (protocol.verify replays it through the engine)."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from client.cli import main
from protocol import record
from protocol.verify import verify

ROOT = Path(__file__).resolve().parents[2]
ARGS = ["selfplay", "--game", "sanjuan", "--players", "3", "--games", "3", "--seed", "7", "--json"]
FIELDS = {"seed", "game", "players", "bots", "options", "decisions", "scores", "tiebreak", "winners", "verified"}


def run(capsys, args) -> str:
    assert main(args) == 0
    return capsys.readouterr().out


def records(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines()]


def audited(out: str, record_dir: Path) -> list[tuple[dict, object]]:
    """Each printed game with the audit of the record written for it."""
    return [(r, verify(record.read(record_dir / f"game-{i}.govrec"))) for i, r in enumerate(records(out))]


def same_result(r: dict, report) -> bool:
    return report.ok and [s["total"] for s in r["scores"]] == report.scores and r["winners"] == report.winners


def test_json_lines_have_the_fields(capsys):
    out = run(capsys, ARGS)
    recs = records(out)
    assert len(recs) == 3
    for i, r in enumerate(recs):
        assert set(r) == FIELDS
        assert r["seed"] == f"7/{i}" and r["players"] == 3 and r["bots"] == ["random"] * 3
        assert r["options"] == {"expansion": False, "setup_variant": False}
        assert [s["name"] for s in r["scores"]] == ["Ana", "Bo", "Cy"]
        for s in r["scores"]:
            assert s["total"] == sum(s["parts"].values())
        assert r["winners"] and all(0 <= w < 3 for w in r["winners"])
    # Compact and sorted: each line is exactly what json.dumps makes of it.
    for line, r in zip(out.splitlines(), recs):
        assert line == json.dumps(r, sort_keys=True, separators=(",", ":"))


def test_same_arguments_same_bytes_and_seeds_differ(capsys):
    first = run(capsys, ARGS)
    assert run(capsys, ARGS) == first
    other = run(capsys, [*ARGS[:-2], "8", "--json"])
    assert other != first
    games = records(first)
    assert games[0] != games[1]  # the games of one run differ too


@pytest.mark.parametrize("extra", [[], ["--expansion"], ["--setup-variant", "--players", "2"]])
def test_games_end_verified_and_records_replay_to_the_same_scores(capsys, tmp_path, extra):
    args = ["selfplay", "--games", "2", "--seed", "x", "--json", "--record-dir", str(tmp_path), *extra]
    for r, report in audited(run(capsys, args), tmp_path):
        assert r["verified"] is True
        assert same_result(r, report), report.text()
        assert len(report.seats_checked) == r["players"]  # the full record: every seat's cards
        assert r["options"]["expansion"] == ("--expansion" in extra)


def test_records_are_repeatable_byte_for_byte(capsys, tmp_path):
    run(capsys, ["selfplay", "--games", "1", "--seed", "r", "--record-dir", str(tmp_path / "a")])
    run(capsys, ["selfplay", "--games", "1", "--seed", "r", "--record-dir", str(tmp_path / "b")])
    assert (tmp_path / "a" / "game-0.govrec").read_bytes() == (tmp_path / "b" / "game-0.govrec").read_bytes()
    assert main(["verify", str(tmp_path / "a" / "game-0.govrec")]) == 0


def test_human_summary(capsys):
    out = run(capsys, ["selfplay", "--games", "2", "--seed", "3"])
    lines = out.splitlines()
    assert len(lines) == 2 and lines[0].startswith("seed 3/0: ") and "*" in lines[0]


@pytest.mark.parametrize("args, sentence", [
    (["--players", "5"], "San Juan is for 2 to 4 players, not 5"),
    (["--players", "two"], "invalid int value: 'two'"),
    (["--setup-variant", "--players", "1"], "San Juan is for 2 to 4 players, not 1"),
    (["--games", "0"], "number of games"),
    (["--games", "lots"], "number of games"),
    (["--game", "chess"], "invalid choice"),
    (["--bots", "random,grandmaster"], "not a bot level"),
    (["--bots", "heuristic", "--iterations", "0"], "number of iterations"),
    (["--bots", "heuristic", "--seconds", "soon"], "number of seconds"),
])
def test_bad_arguments_exit_2_with_a_sentence(capsys, args, sentence):
    try:
        code = main(["selfplay", *args])
    except SystemExit as exc:   # refused by the argument parser
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err
    assert sentence in err and "Traceback" not in err


def test_bots_per_seat_imply_the_players_repeat_and_verify(capsys):
    args = ["selfplay", "--bots", "ismcts,heuristic,random", "--iterations", "8", "--games", "2",
            "--seed", "b", "--json", "--expansion"]
    out = run(capsys, args)
    assert run(capsys, args) == out
    for r in records(out):
        assert r["players"] == 3 and r["bots"] == ["ismcts", "heuristic", "random"]
        assert r["verified"] is True


def test_one_level_fills_every_seat(capsys):
    r = records(run(capsys, ["selfplay", "--bots", "heuristic", "--players", "2", "--json"]))[0]
    assert r["players"] == 2 and r["bots"] == ["heuristic", "heuristic"]
    r = records(run(capsys, ["selfplay", "--bots", "heuristic", "--json"]))[0]
    assert r["players"] == 4


def test_bots_and_players_must_agree(capsys):
    assert main(["selfplay", "--bots", "heuristic,random", "--players", "3"]) == 2
    err = capsys.readouterr().err
    assert "2 levels for 3 players" in err


def test_entry_point_in_a_subprocess(capsys):
    proc = subprocess.run([sys.executable, "-m", "client", *ARGS], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == run(capsys, ARGS)
