"""Files that are not what they claim: `governor verify` answers with a message and an exit code,
never a traceback, and a saved seat with a damaged message file keeps what came before the damage."""
import json
import os
import subprocess
import sys
from pathlib import Path

import msgpack
import pytest

import client.cli
from client.session import SeatSession
from games import sanjuan
from protocol import record
from protocol.codec import pack
from protocol.exchange import ServerExchange
from protocol.messages import Signed
from protocol.signing import SIG_ENTRY, Signer


def run_verify(capsys, *args):
    code = client.cli.main(["verify", *map(str, args)])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out + err


@pytest.mark.parametrize("kind", [1.0, 0.0, True])
def test_verify_refuses_an_item_whose_kind_is_not_an_int(tmp_path, capsys, kind):
    path = tmp_path / "f.govrec"
    path.write_bytes(record.MAGIC + msgpack.packb([kind, b"\x80", b""]))
    code, text = run_verify(capsys, path)
    assert code == 2, text
    assert "not a readable match record" in text and "item 0 is not a [kind, payload, signature] triple" in text


def test_verify_names_a_nesting_too_deep_to_read(tmp_path, capsys):
    path = tmp_path / "deep.govrec"
    path.write_bytes(record.MAGIC + b"\x91" * 5000 + b"\xc0")
    code, text = run_verify(capsys, path)
    assert code == 2 and "nested too deeply" in text and "()" not in text, text


def test_verify_refuses_a_file_just_over_the_size_limit_unread(tmp_path, capsys):
    path = tmp_path / "huge.govrec"
    path.write_bytes(record.MAGIC + b"\x00" * (record.MAX_RECORD + 1 - len(record.MAGIC)))
    code, text = run_verify(capsys, path)
    assert code == 2 and f"larger than a match record may be ({record.MAX_RECORD} bytes)" in text, text


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero here")
def test_verify_of_an_endless_device_ends_at_once_with_a_sentence():
    """/dev/zero has no size to check first: only the bounded read keeps it from filling memory."""
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-m", "client", "verify", "/dev/zero"], cwd=root, capture_output=True,
                          text=True, timeout=30)
    assert done.returncode == 2, done
    assert "not a readable match record" in done.stdout and "Traceback" not in done.stdout + done.stderr


def _self_signed_record(**header_changes) -> list[Signed]:
    """A record anyone can make: a header and a cancel entry, signed with one's own key."""
    signer = Signer.generate()
    header = {"t": "header", "seq": 0, "protocol": "bgfair/v1", "game_id": b"g" * 16, "game": "sanjuan",
              "rules": sanjuan.INFO.rules_version, "options": {}, "manifest": sanjuan.manifest_hash({}),
              "seats": [{"id": "a", "name": "A"}, {"id": "b", "name": "B"}],
              "server_key": signer.public_key, "server_commit": b"c" * 32, **header_changes}
    items = []
    for body in (header, {"t": "cancel", "seq": 1, "server_seed": b"s" * 32, "seeds": [None, None],
                          "moves": [], "reason": "test"}):
        if items:
            body["prev"] = items[-1].hash
        payload = pack(body)
        items.append(Signed.parse("entry", payload, signer.sign(SIG_ENTRY, payload)))
    return items


@pytest.mark.parametrize("changes", [{"game": ["sanjuan"]}, {"game_id": 5}, {"seats": 5},
                                     {"options": {"expansion": [1]}}], ids=["game", "game_id", "seats", "options"])
def test_verify_fails_a_self_signed_record_with_a_malformed_header(tmp_path, capsys, changes):
    path = record.write(tmp_path / "bad.govrec", _self_signed_record(**changes))
    code, text = run_verify(capsys, path)
    assert code == 1, text
    assert "FAILED at entry 0 (header): the header is malformed" in text, text
    code, text = run_verify(capsys, path, "--json")
    assert code == 1 and json.loads(text)["where"] == "entry 0 (header)", text


def test_a_saved_seat_with_a_damaged_item_keeps_the_messages_before_it(tmp_path):
    server = ServerExchange("sanjuan", {}, [("p0", "Ana"), ("p1", "Bo")], Signer.generate())
    s = SeatSession(tmp_path, "ws://127.0.0.1:9", "t1", 0, "p0", "Ana", bytes(range(32)))
    s.save()
    s.append(server.header)
    good = s.msgs_path.stat().st_size
    with open(s.msgs_path, "ab") as f:
        f.write(msgpack.packb([1.0, server.header.payload, server.header.sig]))
    [found] = SeatSession.unfinished(tmp_path)
    assert found.messages == [server.header]
    assert s.msgs_path.stat().st_size == good   # the damaged tail is cut off
