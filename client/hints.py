"""The command a printed hint tells the user to type ("… resume with: governor join …"), spelled
so that it works as printed: `governor` when that is on the PATH; otherwise the way this
process was started, e.g. `.venv/bin/governor` after `make play` (which installs the command
in the project's own virtual environment, not on the PATH) or `python3 -m client`."""
from __future__ import annotations

import os
import re
import shlex
import sys
from pathlib import Path


def _shown(path: str) -> str:
    """A path as short as it can be typed from here: relative below the working directory."""
    p = Path(path).absolute()
    try:
        return str(p.relative_to(Path.cwd()))
    except ValueError:
        return str(p)


def _on_path(name: str) -> str | None:
    """The program `name` the shell would run, if any (what `which` says)."""
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        candidate = os.path.join(folder, name)
        if folder and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def program() -> str:
    """How to start `governor` from this shell."""
    started = sys.argv[0] if sys.argv and sys.argv[0] else ""
    on_path = _on_path("governor")
    if Path(started).name == "governor":
        if on_path and os.path.samefile(on_path, started):
            return "governor"
        return shlex.quote(_shown(started))
    if started.endswith(("__main__.py", "-m")) or not started:   # `python -m client`
        if on_path:
            return "governor"
        python = sys.executable or "python3"
        return f"{shlex.quote(_shown(python) if os.sep in python else python)} -m client"
    return "governor"


def command(*words: str) -> str:
    """A whole command line to print, e.g. command("verify", path)."""
    return " ".join([program(), *(shlex.quote(str(w)) for w in words)])


def spelled(text: str, commands) -> str:
    """Text for people (a command's --help) with every `governor COMMAND` in it, for the names in
    `commands`, spelled as command() spells it."""
    names = "|".join(re.escape(name) for name in commands)
    return re.sub(rf"\bgovernor (?=(?:{names})\b)", lambda _: f"{program()} ", text)
