"""The wire: WebSocket binary frames, one msgpack map per message, with a "type" field.

This module is the contract between server and client: every message type with its fields and
their types, the limits, the close codes, and `decode`, which turns a frame into a checked message
or raises WireError naming what was wrong.

A session:
  client -> hello {version, table?, seat?, have?}     first message; table and seat only to claim a seat
  server -> welcome {version, server, key, nonce, cluster?}
                                                      server = key fingerprint, key = Ed25519 public key;
                                                      nonce: 32 fresh bytes, the challenge of a claim;
                                                      cluster: the public addresses of the live
                                                      processes of a cluster (to come back through)
  client -> claim {sig}                               after a hello that named a seat: the seat's player
                                                      key's signature (docs/fairness.md C13) over the
                                                      server key, the nonce, the table and the seat
  client -> list | create | sit | watch               lobby (sit {table, name, key}: the seat is the key's)
  server -> tables | created | seated                 replies (created: `expires` = seconds after which a
                                                      waiting table no person is at is closed)
Once seated, per table:
  server -> entry {table, payload, sig}               a signed public log entry (docs/fairness.md §4)
  server -> private {table, payload, sig}             a signed private message for this seat
  client -> commit {commitment, sig, deal_key?, deal_proof?, deal_sig?} / reveal {seed, sig}
                                                      the client's part of the exchange, signed by the
                                                      player's key (docs/fairness.md C11, C12); on a
                                                      blind table the commit carries the deal key, its
                                                      proof and their signature (C16, C23)
On a blind table (docs/fairness.md §10.6) a seat's client also sends, unasked, what the log shows
it owes (protocol/blind_exchange.py), each answered only when it is refused (an `error`):
  client -> shuffle {name, idx, pile, sig}            its step of a joint shuffle: pile = n × 64 bytes
  client -> shares {cards, parts, proofs, sig}        decryption shares: n handles, n × 32, n × 64 bytes
  client -> deal_seed {seed, sig}                     its deal seed, once the game is over
and its act carries `openings` (nil, or {cards, parts, proofs, sig}: its shares of its own cards
the move turns up). There are no `private` messages and no snapshot or delta to a seated player:
each client makes its view from its own replica of the log. A seat that owes something past its
time forfeits (a `forfeit` entry, then `final`).
  server -> snapshot {table, seq, view, hash, events} the seat's whole view (on connect, on request,
                                                      after a gap or an overflow)
  server -> delta {table, base, seq, ops, hash, events} ops turn the view at `base` into the one at
                                                      `seq` (protocol.diff); hash = view_hash of it;
                                                      events (here and in a snapshot): the public
                                                      ones; a seat's own come in `private`
  client -> act {id, seq, move, sig}                  a decision, made on the view at `seq`: `move` is
                                                      the msgpack bytes of the options picked (at most
                                                      MAX_ACTION, each an int or a string, as a prompt
                                                      offers them), `sig` the player's signature over
                                                      it (docs/fairness.md C10); decode adds `action`,
                                                      the options as read from `move`
  server -> ack {id} | reject {id, code, message}     every command is answered exactly once
  client -> resync {}                                 ask for a snapshot
  server -> status {table, seats, status, frozen?}    who is connected, who is a bot; frozen: why the
                                                      table refuses every command (an error
                                                      "table_frozen" says so too)
  server -> clock {table, seq, left}                  the seat's question put at `seq` is answered by
                                                      the table's bot in `left` seconds (a clock runs:
                                                      status `turn_time`); sent as it starts and on
                                                      every reconnect while it runs
  server -> error {code, message}                     a refused request that is not a command
  server -> notice {table, code, message}             something everyone at the table should know that
                                                      is no answer to anything: "bot_failed" (a
                                                      computer player's decision failed and a random
                                                      legal move is played for it); "host_left" (a
                                                      stopping `governor play`, its host gone, is
                                                      about to close the connection: the game is
                                                      kept and served again when the host is back)
  client -> chat {text}                               a line to the table; only a seated player may
                                                      send one (spectators read); not a command: no
                                                      ack, never signed, logged or stored
  server -> chat {table, seat, name, text}            a seat's line, to every seat and spectator at
                                                      the table; text has no control characters and
                                                      at most MAX_CHAT characters (longer is refused)
The server's operator, with its key (docs/hosting.md):
  client -> operator {key, do, table?, reason?}       do: "tables", or "close" a table
  server -> operator_tables {tables, processes?}      every open table of this process, who holds each
                                                      seat; a cluster's other processes to ask too
  server -> operator_closed {table}                   the table is cancelled, everyone at it told
Every message of the types in PADDED carries a field "pad" (bytes, all zero) that brings the
encoded frame to a fixed size class (`padded_size`), or a view update to a seat to a length
public things decide; receivers ignore it. See "Padding" below.
A command is identified by its client id: sent twice, it is applied once and answered the same
way again. A command decided on a view older than the seat's current question is rejected
("stale") and a snapshot follows. Protocol violations close the connection with a code below.
"""
from __future__ import annotations

import unicodedata

from games.errors import Closed

from .codec import DecodeError, pack, pack_map, unpack
from .signing import PUBLIC_KEY_BYTES, SIGNATURE_BYTES

VERSION = "governor/6"
MAX_FRAME = 64 * 1024            # client -> server
MAX_SERVER_FRAME = 1024 * 1024   # server -> client
MAX_CHAT = 200                   # characters of one chat line, after control characters and
                                 # surrounding whitespace are stripped
MAX_ACTION = 64                  # options picked in one action: a decision picks a few of those shown
# The most cards one pile of a blind table can hold: every card of the largest manifest (San
# Juan's deck with its expansion; a reshuffle holds fewer). A shuffle step or a shares message
# names at most this many cards; MAX_FRAME lets a whole-deck step through.
MAX_PILE = 143
CIPHERTEXT_BYTES = 64            # one card of a pile: two Ed25519 points
POINT_BYTES = 32                 # a decryption share's part, a deal key
PROOF_BYTES = 64                 # a Chaum-Pedersen or Schnorr proof
SEED_BYTES = 32

# Close codes (RFC 6455 leaves 4000-4999 to applications).
CLOSE_BAD_FRAME = 4000           # not a msgpack map with a known type and the right fields
CLOSE_TOO_BIG = 4001
CLOSE_FLOODING = 4002            # over the command rate (or a seat claim's hello over the watch rate)
CLOSE_BAD_HELLO = 4003           # first message not a hello, wrong version, a seat claim that fails
CLOSE_TOO_MANY = 4004            # too many connections from one address
CLOSE_REPLACED = 4005            # the seat was claimed again by another connection
CLOSE_MOVED = 4006               # another server process of the cluster serves the table now: connect again
CLOSE_SHUTDOWN = 1001

_BIN, _STR, _INT, _LIST, _MAP, _BOOL = bytes, str, int, list, dict, bool

# Fields of each client message: name -> (type, required).
CLIENT = {
    "hello": {"version": (_STR, True), "table": (_STR, False), "seat": (_INT, False), "have": (_INT, False)},
    "claim": {"sig": (_BIN, True)},
    "list": {},
    # `bot`: the level of every computer seat (and of the one that stands in for an absent
    # person); `levels`: one level per computer seat instead, in seat order.
    # `here`: a cluster's process creates it itself, rather than placing it on the least loaded
    # process (a redirect), as it does when the client was sent there by that redirect.
    # `private`: the lobby never lists the table, open or finished (a game alone against bots);
    # it is sat at, watched and resumed by its id all the same.
    # `rated`: the match counts for ratings when every seat holds a player key (docs/playing.md).
    "create": {"game": (_STR, True), "seats": (_INT, True), "bots": (_INT, True),
               "bot": (_STR, False), "levels": (_LIST, False), "options": (_MAP, False), "here": (_BOOL, False),
               "private": (_BOOL, False), "rated": (_BOOL, False), "blind": (_BOOL, False)},
    "sit": {"table": (_STR, True), "name": (_STR, True), "key": (_BIN, True)},
    "watch": {"table": (_STR, True), "have": (_INT, False)},
    "leave": {},
    "commit": {"commitment": (_BIN, True), "sig": (_BIN, True), "deal_key": (_BIN, False),
               "deal_proof": (_BIN, False), "deal_sig": (_BIN, False)},
    "reveal": {"seed": (_BIN, True), "sig": (_BIN, True)},
    # `openings`, on a blind table: nil, or the mover's shares of its own cards the move turns up
    # ({cards, parts, proofs, sig}, as a shares message)
    "act": {"id": (_INT, True), "seq": (_INT, True), "move": (_BIN, True), "sig": (_BIN, True),
            "openings": (_MAP, False)},
    "shuffle": {"name": (_STR, True), "idx": (_INT, True), "pile": (_BIN, True), "sig": (_BIN, True)},
    "shares": {"cards": (_LIST, True), "parts": (_BIN, True), "proofs": (_BIN, True), "sig": (_BIN, True)},
    "deal_seed": {"seed": (_BIN, True), "sig": (_BIN, True)},
    "resync": {},
    "chat": {"text": (_STR, True)},
    # The server's operator (server/operator.py): `do` is "tables" or "close" (with `table`).
    "operator": {"key": (_STR, True), "do": (_STR, True), "table": (_STR, False), "reason": (_STR, False)},
}

SERVER = {
    "welcome": {"version": (_STR, True), "server": (_STR, True), "key": (_BIN, True), "nonce": (_BIN, True),
                "cluster": (_LIST, False)},
    "tables": {"tables": (_LIST, True)},
    "created": {"table": (_STR, True), "expires": (float, False)},
    "seated": {"table": (_STR, True), "seat": (_INT, True), "player_id": (_STR, True)},
    "entry": {"table": (_STR, True), "payload": (_BIN, True), "sig": (_BIN, True)},
    "private": {"table": (_STR, True), "payload": (_BIN, True), "sig": (_BIN, True)},
    "snapshot": {"table": (_STR, True), "seq": (_INT, True), "view": (_MAP, True),
                 "hash": (_BIN, True), "events": (_LIST, True)},
    "delta": {"table": (_STR, True), "base": (_INT, True), "seq": (_INT, True),
              "ops": (_LIST, True), "hash": (_BIN, True), "events": (_LIST, True)},
    "ack": {"id": (_INT, True)},
    "reject": {"id": (_INT, True), "code": (_STR, True), "message": (_STR, True)},
    "status": {"table": (_STR, True), "seats": (_LIST, True), "blind": (_BOOL, False)},
    "clock": {"table": (_STR, True), "seq": (_INT, True), "left": (float, True)},
    "error": {"code": (_STR, True), "message": (_STR, True)},
    "notice": {"table": (_STR, True), "code": (_STR, True), "message": (_STR, True)},
    "chat": {"table": (_STR, True), "seat": (_INT, True), "name": (_STR, True), "text": (_STR, True)},
    # `processes`: the public addresses of a cluster's other live processes, to ask for theirs
    "operator_tables": {"tables": (_LIST, True), "processes": (_LIST, False)},
    "operator_closed": {"table": (_STR, True)},
    # Another server process of the same database serves the table (or is to hold a new one, the
    # answer to a create): connect to `url` and ask again.
    "redirect": {"url": (_STR, True), "table": (_STR, False)},
}


class WireError(Closed):
    """A frame that is not an acceptable message: a protocol violation, so the connection is
    closed with `close`, the WebSocket close code it deserves."""

    def __init__(self, code: str, message: str, close: int = CLOSE_BAD_FRAME) -> None:
        super().__init__(code, message)
        self.close = close


# ---------------------------------------------------------------------- padding
# Over TLS an eavesdropper still sees how long every frame is. A frame that carries what only one
# seat may see (its cards as ids and keys, their names in the log and in a question, the cards it
# picks) would tell by its length which cards those are: "You draw Well." is shorter than "You
# draw Silver smelter.", and a card id from 128 up takes a byte more. So every message of a type
# that can carry such things is padded. A view update to a seat (`snapshot`, `delta`) is padded to
# a length that only public things decide: its public part and the room its game says the seat's
# own fields can take at most (server/broadcast.py, games/contract.py `private_room`); it then
# tells nothing hidden, and bench/frames.py finds no frame whose length changes when the hidden
# cards are dealt anew. Every other padded frame goes to a size class whatever its content: 512
# bytes, or the next power of two above that (an act, which is small, from 128); a private
# message is always 512, whatever it names. The classes are powers of two so that the padding
# costs at most half of a frame. This relies on frames going out uncompressed (compression=None
# on both sides): a compressed frame's length would follow its content again.
PADDED = {"private": 512, "snapshot": 512, "delta": 512, "reject": 512, "act": 128}   # type -> smallest class


def padded_size(kind: str, n: int) -> int:
    """The size class of a frame of type `kind` that is at least n bytes long."""
    size = PADDED[kind]
    while size < n:
        size *= 2
    return size


_EMPTY_PAD = pack("pad") + pack(b"")        # how an empty pad field ends a packed map


def encode(msg: dict, at_least: int = 0) -> bytes:
    """The frame of a message. One of a type in PADDED is padded to the size class of its length;
    or, given `at_least` (a length that only what everyone sees decides: server/broadcast.py),
    to exactly that length if it holds the message, since such a length tells nothing hidden
    without a size class."""
    kind = msg.get("type")
    if kind not in PADDED:
        return pack(msg)
    empty = pack({**msg, "pad": b""})
    assert empty.endswith(_EMPTY_PAD)
    return _pad(kind, empty[:-2], at_least)     # everything up to the pad's bin header


def encode_packed(kind: str, packed: dict[str, bytes], at_least: int = 0) -> bytes:
    """`encode`'s frame of a message of type `kind` whose other fields' values are given packed
    (codec.pack_map): the same bytes, where a value several messages share is packed once
    (server/broadcast.py)."""
    if kind not in PADDED:
        return pack_map({"type": pack(kind), **packed})
    head = pack_map({"type": pack(kind), **packed, "pad": b""})     # the pad's key, and nothing of its value yet
    return _pad(kind, head, at_least)


def _pad(kind: str, head: bytes, at_least: int) -> bytes:
    """The frame of a message packed up to the bin header of its pad, the last field."""
    # "pad" goes last. Its bytes are written with a bin 16 header (bin 32 past 64 KiB) whatever
    # their number: msgpack allows any bin header for any length, and with the shortest one (2
    # bytes under 256, 3 from there) a frame could never be exactly 1 byte longer than a 255-byte
    # pad makes it, so some frames would have had to jump to the next class.
    size = at_least if at_least >= len(head) + 3 else padded_size(kind, len(head) + 3)
    k = size - len(head) - 3
    if k < 1 << 16:
        return head + b"\xc5" + k.to_bytes(2, "big") + bytes(k)
    k -= 2
    return head + b"\xc6" + k.to_bytes(4, "big") + bytes(k)


def signed_frame(table: str, m) -> bytes:
    """A signed message (protocol.messages.Signed, an entry or a private message) as sent."""
    return encode({"type": m.kind, "table": table, "payload": m.payload, "sig": m.sig})


def decode(frame, schema: dict = CLIENT, max_size: int = MAX_FRAME) -> dict:
    """A checked message from one frame, or WireError saying what was wrong."""
    if isinstance(frame, str):
        raise WireError("bad_frame", "text frames are not accepted: send binary msgpack frames")
    if len(frame) > max_size:
        raise WireError("too_big", f"frame of {len(frame)} bytes is over the limit of {max_size}", CLOSE_TOO_BIG)
    try:
        msg = unpack(frame, max_size)
    except DecodeError as e:
        raise WireError("bad_frame", e.message) from None
    if not isinstance(msg, dict) or not isinstance(msg.get("type"), str):
        raise WireError("bad_frame", "a message is a msgpack map with a string field 'type'")
    msg.pop("pad", None)   # padding only hides the frame's length: nothing reads it
    if msg.get("type") == "act" and "openings" in msg and msg["openings"] is None:
        del msg["openings"]    # nil: the move turns up none of the mover's cards
    fields = schema.get(msg["type"])
    if fields is None:
        raise WireError("bad_frame", f"unknown message type {msg['type']!r}")
    for name, (kind, required) in fields.items():
        if name not in msg:
            if required:
                raise WireError("bad_frame", f"a {msg['type']} message needs the field {name!r}")
            continue
        value = msg[name]
        if type(value) is not kind or (kind is int and isinstance(value, bool)):
            raise WireError("bad_frame", f"field {name!r} of a {msg['type']} message must be {kind.__name__}")
    if "sig" in fields and len(msg["sig"]) != SIGNATURE_BYTES:
        raise WireError("bad_frame", f"field 'sig' of a {msg['type']} message must be a {SIGNATURE_BYTES}-byte "
                                     f"signature, not {len(msg['sig'])} bytes")
    if msg["type"] == "sit" and len(msg["key"]) != PUBLIC_KEY_BYTES:
        raise WireError("bad_frame", f"field 'key' of a sit message must be a {PUBLIC_KEY_BYTES}-byte public key")
    _check_blind(msg)
    if msg["type"] == "act":
        try:
            action = unpack(msg["move"], max_size)
        except DecodeError as e:
            raise WireError("bad_frame", f"the move of an act is not msgpack: {e.message}") from None
        if not isinstance(action, list):
            raise WireError("bad_frame", "the move of an act is a list of options")
        _check_action(action)
        msg["action"] = action
    return msg


_SIZES = {"deal_key": POINT_BYTES, "deal_proof": PROOF_BYTES, "deal_sig": SIGNATURE_BYTES, "seed": SEED_BYTES}


def _check_blind(msg: dict) -> None:
    """The sizes of a blind table's fields: keys, proofs and seeds, a pile of n cards (n × 64
    bytes), shares of n cards (n handles, n × 32 and n × 64 bytes), n at most MAX_PILE. Whether
    they fit the table's pile or cards is the table's to say."""
    kind = msg["type"]
    for name, size in _SIZES.items():
        if kind in ("commit", "deal_seed") and name in msg and len(msg[name]) != size:
            raise WireError("bad_frame", f"field {name!r} of a {kind} message must be {size} bytes, "
                                         f"not {len(msg[name])}")
    if kind == "commit" and len({"deal_key", "deal_proof", "deal_sig"} & msg.keys()) not in (0, 3):
        raise WireError("bad_frame", "a commit carries its deal key, the key's proof and their signature, or none")
    if kind == "shuffle":
        pile = msg["pile"]
        if not pile or len(pile) % CIPHERTEXT_BYTES or len(pile) > MAX_PILE * CIPHERTEXT_BYTES:
            raise WireError("bad_frame", f"the pile of a shuffle message is 1 to {MAX_PILE} cards of "
                                         f"{CIPHERTEXT_BYTES} bytes, not {len(pile)} bytes")
    if kind == "shares":
        _check_shares(msg, "a shares message")
    if kind == "act" and msg.get("openings") is not None:
        openings = msg["openings"]
        for name, kind_of in (("cards", list), ("parts", bytes), ("proofs", bytes), ("sig", bytes)):
            if type(openings.get(name)) is not kind_of:
                raise WireError("bad_frame", f"the openings of an act need the field {name!r} ({kind_of.__name__})")
        if len(openings["sig"]) != SIGNATURE_BYTES:
            raise WireError("bad_frame", f"the openings' signature must be {SIGNATURE_BYTES} bytes")
        _check_shares(openings, "the openings of an act")


def _check_shares(msg: dict, what: str) -> None:
    cards = msg["cards"]
    n = len(cards)
    if not 1 <= n <= MAX_PILE:
        raise WireError("bad_frame", f"{what} names 1 to {MAX_PILE} cards, not {n}")
    if not all(type(c) is int for c in cards):
        raise WireError("bad_frame", f"the cards of {what} are handles (ints)")
    if len(msg["parts"]) != n * POINT_BYTES or len(msg["proofs"]) != n * PROOF_BYTES:
        raise WireError("bad_frame", f"{what} of {n} cards carries {n} × {POINT_BYTES} bytes of parts and "
                                     f"{n} × {PROOF_BYTES} of proofs, not {len(msg['parts'])} and "
                                     f"{len(msg['proofs'])}")


def chat_text(text: str) -> str:
    """A chat line as it may be shown: without control characters (Unicode category C: ESC,
    newlines, ...) and surrounding whitespace. The caller checks its length against MAX_CHAT."""
    return "".join(c for c in text if unicodedata.category(c)[0] != "C").strip()


def _check_action(action: list) -> None:
    """An action is a flat list of options. Checked here, before any game sees it, so that no
    shape a client can send (a list nested a thousand deep, thousands of options) costs the
    rules more than a look at a few plain values."""
    if len(action) > MAX_ACTION:
        raise WireError("bad_frame", f"an action picks at most {MAX_ACTION} options, not {len(action)}")
    for option in action:
        if type(option) not in (int, str):  # not bool either: True == 1 would pass for an option
            raise WireError("bad_frame", f"an action is a flat list of options, each an int or a string, "
                                         f"not a {type(option).__name__}")
