"""`governor serve --config FILE`: the file's settings, the flags over them, bad files refused
with the key named; a real `governor serve` process configured so, logging JSON lines, operated
with `governor admin`."""
from __future__ import annotations

import asyncio
import json
import re
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from client import serve
from client.cli import main, parser
from server.settings import SETTINGS, Limits, read_file
from tests.server.rawclient import Raw

from .live import ROOT, governor

KEY = "a-key-for-the-operator-0123456789"


def settings(*argv: str) -> dict:
    return serve.settings_of(parser().parse_args(["serve", *argv]))


def test_flags_override_the_file_which_overrides_the_defaults(tmp_path):
    config = tmp_path / "etc" / "governor.toml"
    config.parent.mkdir()
    config.write_text('host = "0.0.0.0"\nport = 9000\ngrace = 30\ndata_dir = "../srv"\n'
                      'public_url = "wss://play.example.org"\n[limits]\nrate = 40\nburst = 80\n')
    got = settings("--config", str(config), "--port", "9001", "--limit", "rate=50", "--limit", "max_tables=7")
    assert got["host"] == "0.0.0.0"                                  # the file's
    assert got["port"] == 9001                                       # the flag over the file's 9000
    assert got["grace"] == 30.0 and isinstance(got["grace"], float)  # an int will do for a number
    assert Path(got["data_dir"]) == (tmp_path / "srv").resolve()     # relative to the file
    assert got["limits"] == {"rate": 50.0, "burst": 80, "max_tables": 7}   # limit by limit
    assert got["log_format"] == "text" and got["cert"] is None       # the defaults
    # without a file: the defaults, and only the flags given
    assert settings("--grace", "5") == {**{s.name: s.default for s in SETTINGS}, "grace": 5.0, "limits": {}}


def test_announcing_is_a_switch_on_by_default_off_in_the_file_or_with_no_announce(tmp_path):
    config = tmp_path / "g.toml"
    config.write_text("announce = false\n")
    assert settings()["announce"] is True
    assert settings("--no-announce")["announce"] is False
    assert settings("--config", str(config))["announce"] is False
    assert settings("--config", str(config), "--announce")["announce"] is True     # the flag wins


def test_every_limit_can_be_set_in_the_file(tmp_path):
    config = tmp_path / "g.toml"
    config.write_text("[limits]\n" + "".join(f"{name} = 3\n" for name in Limits.__dataclass_fields__))
    assert set(settings("--config", str(config))["limits"]) == set(Limits.__dataclass_fields__)


def test_the_example_in_the_hosting_guide_has_every_key_and_is_accepted(tmp_path):
    guide = (ROOT / "docs" / "hosting.md").read_text()
    example = re.search(r"```toml\n(.*?)```", guide, re.S).group(1)
    (tmp_path / "example.toml").write_text(example)
    read = read_file(tmp_path / "example.toml")
    assert set(read) == {s.name for s in SETTINGS} | {"limits"}
    assert read["limits"] == {"max_tables": 500, "rate": 40.0}


@pytest.mark.parametrize("text, says", [
    ("prot = 8765", "there is no setting 'prot'; there is: host, port,"),
    ('port = "8765"', "port needs a whole number, not '8765'"),
    ("port = 70000", "port: a port is 0 to 65535 (0: any free port), not 70000"),
    ("grace = true", "grace needs a number, not True"),
    ('announce = "no"', "announce needs true or false, not 'no'"),
    ("announce = 0", "announce needs true or false, not 0"),
    ('log_format = "xml"', "log_format: the log format is 'text' or 'json', not 'xml'"),
    ('database = "mysql://ana:s3cret@db/governor"', "database: the database is 'sqlite' (governor.db in the data "
     "directory) or a postgresql:// URL, not 'mysql://ana:***@db/governor'"),   # the password not shown
    ('public_url = "play.example.org"', "public_url: a public address starts with ws:// or wss://"),
    ("[limits]\nrat = 3", "there is no limit 'rat'; there is: max_frame, rate,"),
    ("[limits]\nburst = 1.5", "limits.burst needs a whole number, not 1.5"),
    ("[limits]\nrate = -1", "the limit rate cannot be negative"),
    ("[limits]\nrate = nan", "the limit rate needs a finite number, not nan"),
    ("limits = 3", "limits is a table"),
    ("port = ", "is not valid TOML"),
])
def test_a_bad_config_file_is_refused_naming_the_key(text, says, tmp_path, capsys):
    config = tmp_path / "governor.toml"
    config.write_text(text + "\n")
    assert main(["serve", "--config", str(config), "--data-dir", str(tmp_path / "data")]) == 2
    err = capsys.readouterr().err
    assert f"governor serve: the config file {config}" in err and says in err, err
    assert not (tmp_path / "data").exists()      # nothing was started


def test_a_missing_config_file_is_named(tmp_path, capsys):
    assert main(["serve", "--config", str(tmp_path / "nope.toml")]) == 2
    assert f"cannot read the config file {tmp_path / 'nope.toml'}: No such file" in capsys.readouterr().err


@pytest.mark.parametrize("flag, says", [
    (["--limit", "burst=1.5"], "the limit burst needs a whole number, not '1.5'"),
    (["--limit", "speed=3"], "there is no limit 'speed'"),
    (["--limit", "rate=inf"], "the limit rate needs a finite number, not inf"),
    (["--port", "http"], "port needs a whole number, not 'http'"),
    (["--log-format", "xml"], "the log format is 'text' or 'json'"),
])
def test_a_bad_flag_is_refused_naming_it(flag, says, capsys):
    with pytest.raises(SystemExit) as exit:
        main(["serve", *flag])
    assert exit.value.code == 2 and says in capsys.readouterr().err


def test_an_operator_key_too_short_to_be_safe_is_refused(tmp_path, capsys):
    (tmp_path / "op.key").write_text("letmein\n")
    (tmp_path / "op.key").chmod(0o600)
    assert main(["serve", "--operator-key-file", str(tmp_path / "op.key"), "--data-dir", str(tmp_path / "d")]) == 2
    assert "is 7 characters long; it needs at least 16" in capsys.readouterr().err


def admin(port: int, *args: str, key_file: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "client", "admin", f"ws://127.0.0.1:{port}", *args,
                           "--key-file", str(key_file)], cwd=ROOT, capture_output=True, text=True, timeout=30)


async def create_tables(port: int, n: int) -> list[dict]:
    """n create requests on one connection; each answer (created or error)."""
    raw = await Raw.connect(f"ws://127.0.0.1:{port}")
    answers = []
    for _ in range(n):
        await raw.send({"type": "create", "game": "sanjuan", "seats": 2, "bots": 1, "options": {}})
        answers.append(await raw.recv())
    await raw.close()
    return answers


def test_a_configured_server_logs_json_lines_and_is_operated_with_its_key(tmp_path):
    for name, key in (("op.key", KEY), ("wrong.key", KEY[::-1])):
        (tmp_path / name).write_text(key + "\n")
        (tmp_path / name).chmod(0o600)
    config = tmp_path / "governor.toml"
    config.write_text('port = 0\ndata_dir = "data"\nlog_format = "json"\noperator_key_file = "op.key"\n'
                      'public_url = "wss://from.the.file"\n[limits]\nmax_tables = 1\n')
    proc = governor("serve", "--config", str(config), "--limit", "max_tables=2",
                    "--public-url", "wss://play.example.org")
    try:
        lines = [proc.stdout.readline() for _ in range(4)]
        assert lines[1] == f"data directory: {tmp_path / 'data'}\n"              # the file's, relative to it
        port = int(re.search(r"listening on ws://127.0.0.1:(\d+)", lines[2]).group(1))
        assert lines[3] == "players join wss://play.example.org\n"              # the flag's
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=10) as r:
            assert r.read() == b"ok\n"
        assert admin(port, "tables", key_file=tmp_path / "op.key").stdout == "No open tables.\n"
        answers = asyncio.run(create_tables(port, 3))
        assert [a["type"] for a in answers] == ["created", "created", "error"]   # max_tables=2, the flag's
        first, second = answers[0]["table"], answers[1]["table"]
        listed = admin(port, "tables", key_file=tmp_path / "op.key")
        assert listed.returncode == 0 and f"{first}  sanjuan  waiting" in listed.stdout
        assert "seat 2  Bot 2" in listed.stdout and "computer (heuristic)" in listed.stdout
        refused = admin(port, "close", first, key_file=tmp_path / "wrong.key")
        assert refused.returncode == 1 and "not this server's operator key" in refused.stderr
        closed = admin(port, "close", first, "--reason", "maintenance", key_file=tmp_path / "op.key")
        assert (closed.returncode, closed.stdout) == (0, f"Table {first} is closed.\n"), closed.stderr
        as_json = json.loads(admin(port, "tables", "--json", key_file=tmp_path / "op.key").stdout)
        assert [t["id"] for t in as_json] == [second]
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0
    records = [json.loads(line) for line in err.splitlines()]     # every line is one JSON object
    assert all({"time", "level", "logger", "message"} <= set(r) for r in records)
    assert any(r["message"].startswith("listening on ws://") and r["url"].startswith("ws://") for r in records)
    created = [r for r in records if r.get("game") == "sanjuan"]
    assert [r["table"] for r in created] == [first, second] and created[0]["status"] == "waiting"
    assert any(r.get("table") == first and r.get("status") == "cancelled"
               and "closed by the server's operator: maintenance" in r["message"] for r in records)
    assert any(r["level"] == "warning" and "wrong operator key" in r["message"] for r in records)
