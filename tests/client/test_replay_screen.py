"""`governor replay` on the table's screen, headless through Textual's pilot: a real record (a
selfplay match, audited) stepped through with the keys a person would press, the board and the
log on the screen at each step as the record's holder saw them; `--plain` on every command
that has a full screen."""
import ast
import io
import re
import unicodedata
from pathlib import Path

import pytest
from rich.text import Text

import bots
from client.cli import COMMANDS, main, parser
from client.fullscreen.replay import ReplayApp
from client.replay import frames
from client.session import save_record
from protocol import record
from protocol.harness import play_match

from .screens import screen_text

ROOT = Path(__file__).resolve().parents[2]
COMFY = (120, 40)


@pytest.fixture(scope="module")
def match(tmp_path_factory):
    folder = tmp_path_factory.mktemp("selfplay")
    assert main(["selfplay", "--players", "2", "--games", "1", "--seed", "replay-screen-3", "--record-dir",
                 str(folder)]) == 0
    return record.read(folder / "game-0.govrec")


def plain(text: str) -> str:
    return Text.from_ansi(text).plain


def flat(text: str) -> str:
    """Spaces collapsed: the log pane wraps a line wherever its width falls."""
    return " ".join(text.split())


def log_pane(app) -> str:
    """The log pane's part of each row (right of the question box's `│`), joined."""
    return flat(" ".join(row.split("│", 1)[1] for row in screen_text(app).splitlines() if "│" in row))


def shows(app, steps, at: int) -> None:
    """The screen is step `at`: its title in the status line, its board (its first lines: the
    rest may scroll), and the last lines of the log up to it."""
    step = steps[at]
    text = screen_text(app)
    assert app.at == at and app.view is step.view
    assert text.splitlines()[0].endswith(step.title)
    for line in plain(step.board).splitlines()[:2]:         # a narrow screen wraps them
        assert flat(line) in flat(text), f"{line!r} of step {at} not on the screen:\n{text}"
    logged = [plain(line) for s in steps[:at + 1] for line in s.log]
    assert [t.plain for t in app.logged] == logged
    if logged and not step.result:     # the end shows the score table instead of the log
        assert flat(logged[-1]) in log_pane(app)


async def test_replay_steps_through_a_record_on_the_table_screen(match):
    steps, names = frames(match, 0, True)
    app = ReplayApp(steps, f"Replay of San Juan, {', '.join(names)}: as {names[0]} saw it")
    last = len(steps) - 1
    async with app.run_test(size=COMFY) as pilot:
        await pilot.pause()
        shows(app, steps, 0)
        assert "Your hand" in screen_text(app) and "Asked: Choose a role." in screen_text(app)
        await pilot.press("right")
        await pilot.pause()
        shows(app, steps, 1)
        await pilot.press("n", "n", "enter")
        await pilot.pause()
        shows(app, steps, 4)
        await pilot.press("left", "p")
        await pilot.pause()
        shows(app, steps, 2)
        await pilot.press("end")
        await pilot.pause()
        shows(app, steps, last)
        assert "total" in screen_text(app) and "Winner" in screen_text(app)    # the score table
        await pilot.press("right")              # past the last move: it stays there
        await pilot.pause()
        shows(app, steps, last)
        await pilot.press("home")
        await pilot.pause()
        shows(app, steps, 0)
        assert app.logged == [] and "total" not in screen_text(app)
        await pilot.press("left")               # before the deal: it stays there
        await pilot.pause()
        shows(app, steps, 0)
        await pilot.press("question_mark", *"tower", "enter")    # `?` and a name, as at the table
        await pilot.pause()
        assert "Tower" in screen_text(app) and app.at == 0
        await pilot.press("escape", "q")
    assert app.return_code == 0


async def test_a_spectator_replay_shows_no_hand_and_fits_80_by_24(match):
    steps, _ = frames(match, None, True)
    app = ReplayApp(steps, "a spectator")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("end")
        await pilot.pause()
        shows(app, steps, len(steps) - 1)
        assert "Your hand" not in screen_text(app)
        assert screen_text(app).splitlines()[-1].endswith("q quit")     # the keys line, whole
        await pilot.press("q")


def test_replay_plain_steps_in_lines(match, tmp_path, monkeypatch, capsys):
    save_record(tmp_path, match, match[0].body["game_id"])
    monkeypatch.setattr("sys.stdin", io.StringIO("n\nq\n"))
    assert main(["replay", "1", "--plain", "--data-dir", str(tmp_path)]) == 0
    titles = re.findall(r"— (The deal|Move \d+) ", capsys.readouterr().out)
    assert titles == ["The deal", "Move 1"]


def _uses_the_full_screen(name: str) -> bool:
    tree = ast.parse((ROOT / "client" / f"{name}.py").read_text())
    return any(isinstance(n, ast.ImportFrom) and n.level == 1 and n.module is None
               and any(a.name == "fullscreen" for a in n.names) for n in ast.walk(tree))


def test_every_command_with_a_full_screen_takes_plain():
    with_screen = [name for name in COMMANDS if _uses_the_full_screen(name)]
    assert {"play", "join", "watch", "replay"} <= set(with_screen)
    commands = parser()._subparsers._group_actions[0].choices
    for name in with_screen:
        assert "--plain" in commands[name]._option_string_actions, name


def test_replay_prints_a_hostile_records_names_without_control_characters(tmp_path, monkeypatch, capsys):
    """A record signed by a hostile server may hold any name: replay prints none of its escape
    sequences (the heading, the board, the log, the result)."""
    evil = "Ev\x1b[2Jil\x07"
    bot = bots.make("sanjuan", "random", "hostile")
    _, players = play_match("sanjuan", [evil, "Bo"], {}, [bot.choose, bot.choose], "hostile-replay")
    items = players[0].record
    save_record(tmp_path, items, items[0].body["game_id"])
    monkeypatch.setattr("sys.stdin", io.StringIO("n\nn\nq\n"))
    assert main(["replay", "1", "--plain", "--data-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "Ev[2Jil" in out
    assert not [c for c in out if unicodedata.category(c) == "Cc" and c != "\n"], repr(out[:400])
