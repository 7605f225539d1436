"""`governor play` keeps its game in the client's data folder: leave it, and the next start
offers to resume it, on whatever port its server gets this time."""
import json
import re

from tests.client.test_play import governor


def test_a_game_left_is_offered_again_and_plays_to_its_end(tmp_path):
    first = governor(tmp_path, "--players", "2", stdin="q\ny\n")
    assert first.returncode == 0, first.stderr
    assert "You left the game. The game is saved:" in first.stdout
    assert (tmp_path / "server").is_dir()

    again = governor(tmp_path, "--auto", stdin="y\n")       # a bot types the answers
    assert again.returncode == 0, again.stderr
    out = again.stdout
    assert "You have an unfinished game:" in out and "San Juan, 2 seats" in out
    assert "Resuming your seat" in out
    assert "Match record saved:" in out and "verified" in out.lower()
    assert "Traceback" not in out + again.stderr
    sessions = [json.loads(p.read_text()) for p in (tmp_path / "sessions").glob("*.json")]
    assert all(s["finished"] for s in sessions)     # a finished seat is kept as finished, or removed

    third = governor(tmp_path, "--players", "2", stdin="q\ny\n")     # nothing left to resume
    assert third.returncode == 0, third.stderr
    assert "unfinished game" not in third.stdout


def test_declining_or_new_starts_another_game(tmp_path):
    assert governor(tmp_path, "--players", "2", stdin="q\ny\n").returncode == 0
    fresh = governor(tmp_path, "--players", "2", "--new", stdin="q\ny\n")
    assert "unfinished game" not in fresh.stdout and "You are seat 1" in fresh.stdout
    declined = governor(tmp_path, "--players", "2", stdin="n\nq\ny\n")
    assert "You have unfinished games that match:" in declined.stdout     # both games are kept
    assert re.findall(r"\n  (\d)\. \S+  San Juan, 2 seats", declined.stdout) == ["1", "2"]
    assert "You are seat 1" in declined.stdout


def _offered(out: str) -> list[str]:
    """The games a `governor play` offered to resume, as described."""
    one = re.findall(r"You have an unfinished game: \S+  ([^;]+);", out)
    several = re.findall(r"\n  \d\. \S+  ([^;]+);", out)
    return one + several


def test_only_games_that_match_what_was_asked_are_offered(tmp_path):
    """Each flag given narrows the games offered (game, players, options, computer players); a
    game that does not match is never offered, not even by default; several are listed to pick."""
    assert governor(tmp_path, "--players", "2", stdin="q\ny\n").returncode == 0           # A: 2 seats, heuristic
    three = governor(tmp_path, "--players", "3", stdin="q\ny\n")                          # B: 3 seats
    assert _offered(three.stdout) == [] and "(1 other unfinished game of yours does not match" in three.stdout
    expansion = governor(tmp_path, "--players", "2", "--expansion", stdin="q\ny\n")       # C: A's, with the expansion
    assert _offered(expansion.stdout) == [] and "(2 other unfinished games" in expansion.stdout
    random = governor(tmp_path, "--bots", "random", stdin="q\ny\n")                       # E: 2 seats, random
    assert _offered(random.stdout) == [] and "(3 other unfinished games" in random.stdout
    assert _offered(governor(tmp_path, "--game", "puertorico", stdin="q\ny\n").stdout) == []   # F

    asked_two = governor(tmp_path, "--players", "2", "--level", "heuristic", stdin="n\nq\ny\n").stdout
    assert len(_offered(asked_two)) == 2       # A and C: two seats, a heuristic player; not E
    assert all(g.startswith("San Juan, 2 seats, 1 computer (heuristic)") for g in _offered(asked_two))
    assert "Resume which (1-2), or n for a new game?" in asked_two
    with_expansion = governor(tmp_path, "--expansion", "--players", "2", stdin="y\nq\ny\n").stdout
    [c] = _offered(with_expansion)
    assert "Resume it? [Y/n]" in with_expansion and c.endswith("[expansion]")
    assert "Resuming your seat" in with_expansion
    three_again = governor(tmp_path, "--players", "3", stdin="x\ny\nq\ny\n").stdout
    assert [g.split(",")[:2] for g in _offered(three_again)] == [["San Juan", " 3 seats"]]
    assert "'x' is not an answer" in three_again and "Resuming your seat" in three_again
    everything = governor(tmp_path, stdin="n\nq\ny\n").stdout      # nothing asked: every game of yours
    assert len(_offered(everything)) == 6     # A, B, C, E, F and the one asked_two started


def test_a_second_play_on_the_same_folder_plays_but_cannot_be_resumed(tmp_path):
    import fcntl
    (tmp_path / "server").mkdir()
    with open(tmp_path / "server" / "server.lock", "a+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)      # what a running `governor play` holds
        proc = governor(tmp_path, "--players", "2", stdin="q\ny\n")
    assert proc.returncode == 0, proc.stderr
    assert "is kept in a temporary folder and cannot be resumed" in proc.stderr
    assert "If you leave, the game is abandoned: it cannot be resumed." in proc.stdout
    assert not list((tmp_path / "sessions").glob("*.json"))        # nothing offered next time


def _log_lines(tmp_path) -> list[str]:
    """The texts of the log the seat's session keeps; [] until it has one."""
    logs = list((tmp_path / "sessions").glob("*.log"))
    if not logs:
        return []
    texts = []
    for line in logs[0].read_text().splitlines():
        try:
            texts.append(json.loads(line)["text"])
        except ValueError:
            break                       # a line torn by the kill: what came before it is whole
    return texts


def test_a_killed_play_offers_its_game_again_with_the_whole_log(tmp_path):
    """SIGKILL well into a game (a bot typing the answers): the next start offers the game, and
    the resumed screen's log holds the game from its start, not only the server snapshot's latest
    events, each event once."""
    import os
    import signal
    import subprocess
    import sys
    import time
    from server.table_core import EVENTS_IN_SNAPSHOT
    from tests.client.test_play import ROOT
    env = {**os.environ, "NO_COLOR": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "client", "play", "--port", "0", "--data-dir", str(tmp_path),
                             "--players", "4", "--auto"], cwd=ROOT, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            start_new_session=True)      # its group: the computer players' workers too
    try:
        while len(_log_lines(tmp_path)) <= EVENTS_IN_SNAPSHOT + 10 and proc.poll() is None:
            time.sleep(0.05)            # waiting for the game to get there, not timing it
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate(timeout=60)
    assert "> " in out and "Traceback" not in err          # it had answered questions
    kept = _log_lines(tmp_path)
    assert len(kept) > EVENTS_IN_SNAPSHOT + 10, out[-2000:] + err

    again = governor(tmp_path, stdin="y\n")
    assert again.returncode == 0, again.stderr
    shown = again.stdout
    assert "You have an unfinished game:" in shown and "Resuming your seat" in shown
    early = "\n".join(f"  {text}" for text in kept[:EVENTS_IN_SNAPSHOT])
    assert shown.count(early) == 1, shown[:3000]       # the start of the game, in order, once
    late = "\n".join(f"  {text}" for text in kept[-10:])
    assert shown.count(late) == 1                      # the snapshot's events are not shown twice
    assert "Traceback" not in shown + again.stderr
