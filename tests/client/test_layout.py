"""The client's layout holds: imports point one way (the command modules share pieces and never
import each other), only client/session.py touches the disk, and protocol never imports client."""
import ast
import re
from pathlib import Path

from client.cli import COMMANDS

ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "client"
# Calls that read or write files, make folders or change their modes.
DISK = re.compile("|".join([
    r"(?<![.\w])(?<!def )open\(",            # the built-in open, not Link.open
    r"\bos\.(open|replace|remove|makedirs)\(",
    r"\.(read|write)_(text|bytes)\(",
    r"\.(mkdir|chmod|unlink|exists|glob)\(",
    r"\btempfile\b", r"\bshutil\b",
    r"\brecords?\.(read|write)\(",           # protocol.record's file functions
    r"\((cafile|capath)=",                     # the TLS library reading certificates itself
]))


def imported_modules(path: Path) -> set[str]:
    """The client modules a client file imports (always relatively: `from .link import ...`)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            out |= {node.module} if node.module else {a.name for a in node.names}
    return out


def test_command_modules_never_import_each_other():
    commands = set(COMMANDS)
    for name in commands:
        assert not imported_modules(CLIENT / f"{name}.py") & commands, name


def test_only_the_session_module_touches_the_disk():
    for path in sorted(CLIENT.glob("*.py")):
        if path.name in ("session.py", "cli.py"):   # cli only points a closed stdout at os.devnull
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#", 1)[0]
            assert not DISK.search(code), f"{path.name}:{n}: {line.strip()}"


def test_protocol_never_imports_client():
    for path in (ROOT / "protocol").glob("*.py"):
        tree = ast.parse(path.read_text())
        names = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        names += [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        assert not [m for m in names if m == "client" or m.startswith("client.")], path.name
