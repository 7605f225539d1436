"""Tampering with a recorded match (docs/fairness.md §7): every change to a record is caught, either
because the file no longer reads (RecordError) or because `verify` reports the entry where the
record stops agreeing with the seeds, the rules and the moves.

Two kinds of tamperer: one without the server's key (a flipped byte, dropped, duplicated,
reordered or spliced messages, a cut), and a lying server that re-signs whatever it changes and
holds every player's key too (the players' own signatures have tests of their own,
test_player_signatures.py), so that the audit (commitments, recomputed streams, replay) has to
catch it, not a signature.
Finally a server that deviates from the seeds while playing, and the `governor verify` command.
"""
import re

import pytest

import client.cli
import protocol.harness
from bots.random_bot import RandomBot
from games import sanjuan
from protocol import record
from protocol.codec import pack, unpack
from protocol.exchange import ServerExchange
from protocol.fairness import player_commit, server_commit
from protocol.harness import play_match
from protocol.messages import Signed
from protocol.record import RecordError
from protocol.signing import (SIG_COMMIT, SIG_ENTRY, SIG_MOVE, SIG_PRIVATE, SIG_REVEAL, Signer, commit_payload,
                              move_payload, reveal_payload)
from protocol.verify import verify

NAMES = ["Ana", "Bo", "Cy", "Di"]
OPTIONS = {"expansion": True}
SEED = "tamper"
SEAT = 1  # the player whose record is tampered with
PLAYER_KEYS: dict[bytes, Signer] = {}   # the players' keys, by public key, which the lying server holds too


def deciders(seed: str):
    return [RandomBot(f"{seed}/{k}").choose for k in range(len(NAMES))]


@pytest.fixture(scope="module")
def match():
    server, players = play_match("sanjuan", NAMES, OPTIONS, deciders(SEED), SEED)
    assert server.phase == "over" and all(p.report.ok for p in players)
    PLAYER_KEYS.update((p.signer.public_key, p.signer) for p in players)
    assert server.state.reshuffles >= 1  # the discard-pile tests need a reshuffle
    return server, players


@pytest.fixture(scope="module")
def other(match):
    """A second match by the same server (same key), for splicing."""
    server, _ = match
    return play_match("sanjuan", NAMES, OPTIONS, deciders("tamper-other"), "tamper-other", signer=server.signer)


@pytest.fixture(scope="module", params=["server", "player"])
def items(request, match):
    """The record as the server sent it (every seat's private messages) or as one player kept it."""
    server, players = match
    return list(server.sent if request.param == "server" else players[SEAT].record)


@pytest.fixture(scope="module")
def mine(match):
    return list(match[1][SEAT].record)


@pytest.fixture(scope="module")
def signer(match):
    return match[0].signer


# --- helpers --------------------------------------------------------------------------------

def check(items):
    """Verify a record the way a user would: written to a file's bytes and read back."""
    return verify(record.loads(record.dumps(items)))


def entry_at(items, seq: int) -> int:
    [i] = [i for i, m in enumerate(items) if m.kind == "entry" and m.body["seq"] == seq]
    return i


def privates(items, seat: int | None = None):
    return [i for i, m in enumerate(items) if m.kind == "private" and (seat is None or m.body["seat"] == seat)]


def final_seq(items) -> int:
    return max(m.body["seq"] for m in items if m.kind == "entry")


def edit(signer: Signer, msg: Signed, change) -> Signed:
    """`msg` with its body changed by change(body), re-signed by `signer`."""
    body = unpack(msg.payload)
    change(body)
    payload = pack(body)
    purpose = SIG_ENTRY if msg.kind == "entry" else SIG_PRIVATE
    return Signed.parse(msg.kind, payload, signer.sign(purpose, payload))


def rechain(signer: Signer, items):
    """Re-link the hash chain after a change: every entry whose `prev` no longer names the entry
    before it is re-signed with the right one, and so is every player's signature over an entry
    that changed (the lying server covering its tracks, with the players' keys)."""
    out, entries = [], []
    for m in items:
        if m.kind == "entry" and entries:
            def fix(b):
                b["prev"] = entries[-1].hash
                _resign_players(b, entries)
            fixed = edit(signer, m, fix)
            m = m if fixed.payload == m.payload else fixed
        if m.kind == "entry":
            entries.append(m)
        out.append(m)
    return out


def _resign_players(b: dict, entries) -> None:
    """The players' signatures of an entry (C10–C12), made again over the entries before it, by
    each seat's key the lying server holds (a signature by another key is left as it is)."""
    header = entries[0].hash
    keys = [PLAYER_KEYS.get(seat.get("key")) for seat in entries[0].body["seats"]]
    if b.get("t") in ("commits", "reveals") and isinstance(b.get("sigs"), list):
        values, purpose, payload = ((b["commits"], SIG_COMMIT, commit_payload) if b["t"] == "commits"
                                    else (b["seeds"], SIG_REVEAL, reveal_payload))
        b["sigs"] = [sig if sig is None or i >= min(len(values), len(keys)) or keys[i] is None
                     else keys[i].sign(purpose, payload(header, i, values[i])) for i, sig in enumerate(b["sigs"])]
    if b.get("t") in ("final", "cancel") and isinstance(b.get("signed"), list):
        # the moves' signatures (C10), listed at the end, over the entry each move entry says it saw
        for k, signed in enumerate(b["signed"]):
            move = entries[3 + k].body if 3 + k < len(entries) else {}
            seat, seen = move.get("seat"), move.get("seen")
            if isinstance(signed, list) and len(signed) == 2 and type(seat) is int and 0 <= seat < len(keys) \
                    and keys[seat] is not None and type(seen) is int and 0 <= seen < len(entries):
                signed[1] = keys[seat].sign(SIG_MOVE, move_payload(header, seat, entries[seen].hash, signed[0]))


def forge(signer: Signer, items, index: int, change):
    """A lying server's record: items[index] changed and re-signed, the chain re-linked."""
    out = list(items)
    out[index] = edit(signer, out[index], change)
    return rechain(signer, out)


def entry_number(where: str) -> int:
    m = re.match(r"entry (\d+)\b", where)
    assert m, where
    return int(m.group(1))


def fails(items, where: str | int, *what: str):
    """Verification fails at `where` (the exact text, or the entry number), and the reason
    contains every string of `what`."""
    report = check(items)
    assert not report.ok, "tampering was not detected"
    assert "VERIFIED" not in report.text() and report.where in report.text()
    if isinstance(where, int):
        assert entry_number(report.where) == where, (report.where, report.what)
    else:
        assert report.where == where, (report.where, report.what)
    for w in what:
        assert w in report.what, (report.where, report.what)
    return report


def move_name(items, seq: int) -> str:
    seat = items[entry_at(items, seq)].body["seat"]
    return f"entry {seq} (move by {NAMES[seat]})"


# --- the untouched record, and the forger itself --------------------------------------------

def test_the_untouched_record_verifies(items):
    report = check(items)
    assert report.ok, report.text()


def _reorder_keys(body: dict) -> None:
    """The same content in other bytes: msgpack maps keep their insertion order."""
    pairs = list(body.items())
    body.clear()
    body.update(reversed(pairs))


def test_re_signing_without_a_change_still_verifies(items, signer):
    """The control for every forged record below: the forging tools alone break nothing. An entry
    re-encoded (same content, other bytes) and re-signed, and the chain after it re-linked,
    still verifies; so a forged record fails only because of what was changed."""
    mid = entry_at(items, 100)
    assert forge(signer, items, mid, lambda b: None) == items  # msgpack of the same map: same bytes
    forged = forge(signer, items, mid, _reorder_keys)
    changed = [i for i, (a, b) in enumerate(zip(items, forged)) if a.payload != b.payload]
    assert changed[0] == mid and len(changed) == final_seq(items) - 100 + 1  # every later entry re-linked
    report = check(forged)
    assert report.ok, report.text()


# --- one flipped byte -----------------------------------------------------------------------

def _flip_positions(data: bytes, items) -> list[int]:
    # Every k-th byte, k odd so that the positions fall at every offset within the items'
    # fixed-size parts (headers, signatures); some 170 positions of a ~60 kB record.
    k = len(data) // 170 | 1
    positions = set(range(0, len(data), k))
    positions |= {0, len(data) - 1}
    positions |= set(range(len(record.MAGIC) + 3))              # the magic line and the first item's head
    sig = items[5].sig                                            # one signature, whole, with its header
    at = data.index(sig)
    positions |= set(range(at - 2, at + len(sig)))
    middle_private = items[privates(items)[len(privates(items)) // 2]]
    for m in (middle_private, items[-1]):                         # a private message's payload, and the final entry's
        at = data.index(m.payload)
        positions |= {at - 3, at - 2, at - 1} | set(range(at, at + len(m.payload), len(m.payload) // 20 + 1))
    return sorted(positions)


def test_every_flipped_byte_is_caught(mine):
    data = record.dumps(mine)
    positions = _flip_positions(data, mine)
    assert len(positions) > 250
    passed, crashed, unreadable, refuted = [], [], 0, 0
    for n, pos in enumerate(positions):
        mask = (0x01, 0x80, 0xFF, 0x20)[n % 4]
        flipped = data[:pos] + bytes([data[pos] ^ mask]) + data[pos + 1:]
        try:
            items = record.loads(flipped)
        except RecordError:
            unreadable += 1
            continue
        try:
            report = verify(items)
        except Exception as e:  # verify must report, never crash
            crashed.append((pos, mask, repr(e)))
            continue
        if report.ok:
            passed.append((pos, mask))
        else:
            refuted += 1
    assert not crashed, crashed[:5]
    assert unreadable > 10 and refuted > 100  # both the reader and the audit had work to do
    assert not passed, f"{len(passed)} flipped bytes were not detected, e.g. {passed[:10]}"


def test_a_flipped_signature_names_its_entry(mine):
    i = entry_at(mine, 57)
    sig = bytearray(mine[i].sig)
    sig[10] ^= 1
    bad = mine[:i] + [Signed.parse("entry", mine[i].payload, bytes(sig))] + mine[i + 1:]
    fails(bad, move_name(mine, 57), "signature does not match")


def test_a_flipped_payload_byte_names_its_private_message(mine):
    i = privates(mine)[5]
    payload = mine[i].payload
    j = payload.rindex(b"seat") + 4  # the seat number's byte: still valid msgpack, now another seat
    body = unpack(payload)
    changed = payload[:j] + bytes([payload[j] ^ 0x02]) + payload[j + 1:]
    assert unpack(changed)["seq"] == body["seq"]
    bad = mine[:i] + [Signed.parse("private", changed, mine[i].sig)] + mine[i + 1:]
    fails(bad, f"private message for entry {body['seq']}", "signature does not match")


# --- dropped, duplicated, reordered ---------------------------------------------------------

@pytest.mark.parametrize("seq", [1, 2, 3, 60, 200])
def test_a_dropped_entry(items, seq):
    i = entry_at(items, seq)
    fails(items[:i] + items[i + 1:], seq, "it says it is entry", "dropped, duplicated or reordered")


def test_a_dropped_header(items):
    fails(items[1:], "entry 0", "does not start with a header")


def test_a_dropped_final_entry(items):
    last = final_seq(items)
    cut = items[:entry_at(items, last)]
    fails(cut, last - 1, "cut short", "without a final or cancel entry")


@pytest.mark.parametrize("seq", [0, 1, 2, 3, 77])
def test_a_duplicated_entry(items, seq):
    i = entry_at(items, seq)
    fails(items[:i + 1] + [items[i]] + items[i + 1:], seq + 1, f"it says it is entry {seq}", "duplicated")


def test_a_duplicated_final_entry(items):
    fails(items + [items[-1]], final_seq(items) + 1, "it says it is entry")


@pytest.mark.parametrize("seq", [1, 2, 40, 150])
def test_two_entries_swapped(items, seq):
    i, j = entry_at(items, seq), entry_at(items, seq + 1)
    swapped = list(items)
    swapped[i], swapped[j] = swapped[j], swapped[i]
    fails(swapped, seq, f"it says it is entry {seq + 1}", "reordered")


def test_two_distant_entries_swapped(items):
    i, j = entry_at(items, 20), entry_at(items, 120)
    swapped = list(items)
    swapped[i], swapped[j] = swapped[j], swapped[i]
    fails(swapped, 20, "it says it is entry 120")


def test_reordered_moves_renumbered_and_re_signed(items, signer):
    """A lying server swaps two moves of different seats and re-signs the log with the numbers
    and the chain fixed: the final entry's move list no longer matches."""
    moves = items[-1].body["moves"]
    k = next(k for k in range(30, len(moves)) if moves[k][0] != moves[k + 1][0])
    seq = k + 3
    i, j = entry_at(items, seq), entry_at(items, seq + 1)
    swapped = list(items)
    swapped[i], swapped[j] = swapped[j], swapped[i]
    swapped[i] = edit(signer, swapped[i], lambda b: b.__setitem__("seq", seq))
    swapped[j] = edit(signer, swapped[j], lambda b: b.__setitem__("seq", seq + 1))
    fails(rechain(signer, swapped), seq, "move list of the final entry does not match")


def test_a_dropped_private_message(mine):
    seat_name = NAMES[SEAT]
    i = next(i for i in privates(mine, SEAT) if "events" in mine[i].body)
    seq = mine[i].body["seq"]
    fails(mine[:i] + mine[i + 1:], move_name(mine, seq), f"the cards shown to {seat_name} differ from the replay")


def test_a_dropped_private_message_of_another_seat(match):
    server, _ = match
    items = list(server.sent)
    i = next(i for i in privates(items, 3) if "events" in items[i].body and items[i].body["seq"] > 100)
    seq = items[i].body["seq"]
    fails(items[:i] + items[i + 1:], move_name(items, seq), f"the cards shown to {NAMES[3]} differ")


def test_a_dropped_hand(mine):
    [i] = [i for i in privates(mine, SEAT) if "dealt" in mine[i].body]
    fails(mine[:i] + mine[i + 1:], "entry 2 (reveals)", f"the cards dealt to {NAMES[SEAT]} are not")


@pytest.mark.parametrize("which", [0, 7, -1])
def test_a_duplicated_private_message(mine, which):
    i = privates(mine, SEAT)[which]
    seq = mine[i].body["seq"]
    fails(mine[:i + 1] + [mine[i]] + mine[i + 1:], f"private message for entry {seq}",
          f"a second private message for {NAMES[SEAT]}")


def test_a_private_message_moved_to_another_entry(mine, signer):
    i = next(i for i in privates(mine, SEAT) if "events" in mine[i].body and mine[i].body["seq"] > 50)
    seq = mine[i].body["seq"]
    target = next(s for s in range(seq + 1, final_seq(mine))
                  if not any(mine[j].body["seq"] == s for j in privates(mine, SEAT)))
    moved = list(mine)
    moved[i] = edit(signer, mine[i], lambda b: b.__setitem__("seq", target))
    fails(moved, move_name(mine, seq), f"the cards shown to {NAMES[SEAT]} differ")


@pytest.mark.parametrize("where", ["commits", "final"])
def test_an_extra_private_message_the_replay_does_not_produce(mine, signer, where):
    """docs/fairness.md §5: every card this client was shown must equal the replay's. A signed
    private message attached to an entry that shows nobody anything (the commitment set, the
    final entry) shows cards the replay never dealt, so the record must not verify."""
    seq = {"commits": 1, "final": final_seq(mine)}[where]
    template = mine[privates(mine, SEAT)[3]]
    extra = edit(signer, template, lambda b: b.update(seq=seq, events=["You draw the Library."]))
    report = check(mine + [extra])
    assert not report.ok, f"a private message for entry {seq} was accepted unchecked"


# --- a lying server: changed content, valid signatures --------------------------------------

@pytest.mark.parametrize("seat", [0, SEAT, 3])
def test_a_changed_revealed_seed(items, signer, seat):
    def change(body):
        seed = bytearray(body["seeds"][seat])
        seed[0] ^= 1
        body["seeds"][seat] = bytes(seed)
    fails(forge(signer, items, entry_at(items, 2), change), "entry 2 (reveals)",
          f"{NAMES[seat]}'s seed does not match their commitment")


@pytest.mark.parametrize("seat", [0, 3])
def test_a_changed_seed_with_a_matching_commitment(items, signer, match, seat):
    """The server replaces another player's seed and commitment both (that player would object,
    but this one cannot see it): the commitments check passes, the recomputed deal does not."""
    server, _ = match
    new_seed = b"\x42" * 32
    pid = server.seats[seat][0]
    forged = forge(signer, items, entry_at(items, 1),
                   lambda b: b["commits"].__setitem__(seat, player_commit(server.game_id, pid, new_seed)))
    forged = forge(signer, forged, entry_at(forged, 2), lambda b: b["seeds"].__setitem__(seat, new_seed))
    fails(forged, "entry 2 (reveals)", "the cards dealt to", "are not the ones the seeds deal")


def test_a_changed_server_seed(items, signer):
    last = final_seq(items)
    forged = forge(signer, items, entry_at(items, last), lambda b: b.__setitem__("server_seed", b"\x07" * 32))
    fails(forged, f"entry {last} (final)", "server seed does not match the server's commitment")


def test_a_changed_server_seed_with_a_matching_commitment(items, signer, match):
    """Header and final entry both changed to another server seed, consistently: the deal the
    new seeds make is not the one the players were shown."""
    server, _ = match
    new_seed = b"\x07" * 32
    forged = forge(signer, items, 0, lambda b: b.__setitem__("server_commit", server_commit(server.game_id, new_seed)))
    last = final_seq(items)
    forged = forge(signer, forged, entry_at(forged, last), lambda b: b.__setitem__("server_seed", new_seed))
    fails(forged, "entry 2 (reveals)", "the cards dealt to", "are not the ones the seeds deal")


@pytest.mark.parametrize("index", [0, 3])
def test_a_changed_dealt_card(items, signer, index):
    i = next(i for i in privates(items) if "dealt" in items[i].body)
    seat = items[i].body["seat"]
    hand = items[i].body["dealt"]
    other = next(c for c in range(200) if c not in hand)
    forged = forge(signer, items, i, lambda b: b["dealt"].__setitem__(index, other))
    fails(forged, "entry 2 (reveals)", f"the cards dealt to {NAMES[seat]} are not the ones the seeds deal")


def test_reordered_dealt_cards(items, signer):
    i = next(i for i in privates(items) if "dealt" in items[i].body)
    forged = forge(signer, items, i, lambda b: b["dealt"].reverse())
    fails(forged, "entry 2 (reveals)", "the cards dealt to")


def test_a_changed_card_shown(mine, signer):
    i = next(i for i in privates(mine, SEAT) if "events" in mine[i].body and mine[i].body["seq"] > 30)
    seq = mine[i].body["seq"]
    forged = forge(signer, mine, i, lambda b: b["events"].__setitem__(0, b["events"][0] + " and a Palace"))
    fails(forged, move_name(mine, seq), f"the cards shown to {NAMES[SEAT]} differ")


def test_a_changed_public_event(items, signer):
    seq = next(m.body["seq"] for m in items if m.kind == "entry" and m.body["t"] == "move"
               and "events" in m.body and m.body["seq"] > 80)
    forged = forge(signer, items, entry_at(items, seq), lambda b: b.__setitem__("events", bytes(16)))
    fails(forged, move_name(items, seq), "public events differ from the replay")


def _replay_to(server: ServerExchange, moves, k: int):
    state = sanjuan.setup(NAMES, OPTIONS, server.streams)
    for seat, action in moves[:k]:
        sanjuan.apply(state, seat, action, server.streams)
    return state


def test_a_changed_move_another_legal_role(items, signer, match):
    """The final entry lists another role than the one chosen, one that was legal then: the
    replay announces another role than the move entry's signed events."""
    server, _ = match
    moves = items[-1].body["moves"]
    k = 40
    state = _replay_to(server, moves, k)
    while True:
        seat, action = moves[k]
        kind, options = state.pending[seat][:2]
        if kind == "role" and len(options) > 1:
            other = next(r for r in options if r != action[0])
            break
        sanjuan.apply(state, seat, action, server.streams)
        k += 1
    last = final_seq(items)
    forged = forge(signer, items, entry_at(items, last), lambda b: b["moves"][k].__setitem__(1, [other]))
    fails(forged, move_name(items, k + 3), "public events differ from the replay")


@pytest.mark.parametrize("k", [0, 25, -1])
def test_a_changed_move_illegal(items, signer, k):
    moves = items[-1].body["moves"]
    k = k % len(moves)
    last = final_seq(items)
    forged = forge(signer, items, entry_at(items, last), lambda b: b["moves"][k].__setitem__(1, ["no such thing"]))
    fails(forged, move_name(items, k + 3), "is not legal in the replay")


def test_a_changed_move_seat(items, signer):
    moves = items[-1].body["moves"]
    k = 60
    last = final_seq(items)
    forged = forge(signer, items, entry_at(items, last),
                   lambda b: b["moves"][k].__setitem__(0, (moves[k][0] + 1) % 4))
    fails(forged, move_name(items, k + 3), "move list of the final entry does not match")


@pytest.mark.parametrize("change", ["dropped", "added"])
def test_a_changed_move_count(items, signer, change):
    last = final_seq(items)

    def edit_moves(b):
        if change == "dropped":
            b["moves"].pop()
        else:
            b["moves"].append(b["moves"][-1])
    fails(forge(signer, items, entry_at(items, last), edit_moves), f"entry {last} (final)", "moves for")


@pytest.mark.parametrize("seat", [0, 2])
def test_a_changed_final_score(items, signer, seat):
    last = final_seq(items)
    forged = forge(signer, items, entry_at(items, last), lambda b: b["scores"].__setitem__(seat, b["scores"][seat] + 1))
    fails(forged, f"entry {last} (final)", "final scores", "differ from the replay")


def test_a_changed_winner(items, signer):
    last = final_seq(items)
    winners = items[-1].body["winners"]
    other = [next(s for s in range(4) if s not in winners)]
    fails(forge(signer, items, entry_at(items, last), lambda b: b.__setitem__("winners", other)),
          f"entry {last} (final)", "winners differ")
    fails(forge(signer, items, entry_at(items, last), lambda b: b.__setitem__("winners", winners + other)),
          f"entry {last} (final)", "winners differ")


def test_a_final_entry_replaced_by_a_cancel(items, signer):
    """A server that dislikes the result cannot call the finished match cancelled."""
    last = final_seq(items)

    def to_cancel(b):
        b["t"] = "cancel"
        b["seeds"] = items[entry_at(items, 2)].body["seeds"]
        b["reason"] = "server shut down"
        del b["scores"], b["winners"]
    report = check(forge(signer, items, entry_at(items, last), to_cancel))
    assert report.ok is False, "a finished game accepted as cancelled: the replay says it is over"
    assert entry_number(report.where) == last


def _cancel_after_commits(items, signer, server, seeds) -> list:
    head = items[:entry_at(items, 2)]  # the header and the commitment set
    body = {"t": "cancel", "server_seed": server.server_seed, "seeds": seeds, "moves": [],
            "reason": "Cy did not reveal their seed", "seq": 2, "prev": head[-1].hash}
    payload = pack(body)
    return head + [Signed.parse("entry", payload, signer.sign(SIG_ENTRY, payload))]


def test_a_cancel_whose_seeds_do_not_match_the_commitments(mine, signer, match):
    """docs/fairness.md §4.7: the cancel entry reveals the seeds received; §5: every player seed must
    match its commitment. Here the server cancels in the reveal step and names a wrong seed."""
    server, _ = match
    seeds = mine[entry_at(mine, 2)].body["seeds"]
    honest = check(_cancel_after_commits(mine, signer, server, [seeds[0], seeds[1], None, None]))
    assert honest.ok, honest.text()
    report = check(_cancel_after_commits(mine, signer, server, [seeds[0], b"\x13" * 32, None, None]))
    assert not report.ok, "a cancel entry revealing a seed that does not match its commitment verified"
    assert entry_number(report.where) == 2


# --- cut short ------------------------------------------------------------------------------

def test_a_record_cut_at_any_byte(mine):
    data = record.dumps(mine)
    cuts = [0, 1, 5, len(record.MAGIC) - 1, len(record.MAGIC), len(record.MAGIC) + 1, len(record.MAGIC) + 40,
            len(data) // 3, len(data) // 2, len(data) - 70, len(data) - 64, len(data) - 2, len(data) - 1]
    for cut in cuts:
        try:
            items = record.loads(data[:cut])
        except RecordError as e:
            if cut < len(record.MAGIC):
                assert "not a Governor match record" in str(e)
            continue
        report = verify(items)
        assert not report.ok, cut
        assert "cut short" in report.what, (cut, report.what)


def _item_offsets(items) -> list[int]:
    offsets, at = [], len(record.MAGIC)
    for m in items:
        offsets.append(at)
        at += len(pack([0 if m.kind == "entry" else 1, m.payload, m.sig]))
    return offsets + [at]


@pytest.mark.parametrize("which", ["first", "middle", "last"])
def test_a_cut_inside_a_message_is_reported_by_the_reader(mine, which):
    """A file cut inside a message must not read as a shorter record: the reader says in which
    message it is cut short, wherever the cut falls (inside the headers too)."""
    data = record.dumps(mine)
    offsets = _item_offsets(mine)
    assert offsets[-1] == len(data)
    n = {"first": 0, "middle": len(mine) // 2, "last": len(mine) - 1}[which]
    start, end = offsets[n], offsets[n + 1]
    # Every byte of the message's head and of the signature's, and a sample of the rest.
    cuts = set(range(start + 1, start + 8)) | set(range(end - 70, end - 60)) | {end - 1}
    cuts |= set(range(start + 1, end, (end - start) // 25 + 1))
    wrong = {}
    for cut in sorted(c for c in cuts if start < c < end):
        try:
            got = record.loads(data[:cut])
            wrong[cut - start] = f"read as {len(got)} messages"
        except RecordError as e:
            if f"cut short inside item {n}" not in str(e):
                wrong[cut - start] = str(e)
    assert not wrong, f"cuts inside item {n} (offset in the item: outcome): {wrong}"


@pytest.mark.parametrize("keep", [1, 2, 3, 4, 10, 200, -1, -2, -5])
def test_a_record_without_its_last_messages(mine, keep):
    """Cut at a message boundary: the file reads, but the record has no final entry."""
    cut = mine[:keep]
    data = record.dumps(cut)
    assert record.dumps(record.loads(data)) == data
    last = max(m.body["seq"] for m in cut if m.kind == "entry")
    fails(cut, last, "cut short", "without a final or cancel entry")


def test_truncated_files_name_the_problem(tmp_path, mine):
    data = record.dumps(mine)
    path = tmp_path / "cut.govrec"
    path.write_bytes(data[:len(data) // 2])
    with pytest.raises(RecordError, match="cut short"):
        record.read(path)


# --- spliced from another match --------------------------------------------------------------

@pytest.mark.parametrize("seq", [1, 2, 50])
def test_an_entry_spliced_from_another_match(items, other, seq):
    """The same server's signature, the right number, but another match's entry: the chain breaks."""
    theirs = [m for m in other[0].log if m.body["seq"] == seq][0]
    spliced = list(items)
    spliced[entry_at(items, seq)] = theirs
    fails(spliced, seq, "does not chain", "spliced or altered")


def test_a_move_spliced_from_another_match_and_re_chained(items, other, signer):
    """The lying server splices in another match's move and re-links the chain: the audit
    finds a move the final entry's list (and the replay) does not have."""
    their_log = other[0].log
    seq = next(s for s in range(30, min(len(their_log), final_seq(items)) - 1)
               if their_log[s].body["t"] == "move"
               and (their_log[s].body["seat"], their_log[s].body.get("events"))
               != (items[entry_at(items, s)].body["seat"], items[entry_at(items, s)].body.get("events")))
    spliced = list(items)
    spliced[entry_at(items, seq)] = their_log[seq]
    report = fails(rechain(signer, spliced), seq)
    assert report.what.startswith(("the move list of the final entry", "the public events differ",
                                   "the cards shown to")), report.what


def test_the_seeds_spliced_from_another_match_and_re_chained(items, other, signer):
    spliced = list(items)
    spliced[entry_at(items, 2)] = other[0].log[2]
    fails(rechain(signer, spliced), "entry 2 (reveals)", "seed does not match their commitment")


def test_the_commitments_and_seeds_spliced_from_another_match(items, other, signer):
    """Both from the other match, consistent with each other, but made for its game id."""
    spliced = list(items)
    spliced[entry_at(items, 1)] = other[0].log[1]
    spliced[entry_at(items, 2)] = other[0].log[2]
    fails(rechain(signer, spliced), "entry 2 (reveals)", "seed does not match their commitment")


def test_a_private_message_spliced_from_another_match(mine, other):
    """Same server key, valid signature, but another match's game id."""
    theirs = next(m for m in other[1][SEAT].record if m.kind == "private" and m.body["seq"] > 20)
    fails(mine + [theirs], f"private message for entry {theirs.body['seq']}", "belongs to another match")
    i = privates(mine, SEAT)[4]
    replaced = list(mine)
    replaced[i] = next(m for m in other[1][SEAT].record if m.kind == "private")
    fails(replaced, "private message for entry 2", "belongs to another match")


def test_a_header_from_another_match(items, other):
    spliced = [other[0].log[0]] + items[1:]
    fails(spliced, 1, "does not chain")


# --- a server that deviates from the seeds while playing ------------------------------------

class _Hooked(ServerExchange):
    """The server, with a chance to meddle with its engine state before a move is applied."""
    hook = None

    def act_signed(self, seat, seen, move, sig):
        if type(self).hook is not None:
            type(self).hook(self, seat, unpack(move))
        return super().act_signed(seat, seen, move, sig)


def play_hooked(hook, seed: str = SEED):
    cls = type("Hooked", (_Hooked,), {"hook": staticmethod(hook)})
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(protocol.harness, "ServerExchange", cls)
        return play_match("sanjuan", NAMES, OPTIONS, deciders(seed), seed)


def _reshuffle_coming(server, seat, action) -> bool:
    """Would this move reshuffle the discard pile? (Tried on a copy of the state.)"""
    probe = server.state.copy()
    sanjuan.apply(probe, seat, action, server.streams)
    return probe.reshuffles > server.state.reshuffles


DEVIATE_AT = 70  # the move before which the server meddles; its entry is DEVIATE_AT + 3
# (a move after which the swapped card is next drawn into a hand: a swap whose two cards are only
# ever face-down goods before they meet again in the discard pile is honestly undetectable)


@pytest.mark.parametrize("source", ["hand", "discard"])
def test_a_server_that_deviates_from_the_seeds(match, source):
    """Mid-game the server swaps the top card of the supply with a card in another player's
    hand or in the discard pile. Its own full record and the record of every player who notices
    fail, each at or after the deviation; at least one player notices."""
    seen = {}

    def hook(server, seat, action):
        if len(server.moves) != DEVIATE_AT or seen:
            return
        s = server.state
        assert s.deck
        if source == "hand":
            victim = next(v for v in range(4) if v != seat and s.players[v].hand)
            pile = s.players[victim].hand
        else:
            assert s.discard
            pile = s.discard
        pile[0], s.deck[-1] = s.deck[-1], pile[0]
        seen["entry"] = len(server.log)

    server, players = play_hooked(hook)
    assert seen["entry"] == DEVIATE_AT + 3
    full = verify(server.sent)
    assert not full.ok
    assert entry_number(full.where) >= seen["entry"], full.where
    failed = [p.report for p in players if not p.report.ok]
    assert failed, "no player noticed the deviation"
    for report in failed:
        assert entry_number(report.where) >= seen["entry"], report.where
    # The server's whole record fails no later than the first player who notices.
    assert entry_number(full.where) <= min(entry_number(r.where) for r in failed)
    # And every record is still correctly signed and chained: only the audit catches this.
    for p in players:
        assert any("signed and hash-chained" in c for c in p.report.checks)


def test_reordering_the_discard_pile_before_a_reshuffle_changes_nothing(match):
    server, players = match
    done = []

    def hook(srv, seat, action):
        if srv.state.discard and _reshuffle_coming(srv, seat, action):
            before = sorted(srv.state.discard)
            srv.state.discard.reverse()
            srv.state.discard[:] = srv.state.discard[1::2] + srv.state.discard[0::2]
            assert sorted(srv.state.discard) == before
            done.append(len(srv.moves))

    hooked, hooked_players = play_hooked(hook)
    assert len(done) == server.state.reshuffles >= 1
    assert record.dumps(hooked.sent) == record.dumps(server.sent)
    for p, q in zip(players, hooked_players):
        assert record.dumps(p.record) == record.dumps(q.record)
        assert q.report.ok


@pytest.mark.parametrize("change", ["removed", "swapped with a hand"])
def test_changing_the_discard_pile_before_a_reshuffle_is_caught(match, change):
    done = []

    def hook(srv, seat, action):
        if done or not srv.state.discard or not _reshuffle_coming(srv, seat, action):
            return
        s = srv.state
        if change == "removed":
            s.discard.pop(len(s.discard) // 2)
        else:
            victim = next(v for v in range(4) if v != seat and s.players[v].hand)
            s.discard[0], s.players[victim].hand[0] = s.players[victim].hand[0], s.discard[0]
        done.append(len(srv.log))

    server, players = play_hooked(hook)
    assert done
    full = verify(server.sent)
    assert not full.ok
    assert entry_number(full.where) >= done[0], full.where
    failed = [p.report for p in players if not p.report.ok]
    assert failed, "no player noticed the changed discard pile"
    for report in failed:
        assert entry_number(report.where) >= done[0], report.where


# --- governor verify ------------------------------------------------------------------------

def run_cli(capsys, *args):
    try:
        code = client.cli.main(["verify", *map(str, args)])
    except SystemExit as e:  # argparse's own errors
        code = e.code
    out, err = capsys.readouterr()
    return code, out, err


def test_verify_is_a_governor_command():
    assert "verify" in client.cli.COMMANDS


def test_cli_verifies_a_good_record(tmp_path, capsys, mine):
    path = record.write(tmp_path / "match.govrec", mine)
    code, out, err = run_cli(capsys, path)
    assert code == 0, (out, err)
    assert "VERIFIED" in out
    assert "Traceback" not in out + err


@pytest.mark.parametrize("tamper", ["dropped entry", "changed score"])
def test_cli_names_the_failing_entry(tmp_path, capsys, mine, signer, tamper):
    if tamper == "dropped entry":
        i = entry_at(mine, 42)
        bad = mine[:i] + mine[i + 1:]
    else:
        last = final_seq(mine)
        bad = forge(signer, mine, entry_at(mine, last), lambda b: b["scores"].__setitem__(0, b["scores"][0] + 5))
    expected = check(bad)
    assert not expected.ok
    path = record.write(tmp_path / "bad.govrec", bad)
    code, out, err = run_cli(capsys, path)
    assert code == 1, (out, err)
    assert expected.where in out + err
    assert "VERIFIED" not in out
    assert "Traceback" not in out + err


@pytest.mark.parametrize("content", [None, b"", b"hello, world\n", b"governor-record/1\n", b"governor-record/1\n\xc1\xc1",
                                     b"\x89PNG\r\n\x1a\n" + bytes(100)],
                         ids=["missing", "empty", "text", "magic only", "bad msgpack", "png"])
def test_cli_refuses_what_is_not_a_record(tmp_path, capsys, content):
    path = tmp_path / "not-a-record.govrec"
    if content is not None:
        path.write_bytes(content)
    code, out, err = run_cli(capsys, path)
    assert code == 2, (out, err)
    assert "invalid choice" not in err  # the command itself exists
    assert "Traceback" not in out + err
    message = (out + err).strip()
    assert message and len(message.splitlines()) <= 3, message
    assert "VERIFIED" not in out


def test_cli_refuses_a_cut_record(tmp_path, capsys, mine):
    data = record.dumps(mine)
    path = tmp_path / "cut.govrec"
    path.write_bytes(data[:len(data) - 10])
    code, out, err = run_cli(capsys, path)
    assert code in (1, 2), (out, err)
    assert "Traceback" not in out + err and "VERIFIED" not in out


# --- a record made under other rules --------------------------------------------------------

# Earlier San Juan rules: 2e/1 differs in the black market and the stalled game's end, 2e/2 in
# skipping the builder who can afford nothing, 2e/3 in not logging the reshuffle of the discard pile.
OLD_RULES = ["sanjuan-2e/1", "sanjuan-2e/2", "sanjuan-2e/3"]


def under_old_rules(signer: Signer, items, rules: str):
    """The match as a server running older rules would have signed it: the same messages, but
    the header names the old rules (replayed now, its moves need not fit)."""
    return forge(signer, items, entry_at(items, 0), lambda b: b.__setitem__("rules", rules))


def test_this_code_replays_only_its_own_rules():
    assert sanjuan.INFO.rules_version not in OLD_RULES


@pytest.mark.parametrize("rules", OLD_RULES)
def test_a_record_made_under_rules_this_code_does_not_replay_is_refused_by_name(items, signer, rules):
    report = check(under_old_rules(signer, items, rules))
    assert not report.ok and report.refused and report.where == "entry 0 (header)"
    assert report.what.startswith(f"This record was made under rules '{rules}', which this version of "
                                  "Governor does not replay;")
    assert sanjuan.INFO.rules_version in report.what
    assert "NOT CHECKED: This record" in report.text() and "FAILED" not in report.text()
    assert report.as_dict()["refused"] is True
    assert not check(items).refused


@pytest.mark.parametrize("rules", OLD_RULES)
def test_cli_refuses_a_record_made_under_other_rules(tmp_path, capsys, mine, signer, rules):
    path = record.write(tmp_path / "old.govrec", under_old_rules(signer, mine, rules))
    code, out, err = run_cli(capsys, path)
    assert code == 1
    assert f"rules '{rules}'" in out and "does not replay" in out
    assert "Traceback" not in out + err and "illegal" not in out
