"""Text helpers every game's Text and events share (the terminal's rendering of a game lives with
the game; what is the same for all of them lives here)."""
from __future__ import annotations

import textwrap


def plural(k: int, word: str) -> str:
    return f"{k} {word}{'s' * (k != 1)}"


def with_article(noun: str) -> str:
    """The noun after "a" or "an", by the sound of its first letter: "a sugar mill", "an indigo
    plant". No name in the games starts with a silent h or a vowel said as a consonant."""
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"


def plain(text: str, style: str) -> str:
    """`paint` when there is no colour."""
    return text


def score_table(result: dict, names: list[str], tiebreak: str, paint=plain, always=("buildings",)) -> list[str]:
    """The final table: a row per score part anybody scored (and the parts in `always`), the
    totals, the tie-break values with the rule in words, and who won."""
    scores = result["scores"]
    rows = [(part.replace("_", " "), [sc[part] for sc in scores])
            for part in scores[0] if part != "total" and (part in always or any(sc[part] for sc in scores))]
    rows.append(("total", [sc["total"] for sc in scores]))
    rows.append(("tie-break", result["tiebreak"]))
    width = max(6, *(len(n) for n in names))
    first = max(len(label) for label, _ in rows)
    lines = [paint(" " * first + "".join(f"  {n:>{width}}" for n in names), "head")]
    for label, values in rows:
        line = label.ljust(first) + "".join(f"  {x:>{width}}" for x in values)
        lines.append(paint(line, "head") if label == "total" else line)
    lines.append(paint(f"(tie-break: {tiebreak})", "dim"))
    won = " and ".join(names[i] for i in result["winners"])
    # No verb: "You wins" would read badly, and "You" is the default name at the table.
    title = "Winner" if len(result["winners"]) == 1 else "Winners, sharing the win"
    after = f", after {plural(result['rounds'], 'round')}" if "rounds" in result else ""
    lines.append(paint(f"{title}: {won}{after}.", "you"))
    return lines


def _norm(text: str) -> str:
    return " ".join(text.lower().replace("_", " ").replace("-", " ").split())


def lookup(words: str, names) -> list[str]:
    """The names `words` asks about, for a Text's `explain`: the one it spells out (any case,
    `_` or `-` for spaces), else those it begins from one of their words on ("market" → small
    market, large market). Empty when none fits."""
    want = _norm(words)
    if not want:
        return []
    names = list(dict.fromkeys(names))
    for fits in (lambda n: n == want,
                 lambda n: n.startswith(want) or any(rest.startswith(want) for rest in _tails(n))):
        found = [name for name in names if fits(_norm(name))]
        if found:
            return found
    return []


def _tails(name: str) -> list[str]:
    """The name from each of its later words on: "small indigo plant" → "indigo plant", "plant"."""
    ws = name.split()
    return [" ".join(ws[i:]) for i in range(1, len(ws))]


def ambiguous(words: str, found: list[str]) -> str:
    """The answer to a name that fits several things."""
    return textwrap.fill(f'"{words}" could be {", ".join(found[:-1])} or {found[-1]}: type more of the name.',
                         width=99, subsequent_indent="  ")
