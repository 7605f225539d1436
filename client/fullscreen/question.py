"""The question of the full-screen table as plain data: its entries (the prompt's labels, and an
explicit "none" entry when no pick is allowed), which one is highlighted, which are marked in a
multi-pick, the number being typed, and the picks an Enter sends. No Textual here: the keys'
meaning is tested as plain functions, and the answer is checked by the same parser as a line
typed in plain mode (client/answers.py), so both modes accept and refuse the same picks, and go
back (`b` or Backspace) where the same prompts offer it."""
from __future__ import annotations

from protocol.messages import printable

from ..answers import NOTHING, BadAnswer, going_back, parse_answer

NONE = -1       # the index of the explicit "none" entry


class Question:
    def __init__(self, prompt: dict) -> None:
        p = printable(prompt)
        self.text: str = p["text"]
        self.labels: list[str] = [" ".join(label.split()) for label in p["labels"]]
        self.helps: list[str] = p["help"]
        self.lo, self.hi = p["min"], p["max"]
        self.prompt = p
        self.back: str = p.get("back") or ""     # where going back takes the seat; "" where it is not offered
        self.multi = self.hi > 1
        # Entry i is option i; passing is an entry of its own, never an Enter on nothing. Where
        # nothing can be chosen (a statement the seat must see, `max` 0) there is no entry at all:
        # Enter goes on.
        self.entries: list[int] = list(range(len(self.labels)))
        if self.lo == 0 and self.hi > 0:
            self.entries.append(NONE)
        self.cursor = 0
        self.marked: list[int] = []     # options toggled with space, in the order toggled
        self.typed = ""                 # digits typed so far: "1" then "2" is option 12

    def none_label(self) -> str:
        return "None — pick nothing" if self.hi > 1 else "None — pass"

    def entry_text(self, k: int) -> str:
        """What entry k shows: its number, its mark in a multi-pick, its label."""
        i = self.entries[k]
        if i == NONE:
            return f"  0. {self.none_label()}"
        box = ("[x] " if i in self.marked else "[ ] ") if self.multi else ""
        return f"{i + 1:>3}. {box}{self.labels[i]}"

    def help_line(self) -> str:
        """The help text of the highlighted entry, or how to answer when it has none."""
        i = self.entries[self.cursor] if self.entries else NONE
        if i == NONE:
            return "Send no pick." if self.hi else "Nothing to choose: press Enter to go on."
        return self.helps[i] or self.labels[i]

    def how(self) -> str:
        """The keys line: what to pick, and how, short enough for 80 columns."""
        back = " · b: back" if self.back else ""
        arrows = "↑↓/number" if self.back else "↑↓ or a number"     # room for the back key
        if not self.hi:
            return "Enter: go on" + back
        if not self.multi:
            return f"{arrows}: choose · Enter: send" + (" (0: pass)" if self.lo == 0 else "") + back
        need = str(self.hi) if self.lo == self.hi else f"up to {self.hi}" if self.lo == 0 else f"{self.lo} to {self.hi}"
        return f"{arrows}, Space: mark {need} · Enter: send" + back

    # ------------------------------------------------------------ keys

    def move(self, step: int) -> None:
        self.typed = ""
        if self.entries:
            self.cursor = (self.cursor + step) % len(self.entries)

    def digit(self, d: str) -> None:
        """A number typed: highlight that option (0 is "none"); a second digit makes a two-digit
        number when there is such an option, else starts a new number."""
        typed = self.typed + d
        if not self._highlight(int(typed)):
            typed = d
            self._highlight(int(typed))
        self.typed = typed

    def _highlight(self, n: int) -> bool:
        i = NONE if n == 0 else n - 1
        if i in self.entries:
            self.cursor = self.entries.index(i)
            return True
        return False

    def toggle(self) -> None:
        """Space in a multi-pick: mark or unmark the highlighted option."""
        self.typed = ""
        i = self.entries[self.cursor] if self.entries else NONE
        if not self.multi or i == NONE:
            return
        if i in self.marked:
            self.marked.remove(i)
        else:
            self.marked.append(i)

    def go_back(self) -> list:
        """The move back that `b` or Backspace sends (the action itself, not option indices);
        raises BadAnswer (the plain mode's sentence) where the question does not offer it."""
        self.typed = ""
        return going_back(self.prompt)

    def answer(self) -> list[int]:
        """The option indices Enter sends; raises BadAnswer (with the plain mode's sentence)
        when they do not fit the question. In a multi-pick with nothing marked, Enter on an
        option picks that one option."""
        self.typed = ""
        i = self.entries[self.cursor] if self.entries else NONE
        if i == NONE:
            picks = []
        elif self.multi and self.marked:
            picks = self.marked
        else:
            picks = [i]
        return parse_answer(" ".join(str(k + 1) for k in picks) or NOTHING, len(self.labels), self.lo, self.hi)


__all__ = ["Question", "BadAnswer", "NONE"]
