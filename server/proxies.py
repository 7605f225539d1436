"""Who a client is when it comes through a proxy the host trusts (`trusted_proxies`).

Behind a proxy (one that ends TLS, a load balancer) every connection comes from the proxy's
address, and the per-address limits would count every player as one. For a connection from one
of the trusted proxies' addresses, the client's address is read from what the proxy says:

- a PROXY protocol header, version 1 (HAProxy's): the line `PROXY TCP4 CLIENT SERVER CPORT SPORT`
  (or TCP6, or UNKNOWN: the proxy's own address then) before anything else on the connection;
- else the last address of the WebSocket handshake's `X-Forwarded-For` header that is not itself a
  trusted proxy (each proxy appends the address it heard from, so those before it are what the
  client claimed, and anyone may claim anything).

From any other peer both are ignored, as anyone may send them: the peer's address is the client's.
A trusted proxy's connection with neither, or whose last hop is no address, counts as the
proxy's address, and the server warns of it (at most once a minute): all its clients then share
the limits of one address."""
from __future__ import annotations

import ipaddress

PROXY_PREFIX = b"PROXY "
PROXY_MAX = 107         # bytes of a version 1 header at most, its CRLF included (the protocol's bound)


class ProxyError(ValueError):
    """A PROXY header that is not one: the connection is cut."""


def networks(text: str | None) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    """The trusted proxies of a setting: addresses or networks (CIDR), separated by commas.
    Raises ValueError naming the one that is neither."""
    out = []
    for item in (text or "").split(","):
        item = item.strip()
        if not item:
            continue
        try:
            out.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            raise ValueError(f"{item!r} is neither an IP address nor a network (such as 10.0.0.0/8)") from None
    return tuple(out)


def trusted(nets, ip: str) -> bool:
    try:
        address = ipaddress.ip_address(ip)
    except ValueError:
        return False
    if address.version == 6 and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return any(address in net for net in nets)


def proxy_header(line: bytes) -> str | None:
    """The client's address in a PROXY version 1 header (its line, CRLF included); None for
    `PROXY UNKNOWN`. Raises ProxyError when it is not a valid header."""
    words = line.rstrip(b"\r\n").decode("ascii", "replace").split(" ")
    if not line.endswith(b"\r\n") or len(words) < 2 or words[0] != "PROXY":
        raise ProxyError("not a PROXY protocol header")
    if words[1] == "UNKNOWN":
        return None
    if words[1] not in ("TCP4", "TCP6") or len(words) != 6:
        raise ProxyError("a PROXY header is PROXY TCP4|TCP6 SOURCE DESTINATION SPORT DPORT")
    try:
        source = ipaddress.ip_address(words[2])
    except ValueError:
        raise ProxyError(f"{words[2][:45]!r} is no IP address") from None
    if source.version != (4 if words[1] == "TCP4" else 6):
        raise ProxyError(f"{words[2]} is not a {words[1]} address")
    return str(source)


def forwarded_for(nets, values: list[str]) -> str | None:
    """The client's address in the X-Forwarded-For headers (each a list of addresses, oldest
    first): the last one that is not a trusted proxy; None when there is none, or it is no
    address (what the proxy appended is then unknown: the proxy's own address counts, and the
    server warns of it)."""
    hops = [hop.strip() for value in values for hop in value.split(",") if hop.strip()]
    for hop in reversed(hops):
        address = hop_address(hop)
        if address is None or not trusted(nets, address):
            return address
    return None


def hop_address(hop: str) -> str | None:
    """The address of one X-Forwarded-For hop, which proxies write as `1.2.3.4`, `1.2.3.4:5678`,
    `2001:db8::1`, `[2001:db8::1]` or `[2001:db8::1]:80`; None for anything else (`unknown`, a
    name)."""
    if hop.startswith("["):
        hop, bracket, port = hop[1:].partition("]")
        if not bracket or port and not (port[0] == ":" and _port(port[1:])):
            return None
    elif hop.count(":") == 1:
        hop, _, port = hop.partition(":")
        if not _port(port):
            return None
    try:
        return str(ipaddress.ip_address(hop))
    except ValueError:
        return None


def _port(text: str) -> bool:
    return text.isascii() and text.isdigit() and len(text) <= 5
