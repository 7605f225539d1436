"""`governor whoami`: the player key, made on first use and kept, its fingerprint printed by the
real program; the seat a client takes is that key's."""
import re
import stat
import subprocess
from pathlib import Path

from client.session import SeatSession
from protocol.signing import PLAYER_KEY_FILE, from_pem

GOVERNOR = Path(__file__).resolve().parents[2] / ".venv" / "bin" / "governor"


def whoami(data: Path) -> str:
    done = subprocess.run([str(GOVERNOR), "whoami", "--data-dir", str(data)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0 and not done.stderr, done
    return done.stdout


def test_the_key_is_made_on_first_use_kept_private_and_the_same_afterwards(tmp_path):
    data = tmp_path / "client"
    first = whoami(data)
    path = data / PLAYER_KEY_FILE
    assert f"Kept in: {path} (made now)" in first
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(data.stat().st_mode) == 0o700
    [shown] = re.findall(r"Player key: ([0-9a-f:]+)", first)
    assert shown == from_pem(path.read_bytes(), str(path)).fingerprint
    again = whoami(data)
    assert f"Player key: {shown}" in again and "made now" not in again
    assert "Name:" not in again                      # no seat taken yet: no name to tell


def test_the_name_of_the_latest_seat_is_told(tmp_path):
    SeatSession(tmp_path, "ws://127.0.0.1:9", "t1", 0, "p0", "Ana", bytes(32)).save()
    assert "Name: Ana (your latest seat, at table t1)" in whoami(tmp_path)
