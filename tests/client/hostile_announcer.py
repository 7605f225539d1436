"""A hostile announcer on the LAN, for test_lan.py: multicast DNS answers built by hand, which no
well-behaved responder would send, repeated until it is stopped.

    python -m tests.client.hostile_announcer ADDRESS PORT

- "Zed" + a bidi override: a joinable server whose name and TXT record are full of control
  characters (its games: ESC sequences that clear the screen and retitle the window), and whose
  first address is on no network of the client;
- a name with ESC in it, which zeroconf itself refuses to resolve;
- a flood of FLOOD names that never give an address.
"""
from __future__ import annotations

import socket
import sys
import time

from zeroconf import DNSAddress, DNSOutgoing, DNSPointer, DNSService, DNSText, Zeroconf, const

from protocol import wire
from server.announce import SERVICE

FLOOD = 300       # far more than a client asks about (client/discover.py, MAX_ASKED)
TTL = 120


def txt(**fields: bytes) -> bytes:
    """A TXT record's strings, each prefixed with its length."""
    strings = [k.encode() + b"=" + v for k, v in fields.items()]
    return b"".join(bytes([len(s)]) + s for s in strings)


def answers(address: str, port: int) -> list:
    here = socket.inet_aton(address)
    records = []
    evil = f"Zed\u202eevil\u200b spoof.{SERVICE}"
    records += [
        DNSPointer(SERVICE, const._TYPE_PTR, const._CLASS_IN, TTL, evil),
        DNSService(evil, const._TYPE_SRV, const._CLASS_IN, TTL, 0, 0, port, "evil.local."),
        DNSText(evil, const._TYPE_TXT, const._CLASS_IN, TTL,
                txt(proto=wire.VERSION.encode(), scheme=b"ws", path=b"/",
                    games=b"\x1b[2J\x1b]0;pwned\x07,sanjuan," + b"\x1b[5m" * 30)),
        DNSAddress("evil.local.", const._TYPE_A, const._CLASS_IN, TTL, socket.inet_aton("198.51.100.7")),
        DNSAddress("evil.local.", const._TYPE_A, const._CLASS_IN, TTL, here),
    ]
    escaping = f"\x1b[2J\x1b]0;pwned\x07.{SERVICE}"
    records += [
        DNSPointer(SERVICE, const._TYPE_PTR, const._CLASS_IN, TTL, escaping),
        DNSService(escaping, const._TYPE_SRV, const._CLASS_IN, TTL, 0, 0, port, "evil.local."),
        DNSText(escaping, const._TYPE_TXT, const._CLASS_IN, TTL, txt(proto=wire.VERSION.encode())),
    ]
    records += [DNSPointer(SERVICE, const._TYPE_PTR, const._CLASS_IN, TTL, f"flood {i}.{SERVICE}")
                for i in range(FLOOD)]
    return records


def main() -> None:
    address, port = sys.argv[1], int(sys.argv[2])
    zeroconf = Zeroconf(interfaces=[address])
    records = answers(address, port)
    print("announcing", flush=True)
    try:
        while True:
            out = DNSOutgoing(const._FLAGS_QR_RESPONSE | const._FLAGS_AA)
            for record in records:
                out.add_answer_at_time(record, 0)
            zeroconf.send(out)
            time.sleep(0.2)
    except KeyboardInterrupt:
        pass
    finally:
        zeroconf.close()


if __name__ == "__main__":
    main()
