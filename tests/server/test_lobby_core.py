"""The lobby's decisions on their own (server/lobby.py): a message and what the server holds in,
the answer out, with no socket, store or event loop. The claim of a seat is followed into a
table's core (server/table_core.py), which checks its signature."""
from __future__ import annotations

import dataclasses
import itertools

import pytest

from protocol import wire
from protocol.signing import SIG_SEAT, seat_payload
from server.effects import Close
from server.inbox import Attach, Sit, Watch
from protocol.bucket import TokenBucket
from server.lobby import (LISTED_FINISHED, NAME_MAX, TABLE_ID_ALPHABET, TABLE_ID_LENGTH, Approach, Claim, Cut, Lobby,
                          Redirect, Refuse, TableAsked)
from server.quotas import READ_WATCHES, Quotas
from server.settings import Limits
from server.store import TableRow
from server.table_core import TableCore

from .test_table_core import ANA, BO, SIGNER, Shell, key_of, new_core, sit

ADDR, NEIGHBOUR, STRANGER = "192.0.2.1", "192.0.2.2", "198.51.100.1"   # the first two share a /24


def lobby(**limits) -> Lobby:
    lim = dataclasses.replace(Limits(), **limits)
    return Lobby(lim, Quotas(lim))


def decode(frame: bytes) -> dict:
    return wire.decode(frame, wire.SERVER)


def create(game="sanjuan", seats=2, bots=1, **more) -> dict:
    return {"type": "create", "game": game, "seats": seats, "bots": bots, **more}


def admit(lob: Lobby, addr=ADDR, creators=(), now=0.0, **ask):
    asked = lob.ask_table(create(**ask))
    assert isinstance(asked, TableAsked)
    return lob.admit(asked, addr, creators, lambda tid: False, now, 1000.0)


# ---------------------------------------------------------------------- the hello

def test_a_first_message_that_is_no_hello_is_cut():
    assert lobby().hello({"type": "list"}) == Cut(wire.CLOSE_BAD_HELLO, "the first message must be a hello, not a list")


def test_a_hello_of_another_protocol_version_is_cut_naming_both():
    cut = lobby().hello({"type": "hello", "version": "governor-0"})
    assert cut.code == wire.CLOSE_BAD_HELLO
    assert "'governor-0'" in cut.reason and f"speaks {wire.VERSION}" in cut.reason


def test_a_hello_naming_a_table_without_a_seat_is_cut():
    cut = lobby().hello({"type": "hello", "version": wire.VERSION, "table": "abc234"})
    assert cut.code == wire.CLOSE_BAD_HELLO and "names the seat too" in cut.reason


def test_a_hello_claims_the_seat_it_names_or_none():
    lob = lobby()
    assert lob.hello({"type": "hello", "version": wire.VERSION}) is None
    assert lob.hello({"type": "hello", "version": wire.VERSION, "table": "abc234", "seat": 1, "have": 7}) \
        == Claim("abc234", 1, 7)
    assert lob.hello({"type": "hello", "version": wire.VERSION, "table": "abc234", "seat": 0, "have": -3}).have == 0


def test_claims_of_tables_read_from_the_database_count_against_the_addresss_watches():
    lob = lobby(watch_rate=0.001, watch_burst=2 * READ_WATCHES)
    assert lob.claim_read(ADDR) is None and lob.claim_read(ADDR) is None
    cut = lob.claim_read(ADDR)
    assert cut == Cut(wire.CLOSE_FLOODING, lob.quotas.watch_refusal)
    assert lob.claim_read(STRANGER) is None     # another address has its own


def test_a_claimed_table_not_here_is_refused_or_its_process_named():
    lob, claim = lobby(), Claim("abc234", 0, 0)
    [cut] = lob.claim_not_here(claim, None)
    assert cut == Cut(wire.CLOSE_BAD_HELLO, "there is no table 'abc234'")
    redirect, moved = lob.claim_not_here(claim, "ws://other:1")
    assert decode(redirect.frame) == {"type": "redirect", "url": "ws://other:1", "table": "abc234"}
    assert moved.code == wire.CLOSE_MOVED
    assert lob.claim_not_here(claim, "") == [moved]      # moving: no process to name yet


def test_the_welcome_carries_the_challenge_and_the_cluster_only_when_there_is_one():
    alone = decode(Lobby.welcome(SIGNER.fingerprint, SIGNER.public_key, b"n" * 32, None))
    assert alone["nonce"] == b"n" * 32 and alone["key"] == SIGNER.public_key and alone["version"] == wire.VERSION
    assert "cluster" not in alone
    assert decode(Lobby.welcome(SIGNER.fingerprint, SIGNER.public_key, b"n" * 32, ["ws://a:1"]))["cluster"] == ["ws://a:1"]


def test_after_a_claiming_hello_only_a_claim_is_taken():
    cut = Lobby.claim(Claim("t1", 0, 0), {"type": "list"}, ANA, b"n" * 32)
    assert cut.code == wire.CLOSE_BAD_HELLO and "not a list" in cut.reason


def test_hello_and_claim_come_only_first():
    assert Lobby.later({"type": "claim", "sig": bytes(64)}).code == wire.CLOSE_BAD_FRAME
    assert Lobby.later({"type": "hello", "version": wire.VERSION}).code == wire.CLOSE_BAD_FRAME
    assert Lobby.later({"type": "list"}) is None


def _claimed(shell: Shell, conn, signer, signed_nonce: bytes, nonce: bytes) -> list:
    """A hello claiming seat 0 of the shell's table, answered by `signer` over `signed_nonce`,
    on a connection whose challenge was `nonce`; the table's effects."""
    claim = lobby().hello({"type": "hello", "version": wire.VERSION, "table": shell.core.id, "seat": 0})
    sig = signer.sign(SIG_SEAT, seat_payload(SIGNER.public_key, signed_nonce, shell.core.id, 0))
    attach = Lobby.claim(claim, {"type": "claim", "sig": sig}, conn, nonce)
    assert isinstance(attach, Attach) and (attach.conn, attach.seat, attach.nonce, attach.sig) == (conn, 0, nonce, sig)
    return shell.feed(shell.core.attach(attach.conn, attach.seat, attach.have, attach.nonce, attach.sig, now=1.0))


def _two_seated() -> Shell:
    shell = Shell(new_core(2))
    sit(shell, ANA, "Ana")
    sit(shell, BO, "Bo")
    return shell


def test_a_claim_with_the_seats_key_takes_the_seat_back():
    shell = _two_seated()
    _claimed(shell, "conn-Ana-2", key_of(ANA), b"m" * 32, b"m" * 32)
    assert shell.core.seats[0].conn == "conn-Ana-2"


def test_a_claim_with_another_players_key_is_cut_and_the_seat_kept():
    shell = _two_seated()
    effects = _claimed(shell, "conn-Eve", key_of(BO), b"m" * 32, b"m" * 32)
    assert [type(e) for e in effects] == [Close] and effects[0].code == wire.CLOSE_BAD_HELLO
    assert shell.core.seats[0].conn == ANA


def test_a_stale_claim_signed_for_another_connections_challenge_is_cut():
    shell = _two_seated()
    # the right key's answer to a challenge read on the way to another connection
    effects = _claimed(shell, "conn-Eve", key_of(ANA), b"o" * 32, b"m" * 32)
    assert [type(e) for e in effects] == [Close] and effects[0].code == wire.CLOSE_BAD_HELLO
    assert shell.core.seats[0].conn == ANA


# ---------------------------------------------------------------------- create

@pytest.mark.parametrize("msg, code, words", [
    (create(game="chess"), "unknown_game", "'chess'"),
    (create(seats=9), "bad_table", "not 9"),
    (create(seats=2, bots=2), "bad_table", "0 to 1 computer seats"),
    (create(seats=3, bots=2, levels=["random"]), "bad_table", "1 bot levels for 2"),
    (create(bot="genius"), "unknown_bot", "'genius'"),
    (create(seats=3, bots=2, levels=["random", "genius"]), "unknown_bot", "'genius'"),
    (create(options={"no_such_option": True}), None, "no_such_option"),
])
def test_a_bad_create_is_refused_by_name(msg, code, words):
    refused = lobby().ask_table(msg)
    assert isinstance(refused, Refuse) and words in refused.message
    if code is not None:
        assert refused.code == code
    assert decode(refused.frame) == {"type": "error", "code": refused.code, "message": refused.message}


def test_a_create_fills_in_the_defaults():
    asked = lobby().ask_table(create(seats=3, bots=2))
    assert asked.game == "sanjuan" and asked.seats == 3 and not asked.private and not asked.here
    assert not asked.rated
    assert asked.levels == [asked.level] * 2 and asked.options       # every option with its default
    levels = lobby().ask_table(create(seats=3, bots=2, levels=["random", asked.level])).levels
    assert levels == ["random", asked.level]


def test_an_admitted_table_has_a_fresh_id_its_people_and_its_bots():
    lob = lobby()
    row = admit(lob, seats=4, bots=2, levels=["random", "heuristic"], private=True)
    assert isinstance(row, TableRow)
    assert len(row.id) == TABLE_ID_LENGTH and set(row.id) <= set(TABLE_ID_ALPHABET)
    assert [s["bot"] for s in row.seats] == [None, None, "random", "heuristic"]
    assert [s["name"] for s in row.seats] == [None, None, "Bot 3", "Bot 4"]
    assert row.status == "waiting" and row.created == 1000.0 and row.private and row.game_id is None
    assert not row.rated and admit(lobby(), seats=2, bots=0, rated=True).rated


def test_a_table_id_already_taken_is_drawn_again():
    drawn = itertools.chain("a" * TABLE_ID_LENGTH, "b" * TABLE_ID_LENGTH)
    lim = Limits()
    lob = Lobby(lim, Quotas(lim), choice=lambda alphabet: next(drawn))
    assert lob.new_id(lambda tid: tid == "a" * TABLE_ID_LENGTH) == "b" * TABLE_ID_LENGTH


def test_the_servers_table_limit_counts_creates_not_yet_stored():
    lob = lobby(max_tables=2)
    assert isinstance(admit(lob, ADDR), TableRow)
    assert isinstance(admit(lob, STRANGER), TableRow)     # neither stored yet: both count
    refused = admit(lob, "203.0.113.9")
    assert refused.code == "too_many_tables" and "at most 2 open tables" in refused.message
    lob.stored(ADDR)
    lob.stored(STRANGER)
    assert not lob.creating
    assert admit(lob, "203.0.113.9", creators=[ADDR]).__class__ is TableRow


def test_an_address_has_at_most_tables_per_addr_open():
    lob = lobby(tables_per_addr=2)
    refused = admit(lob, ADDR, creators=[ADDR, ADDR])
    assert refused.code == "too_many_tables" and "tables_per_addr=2" in refused.message
    assert isinstance(admit(lob, STRANGER, creators=[ADDR, ADDR]), TableRow)


def test_a_network_has_at_most_tables_per_net_open_whatever_its_addresses():
    lob = lobby(tables_per_net=2)
    refused = admit(lob, NEIGHBOUR, creators=[ADDR, ADDR, None])
    assert refused.code == "too_many_tables" and "tables_per_net=2" in refused.message
    assert isinstance(admit(lob, STRANGER, creators=[ADDR, ADDR]), TableRow)


def test_a_refused_create_spends_none_of_the_window():
    lob = lobby(tables_per_window=1, max_tables=1)
    assert admit(lob, ADDR, creators=[STRANGER], now=0.0).message.startswith("This server holds")  # full
    assert isinstance(admit(lob, ADDR, now=1.0), TableRow)


def test_creates_within_the_window_are_counted_until_it_passes():
    lob = lobby(tables_per_window=2, table_window=600.0)
    for now in (0.0, 1.0):
        assert isinstance(admit(lob, ADDR, now=now), TableRow)
        lob.stored(ADDR)
    refused = admit(lob, ADDR, now=2.0)
    assert refused.code == "too_many_tables" and "tables_per_window=2" in refused.message
    assert "try again in 598 s" in refused.message
    assert isinstance(admit(lob, ADDR, now=600.5), TableRow)    # the first create is out of the window


# ---------------------------------------------------------------------- sit, watch, leave

def sit_msg(name="Ana", table="abc234") -> dict:
    return {"type": "sit", "table": table, "name": name, "key": bytes(32)}


def test_a_connection_with_a_seat_asks_for_no_other():
    refused = lobby().approach(sit_msg(), ANA, "xyz789", lambda tid: True, ADDR)
    assert refused.code == "already_seated" and "xyz789" in refused.message


@pytest.mark.parametrize("name", ["", "   ", "x" * (NAME_MAX + 1), "Ana\tBo", "Ana\x1b[2J"])
def test_a_name_that_is_empty_long_or_unprintable_is_refused(name):
    refused = lobby().approach(sit_msg(name), ANA, None, lambda tid: True, ADDR)
    assert refused.code == "bad_name"


def test_a_sit_is_handed_to_its_table_with_the_name_trimmed():
    approach = lobby().approach(sit_msg("  Ana "), ANA, None, lambda tid: True, ADDR)
    assert approach == Approach("abc234", approach.request)
    assert isinstance(approach.request, Sit) and approach.request.name == "Ana" and approach.request.conn == ANA


def test_watches_over_the_quota_are_refused_with_one_frame_and_sits_at_tables_in_memory_are_not_counted():
    lob = lobby(watch_rate=0.001, watch_burst=2)
    watch = {"type": "watch", "table": "abc234", "have": 3}
    first = lob.approach(watch, ANA, None, lambda tid: True, ADDR)
    assert isinstance(first.request, Watch) and first.request.have == 3
    assert isinstance(lob.approach(watch, ANA, None, lambda tid: True, ADDR), Approach)
    assert isinstance(lob.approach(sit_msg(), ANA, None, lambda tid: True, ADDR), Approach)   # not a watch
    refused = lob.approach(watch, ANA, None, lambda tid: True, ADDR)
    assert refused is lob.watch_refused and refused.code == "slow_down"
    assert refused.frame is lob.approach(watch, ANA, None, lambda tid: True, ADDR).frame     # packed once
    # a sit at a table to be read from the database counts as a watch (it is replayed)
    assert lob.approach(sit_msg(), ANA, None, lambda tid: False, ADDR) is lob.watch_refused
    assert isinstance(lob.approach(watch, ANA, None, lambda tid: True, STRANGER), Approach)


def test_a_table_read_from_the_database_counts_as_several_watches():
    lob = lobby(watch_rate=0.001, watch_burst=READ_WATCHES + 1)
    assert isinstance(lob.approach(sit_msg(), ANA, None, lambda tid: False, ADDR), Approach)
    watch = {"type": "watch", "table": "abc234"}
    assert isinstance(lob.approach(watch, ANA, None, lambda tid: True, ADDR), Approach)
    assert lob.approach(watch, ANA, None, lambda tid: True, ADDR) is lob.watch_refused


def test_a_table_not_here_is_refused_or_its_process_named():
    assert Lobby.not_here("abc234", None) == Refuse("no_table", "There is no table 'abc234'.")
    assert Lobby.not_here("abc234", "ws://b:2") == Redirect("ws://b:2", "abc234")
    assert Lobby.not_here("abc234", "").code == wire.CLOSE_MOVED


def test_leaving_needs_a_table():
    assert Lobby.leave(True) is None
    assert Lobby.leave(False).code == "not_seated"


@pytest.mark.parametrize("answer, code", [(Lobby.unseated, "not_seated"), (Lobby.busy, "busy")])
def test_a_move_is_rejected_by_its_id_and_any_other_command_refused(answer, code):
    reject = decode(answer({"type": "act", "id": 5, "seq": 1, "move": b"", "sig": bytes(64)}))
    assert (reject["type"], reject["id"], reject["code"]) == ("reject", 5, code)
    error = decode(answer({"type": "resync"}))
    assert (error["type"], error["code"]) == ("error", code)


# ---------------------------------------------------------------------- list

def table(tid: str, created: float, status="waiting", private=False) -> TableCore:
    """A table in memory: a real core, read as the listing reads the server's tables."""
    seats = [{"name": None, "player_id": None, "key": None, "bot": None} for _ in range(2)]
    return TableCore(TableRow(tid, "sanjuan", {}, "random", seats, None, None, status, created, private=private),
                     SIGNER)


def test_the_listing_holds_the_open_tables_oldest_first_then_the_finished_ones():
    lob = lobby()
    lob.finished.add("done", {"id": "done", "status": "over"})
    tables = {t.id: t for t in [table("late", 30.0), table("early", 10.0)]}
    elsewhere = [(20.0, {"id": "there", "status": "waiting"})]
    assert [t["id"] for t in lob.listing(tables, elsewhere)] == ["early", "there", "late", "done"]
    assert lob.listing(tables, elsewhere)[0] == tables["early"].summary()


def test_a_private_table_is_never_listed():
    lob = lobby()
    tables = {"mine": table("mine", 1.0, private=True), "open": table("open", 2.0)}
    assert [t["id"] for t in lob.listing(tables)] == ["open"]


def test_a_table_both_here_and_elsewhere_is_listed_once_as_it_is_here():
    """Another process's entry is a renewal old: a table this one serves now is listed as it is."""
    lob = lobby()
    tables = {"moved": table("moved", 5.0)}
    listed = lob.listing(tables, [(5.0, {"id": "moved", "stale": True})])
    assert listed == [tables["moved"].summary()]


def test_a_finished_table_in_use_is_listed_as_it_is_now_and_a_finished_one_only_once_listed():
    lob = lobby()
    lob.finished.add("done", {"id": "done", "stale": True})
    tables = {"done": table("done", 1.0, status="cancelled"), "gone": table("gone", 2.0, status="cancelled")}
    assert lob.listing(tables) == [tables["done"].summary()]    # "gone" finished without being listed


def test_the_listing_shows_only_the_newest_finished_tables():
    lob = lobby()
    for i in range(LISTED_FINISHED + 7):
        lob.finished.add(f"t{i}", {"id": f"t{i}"})
    listed = lob.listing({})
    assert [t["id"] for t in listed] == [f"t{i}" for i in range(7, LISTED_FINISHED + 7)]


# ---------------------------------------------------------------------- chat

def seated_core() -> tuple[TableCore, int]:
    """A table with Ana seated at it: the table, her seat."""
    core = new_core()
    sit(Shell(core), ANA, "Ana")
    return core, next(s.index for s in core.seats if s.conn == ANA)


def pace(burst=5) -> TokenBucket:
    return TokenBucket(0.001, burst)     # as good as no refill while a test runs


def test_a_seated_player_says_a_line_to_the_table():
    core, seat = seated_core()
    said = lobby().chat(ANA, core, seat, "  hello\x1b[2J all\n ", pace())
    assert decode(said) == {"type": "chat", "table": core.id, "seat": seat, "name": "Ana", "text": "hello[2J all"}


@pytest.mark.parametrize("who, at, seat", [
    ("no table", None, None),
    ("a spectator", "core", None),
    ("another's seat", "core", "ana's"),     # the seat is held by another connection
])
def test_only_the_connection_holding_a_seat_may_chat(who, at, seat):
    core, ana_seat = seated_core()
    bucket = pace(burst=1)
    refused = lobby().chat(BO, core if at else None, ana_seat if seat else None, "hi", bucket)
    assert refused == Refuse("not_seated", "Only a player seated at a table can chat there."), who
    assert bucket.take()      # a refusal spends nothing of the rate


@pytest.mark.parametrize("text, why", [
    ("", "needs some text"), ("   ", "needs some text"), ("\x1b\x07\n\t", "needs some text"),
    ("x" * (wire.MAX_CHAT + 1), f"at most {wire.MAX_CHAT} characters, not {wire.MAX_CHAT + 1}"),
])
def test_an_empty_or_too_long_line_is_refused_and_spends_nothing(text, why):
    core, seat = seated_core()
    bucket = pace(burst=1)
    refused = lobby().chat(ANA, core, seat, text, bucket)
    assert isinstance(refused, Refuse) and refused.code == "bad_chat" and why in refused.message
    assert bucket.take()


def test_a_line_of_the_longest_length_is_said_once_control_characters_are_gone():
    core, seat = seated_core()
    said = lobby().chat(ANA, core, seat, "\x1b" + "x" * wire.MAX_CHAT + "\r\n", pace())
    assert decode(said)["text"] == "x" * wire.MAX_CHAT


def test_lines_faster_than_the_chat_rate_are_refused_past_the_burst():
    core, seat = seated_core()
    lob = lobby(chat_rate=0.5, chat_burst=2)
    bucket = pace(burst=2)
    assert [isinstance(lob.chat(ANA, core, seat, "hi", bucket), bytes) for _ in range(3)] == [True, True, False]
    refused = lob.chat(ANA, core, seat, "hi", bucket)
    assert refused.code == "slow_down" and "At most 0.5 chat line(s) a second (a burst of 2)" in refused.message
