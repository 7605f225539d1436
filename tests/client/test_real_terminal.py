"""The real program in a real terminal: the installed `governor play` in a pseudo-terminal read
by a terminal emulator (tests/client/real_terminal.py), played with keys as a person types them.
What only the whole program shows: its computer players really think in the bot worker
processes it starts (the full screen must not break them), a whole game reaches its audited end,
the screen follows the terminal's size, and leaving keeps the game for `governor play` to resume."""
import re
import time
import urllib.request

import pytest

from client.answers import QUESTION_SETTLE, SETTLING

from .real_terminal import (ASKING, SIZES, Asked, TerminalError, asked_in_record, first_option, play_args,
                            play_to_the_end, unlike_record, wait_for_table)

# A computer player that could not decide: the table says so and plays a random move for it.
FALLBACK = re.compile(r"failed|random move")
# What the server counts of its bots not thinking in their worker processes (docs/hosting.md).
BOT_TROUBLE = ("governor_bot_failures_total", "governor_bot_pool_failures_total",
               "governor_bot_thread_decisions_total")
LIMIT = 240     # seconds a whole game may take before it is called stuck (not a timing test)
LOG_ROWS = 8    # the log's rows from 100×32 on (client/fullscreen/app.py)
SAME_SIZE = 4   # questions read at one size before the next: a resize redraws everything, which takes time


@pytest.mark.parametrize("game", ["sanjuan", "puertorico"])
def test_a_whole_game_against_a_heuristic_bot_read_at_every_size(real_terminal, game):
    """The questions at the three sizes in turn (the terminal resized between questions):
    what a person needs is all in sight (wait_for_table's checks), and the questions shown are
    the record's, every option in sight or the list's scroll bar."""
    term = real_terminal(play_args("--game", game, "--players", "2", "--bots", "heuristic"), *SIZES[0])
    asked: list[Asked] = []
    played = play_to_the_end(term, limit=LIMIT, at_question=read_at_every_size(game, asked))

    assert played.questions > 10, f"only {played.questions} questions answered:\n{played.end}"
    assert "The match is over. VERIFIED" in played.end, f"no verified end:\n{played.end}"
    # Every decision came from the bot (a heuristic one decides in a thread of the server, at once):
    # none fell back to a random move.
    fallbacks = sorted(line for line in played.seen if FALLBACK.search(line))
    assert not fallbacks, "a computer player fell back to random moves:\n" + "\n".join(fallbacks)
    # The server (still up while the end is shown) counted no failure and no decision in a thread.
    assert term.port() is not None, term.output[-2000:]
    counted = bot_trouble(term.port())
    assert not any(counted.values()), counted

    term.enter()        # closes the end screen
    assert term.wait_exit() == 0, term.text()
    records = list((term.home / "client" / "records").glob("*.govrec"))
    assert len(records) == 1, records
    assert {a.size for a in asked} == set(SIZES), [a.size for a in asked]
    seat = int(re.search(r"seat (\d+)", asked[0].screen).group(1)) - 1     # the status line's
    problems = unlike_record(asked, asked_in_record(records[0], seat))
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("game", ["sanjuan", "puertorico"])
def test_a_searching_bot_thinks_in_the_bot_worker_processes(real_terminal, game):
    """The full screen must not break the worker processes: against `ismcts`, its searches run
    in workers started under governor, and none failed, fell back to a thread or to a random move
    (with the pool failing to start under Textual, every one of these fails)."""
    term = real_terminal(play_args("--game", game, "--players", "2", "--bots", "ismcts"), *SIZES[1])
    played = play_to_the_end(term, limit=LIMIT, questions=6)
    assert played.questions == 6 and not played.end, played.end
    assert played.workers >= 1, (f"no bot worker process ever ran under governor (pid {term.pid}); "
                                 f"its processes now: {term.descendants()}\n{term.text()}")
    fallbacks = sorted(line for line in played.seen if FALLBACK.search(line))
    assert not fallbacks, "a computer player fell back to random moves:\n" + "\n".join(fallbacks)
    counted = bot_trouble(term.port())
    assert not any(counted.values()), counted
    term.type("q")
    term.wait_for("Leave this game?")
    term.type("y")
    assert term.wait_exit() == 0, term.text()


def read_at_every_size(game: str, asked: list[Asked]):
    """play_to_the_end's reader of each question: the terminal at the next size every SAME_SIZE
    questions, the table drawn whole there (a log of LOG_ROWS rows from 100×32 on, holding text
    from the third question), the question kept in `asked`."""
    def at_question(term, text: str) -> str:
        cols, rows = SIZES[len(asked) // SAME_SIZE % len(SIZES)]
        if (term.screen.columns, term.screen.lines) != (cols, rows):
            term.resize(cols, rows)
        big = cols >= 100 and rows >= 32
        table = wait_for_table(term, f"question {len(asked) + 1} drawn whole at {cols}×{rows}", game=game,
                               log_rows=LOG_ROWS * big, logged=LOG_ROWS * (big and len(asked) >= 2))
        asked.append(Asked((cols, rows), table.words, table.numbers, table.scrolls, table.look.text))
        return table.look.text
    return at_question


def test_the_screen_follows_the_terminal_and_a_left_game_resumes(real_terminal):
    """Resized while a question is open, the table draws the question and its keys at each size;
    q and y leave, and the next `governor play` in the same home offers the game back."""
    term = real_terminal(play_args("--players", "2", "--bots", "heuristic"), *SIZES[-1])
    first = term.wait_for("your turn")
    table = re.search(r"table (\w+)", first).group(1)
    question = _question_line(first)
    with pytest.raises(TerminalError) as failed:       # a wait that fails shows what was on the screen
        term.wait_for("words no screen shows", timeout=0.5)
    assert "'words no screen shows'" in str(failed.value) and f"table {table}" in str(failed.value)
    for cols, rows in SIZES:       # from the largest to the smallest, and up again
        term.resize(cols, rows)
        # The status on the first row, the question, its keys on the last row: all in sight.
        term.wait_until(lambda: "your turn" in (shown := term.lines())[0] and ASKING.search(shown[-1])
                        and question in "\n".join(shown),
                        f"the status, the question {question!r} and its keys at {cols}×{rows}")

    term.type("q")
    term.wait_for("Leave this game?")
    term.type("y")
    assert term.wait_exit() == 0, term.text()
    assert "The game is saved" in term.flowing() and "offers to resume it" in term.flowing(), term.text()

    again = real_terminal(play_args(new=False), 80, 24, home=term.home)
    again.wait_for("Resume it? [Y/n]")
    again.enter()
    again.wait_for(f"table {table}")
    again.wait_for("your turn")
    again.type("q")
    again.wait_for("Leave this game?")
    again.type("y")
    assert again.wait_exit() == 0, again.text()


@pytest.mark.parametrize("game", ["sanjuan", "puertorico"])
def test_a_narrow_terminal_still_shows_the_question_and_its_keys(real_terminal, game):
    """A pane of tmux, 60×20: every question drawn with its status, words, options (or their
    scroll bar) and keys line, the program playing on without an error, and leaving cleanly."""
    term = real_terminal(play_args("--game", game, "--players", "2", "--bots", "heuristic"), 60, 20)
    read = []

    def at_question(term, text: str) -> str:
        read.append(wait_for_table(term, f"question {len(read) + 1} drawn whole at 60×20", game=game))
        return read[-1].look.text
    played = play_to_the_end(term, at_question=at_question, questions=8)
    assert played.questions == 8 and not played.end, played.end
    term.type("q")
    term.wait_for("Leave this game?")
    term.type("y")
    assert term.wait_exit() == 0, term.text()
    assert b"Traceback" not in term.output, term.output[-3000:].decode(errors="replace")


# The settle window, as a person meets it: keys pressed this long after an answer (a second
# Enter, a number typed for the question before) land on the question the bots' quick moves
# bring, and must not answer it.
STRAYS = ((0.1, "enter"), (0.2, "2"), (0.3, "enter"))


def test_keys_just_after_an_answer_never_answer_the_next_question(real_terminal):
    """Full screen, against bots that move at once: after each Enter that answers, an Enter, a
    number and an Enter 0.1, 0.2 and 0.3 s later. The server gets the one answer; the next
    question stays open, and says it ignored a key; once settled, an Enter answers it."""
    term = real_terminal(play_args("--players", "2", "--bots", "random"), *SIZES[1])
    table = wait_for_table(term, "the first question")
    sent = answers(term)
    noted = 0
    for round in range(1, 4):
        keys = first_option(term, table.look.text)      # ends with the Enter that answers
        term.type(*keys[:-1])
        term.type_at((0.0, keys[-1]), *STRAYS)
        table = wait_for_table(term, f"the question after answer {round}, settled")
        assert answers(term) == sent + 1, f"round {round}: {answers(term) - sent} answers:\n{table.look.text}"
        sent += 1
        noted += SETTLING in table.look.text
    # A key that came before the next question opened is dropped without a word; one after, with one.
    assert noted, "no question said it ignored a key"
    term.type(*first_option(term, table.look.text))
    term.wait_until(lambda: answers(term) == sent + 1, "the answer to a settled question")


def test_a_line_just_after_an_answer_never_answers_the_next_question_in_plain_mode(real_terminal):
    """`--plain`: a line typed 0.2 s after an answer is dropped, with a note saying so, and the
    server gets the one answer; a line typed once the next question settled answers it."""
    term = real_terminal(play_args("--players", "2", "--bots", "random", "--plain"), 100, 40)
    for round in range(1, 3):
        prompt(term)
        sent = answers(term)
        typed = len(term.output)
        term.type_at(*((0.0, key) for key in plain_answer(term.text())), (0.0, "enter"), (0.2, "1"), (0.2, "enter"))
        prompt(term)
        said = term.output[typed:].decode(errors="replace")
        assert re.search(r'\(Ignored "1": (this question had just appeared|typed before this question appeared)',
                         said), f"round {round}: no note of the line ignored:\n{term.text()}"
        assert answers(term) == sent + 1, f"round {round}: {answers(term) - sent} answers:\n{term.text()}"


def plain_answer(screen: str) -> str:
    """Keys that answer the plain mode's question on the screen, as its instruction line asks
    (client/render.py how_to_answer): the first options, as many as it needs; nothing where
    there is nothing to choose."""
    how = [line for line in screen.splitlines() if line.startswith(("Type ", "Nothing to choose"))][-1]
    if how.startswith("Nothing"):
        return ""
    need = re.match(r"Type (\d+)", how)
    return " ".join(str(n) for n in range(1, int(need.group(1)) + 1)) if need else "1"


def prompt(term) -> None:
    """Wait for the plain mode's prompt, then as long as a question takes to settle."""
    term.wait_until(lambda: term.lines()[term.screen.cursor.y].startswith(">"), "the prompt")
    time.sleep(QUESTION_SETTLE + 0.1)
    term.wait_until(lambda: term.lines()[term.screen.cursor.y].startswith(">"), "the prompt, settled")


def answers(term) -> int:
    """The answers the server got from its clients (acts, /metrics): the person's, bots' are not sent."""
    with urllib.request.urlopen(f"http://127.0.0.1:{term.port()}/metrics", timeout=10) as r:
        found = re.search(r'^governor_messages_total\{type="act"\} (\d+)', r.read().decode(), re.M)
    return int(found.group(1)) if found else 0


def bot_trouble(port: int) -> dict[str, float]:
    """The server's /metrics: each BOT_TROUBLE family's samples added up."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
        text = r.read().decode()
    found = dict.fromkeys(BOT_TROUBLE, 0.0)
    for line in text.splitlines():
        name = re.split(r"[{ ]", line, maxsplit=1)[0]
        if name in found:
            found[name] += float(line.rsplit(" ", 1)[1])
    assert set(BOT_TROUBLE) <= {line.split()[2] for line in text.splitlines() if line.startswith("# TYPE")}, text
    return found


def _question_line(screen: str) -> str:
    """The question's words: the line under the rule above the question (without the log
    beside it, and without the mark of a question too new to answer)."""
    lines = screen.splitlines()
    at = next(i for i, line in enumerate(lines) if "────" in line)
    return lines[at + 1].split("│")[0].replace("new question", "").strip()[:30]
