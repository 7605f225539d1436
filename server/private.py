"""The server's data directory is its own: other users of the machine may not read it.

It holds the server key (whoever has it signs as the server) and the database, whose log holds
every seed revealed and every move: with both, a local user once rebuilt every hand of a match
under way. The directory is therefore 0700 and every file in it 0600: created so (the server key
and the database's files are opened with 0600, a new directory with 0700), and tightened at start
when they are more open than that (a folder made by hand, a server of an earlier release). What
cannot be tightened (a file of another user's) stops the server, naming it."""
from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

log = logging.getLogger("governor.server")

OTHERS = 0o077      # the bits of the group's and the others' permissions


def make_private(folder: Path) -> None:
    """The data directory, made if need be, and its files, closed to every user but this one.
    Raises RuntimeError naming what could not be."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    tightened = []
    for path in [folder, *sorted(folder.iterdir())]:
        info = path.lstat()
        if not (stat.S_ISDIR(info.st_mode) or stat.S_ISREG(info.st_mode)):
            continue    # a link or a socket: not the server's to change
        mode = stat.S_IMODE(info.st_mode)
        if mode & OTHERS:
            try:
                path.chmod(mode & ~OTHERS)
            except OSError as e:
                raise RuntimeError(f"the data directory {folder}: {path} is open to other users (mode {mode:04o}) "
                                   f"and cannot be made private: {e.strerror or e}") from None
            tightened.append(f"{path.name if path != folder else '.'} ({mode:04o})")
    if tightened:
        log.warning("the data directory %s was open to other users: made private: %s", folder, ", ".join(tightened))


def create_private(path: Path) -> None:
    """An empty file that only this user may read, unless it exists (a database, before the
    library that fills it opens it with its default mode)."""
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
