"""What a line typed in answer to a question means: the option numbers picked, or a sentence
saying why the line does not fit the question. Shared by every screen that asks one."""
from __future__ import annotations

from games.choice import BACK
from games.errors import Refused

from .render import plural

QUIT_WORDS = ("q", "quit", "exit")
# Words that pick nothing, where picking nothing is allowed. An empty line is not one of them:
# one Enter too many must not pass, so picking nothing is always typed on purpose.
NONE_WORDS = ("0", "none", "pass", "-")
NOTHING = "none"    # the answer that picks nothing, as the full screen and --auto send it
# Words that go back to the first step of a decision asked in steps, where the prompt offers it.
BACK_WORDS = ("b", "back")


class BadAnswer(Refused):
    """An answer that does not fit the prompt: it is asked again."""


def number_in(text: str, lo: int, hi: int) -> int | None:
    """The number `text` spells, if it is a plain decimal from lo to hi; else None. Safe for any
    text: "²" is no number here, and thousands of digits are none of a small range (int() of
    more than 4300 digits would raise)."""
    text = text.strip()
    if not (text.isascii() and text.isdigit()):
        return None
    digits = text.lstrip("0") or "0"
    if len(digits) > len(str(hi)):
        return None
    n = int(digits)
    return n if lo <= n <= hi else None


def _need(lo: int, hi: int) -> str:
    if lo == hi:
        return plural(hi, "option") if hi <= 1 else f"exactly {hi} options"
    if lo == 0:
        return f"at most {plural(hi, 'option')}"
    return f"between {lo} and {hi} options"


def going_back(prompt: dict) -> list:
    """The move back, for a line of BACK_WORDS; BadAnswer when the prompt does not offer it."""
    if not prompt.get("back"):
        raise BadAnswer("no_back", "There is nothing to go back to in this question: back is offered "
                        "from the second step of a decision asked in steps.")
    return [BACK]


def parse_answer(text: str, count: int, lo: int, hi: int) -> list[int]:
    """The 0-based option indices in a line like "3" or "1 4 5" (commas work too) for a prompt
    of `count` options asking for lo..hi of them. Raises BadAnswer with a sentence."""
    picks: list[int] = []
    words = text.replace(",", " ").split()
    # An empty line picks nothing only where nothing can be picked: elsewhere one Enter too many
    # would pass. Where a pick is needed, the bounds below say what is.
    if not words and not lo and hi:
        raise BadAnswer("empty_answer", "An empty line is no answer: type 0 or none to pick nothing, "
                        "or the numbers of your picks.")
    if len(words) == 1 and words[0].lower() in NONE_WORDS:
        words = []
    for word in words:
        if not (word.isascii() and word.isdigit()):
            shown = word if len(word) <= 20 else word[:17] + "..."
            raise BadAnswer("bad_answer", f'"{shown}" is not an option number: type numbers like 2 or 1 3.')
        # A number longer than the largest option is none of them; int() of thousands of digits
        # would also raise (Python limits the digits it converts).
        digits = word.lstrip("0") or "0"
        n = int(digits) if len(digits) <= len(str(count)) else count + 1
        if not 1 <= n <= count:
            shown = n if n <= count else (word if len(word) <= 20 else word[:17] + "...")
            raise BadAnswer("bad_answer", f"There is no option {shown}: the options go from 1 to {count}."
                            if count else "There are no options here: press Enter to go on.")
        if n - 1 in picks:
            raise BadAnswer("bad_answer", f"You picked option {n} twice: each option can be picked once.")
        picks.append(n - 1)
    if not lo <= len(picks) <= hi:
        need = _need(lo, hi)
        raise BadAnswer("bad_answer", f"You must pick {need}." if not picks
                        else f"You picked {len(picks)}, but you must pick {need}.")
    return picks
