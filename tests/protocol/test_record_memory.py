"""A record file is bounded in memory, not only in bytes: `governor verify` of a hostile record of
the largest size refuses it within BOUND_MIB of peak memory (tracemalloc, in a process of its own),
with a message that says why; and a real record at the most of everything still reads."""
import importlib.util
from pathlib import Path

import pytest

import bots
import games
from protocol import record
from protocol.codec import MAX_CONTAINER, Budget, DecodeError, pack, unpack
from protocol.harness import play_match
from protocol.shown import MAX_STEPS, Shown, step

_spec = importlib.util.spec_from_file_location(
    "bench_hostile_records", Path(__file__).resolve().parents[2] / "bench" / "hostile_records.py")
hostile = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(hostile)

RECORDS = hostile.records()
SAID = {"empty maps": "holds more than 200000 values in all",
        "small negative numbers": "holds more than 200000 values in all",
        "one-character strings": "holds more than 200000 values in all",
        "values, then a deep list shown": "(what the client was shown): it holds more than 200000 values in all",
        f"{MAX_CONTAINER + 100} signed entries": f"a match has at most {MAX_CONTAINER} moves"}


def test_every_hostile_record_is_said_what_it_is():
    assert set(RECORDS) == set(SAID)


@pytest.mark.parametrize("name", list(RECORDS))
def test_a_hostile_record_of_the_largest_size_is_refused_within_the_memory_bound(name):
    data = RECORDS[name]
    assert record.MAX_RECORD - 200_000 < len(data) <= record.MAX_RECORD
    got = hostile.measure(data)
    assert got["peak_mib"] < hostile.BOUND_MIB, got
    assert got["exit"] in (1, 2) and SAID[name] in got["said"], got


def test_the_budget_counts_every_value_of_every_message_it_is_given():
    budget = Budget(10)
    assert unpack(pack([1, {"a": 2}]), budget=budget) == [1, {"a": 2}]    # 3 for the list, 3 for the map
    assert budget.left == 4
    with pytest.raises(DecodeError, match="more than 10 values in all"):
        unpack(pack([{}, {}, {}]), budget=budget)


def test_an_item_over_the_size_of_a_record_item_is_refused_with_its_size():
    payload = pack({"t": "move", "seq": 1, "pad": b"x" * record.MAX_ITEM})
    data = record.MAGIC + pack([0, payload, b"s" * 64])
    with pytest.raises(record.RecordError, match=f"item 0: message of {len(payload)} bytes is over the limit "
                                                 f"of {record.MAX_ITEM}"):
        record.loads(data)


def test_a_real_record_at_the_most_steps_shown_reads_within_the_limits():
    """The longest of a few random five-player games of Puerto Rico, every seat's private
    messages, and what a client was shown at protocol.shown's most steps."""
    engine = games.get("puertorico")
    names = [f"P{i}" for i in range(engine.INFO.max_players)]
    options = engine.INFO.check_options({})
    server, _ = max((play_match("puertorico", names, options,
                                [bots.make("puertorico", "random", f"m{g}/{i}").choose for i in range(len(names))],
                                f"memory/{g}") for g in range(3)), key=lambda m: len(m[0].moves))
    view = engine.view(server.state, 0)
    shown = Shown(0, [step(3 + k % len(server.moves), False, view, [{"type": "x", "to": None, "text": "y"}] * 4)
                      for k in range(MAX_STEPS)])
    data = record.dumps(server.sent, shown)
    items, got = record.loads_all(data)
    assert len(items) == len(server.sent) and len(got.steps) == MAX_STEPS
    assert max(len(m.payload) for m in items) < record.MAX_ITEM // 4 * 3   # the final entry, with every move as signed
    assert len(pack(shown.as_map())) < record.MAX_SHOWN
    budget = Budget(record.MAX_VALUES)
    for m in items:
        unpack(m.payload, record.MAX_ITEM, budget)
    unpack(pack(shown.as_map()), record.MAX_SHOWN, budget)
    assert budget.limit - budget.left < record.MAX_VALUES // 3     # room for matches much longer


def test_a_final_entry_listing_the_most_moves_as_signed_fits_a_record_item():
    """A final entry lists every move with its bytes and its player's signature: at the most
    moves a record may hold, with longer actions than random play ever made (111 bytes a move at
    most), it is still one readable record item."""
    action = list(range(40, 60))
    body = {"t": "final", "seq": MAX_CONTAINER + 3, "prev": b"p" * 32, "server_seed": b"s" * 32,
            "moves": [[4, action]] * MAX_CONTAINER, "signed": [[pack(action), b"s" * 64]] * MAX_CONTAINER,
            "scores": [99] * 5, "winners": [0]}
    payload = pack(body)
    assert 110 * MAX_CONTAINER < len(payload) < record.MAX_ITEM
    data = record.MAGIC + pack([0, payload, b"s" * 64])
    assert record.loads(data)[0].body["moves"][-1] == [4, action]
