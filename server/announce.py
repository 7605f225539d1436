"""Telling the local network that a server is here: DNS-SD over multicast DNS (what printers and
music players use), so that `governor join` with no address finds it (client/discover.py).

The service is `_governor._tcp.local.`; its instance name is the one the server was given (a
host's name, or a LAN party's "Ana's San Juan"), and its TXT record says what a client needs to
dial it and to know it can talk to it: the protocol version, the scheme (wss with TLS) and the
path, the games this server offers, and its key's fingerprint (a client whose server moved to
another address finds it again by it). Only IPv4 addresses are announced, and only when the
server can be reached from elsewhere: one bound to a loopback address has nobody to tell.

A name another server already announces is not taken from it: multicast DNS gives this server
the name with "-2" (or "-3", ...), and the server logs a warning naming the name it got, since a
stranger's server may have taken its name to pass for it (clients warn too: client/discover.py).
"""
from __future__ import annotations

import ipaddress
import logging
import socket

import ifaddr
from zeroconf import Error as ZeroconfError, InterfaceChoice, IPVersion
from zeroconf.asyncio import AsyncServiceInfo, AsyncZeroconf

import games
from protocol import wire

log = logging.getLogger("governor.server")

SERVICE = "_governor._tcp.local."
WILDCARDS = ("", "0.0.0.0", "::")
# DNS allows 63 bytes in a label; zeroconf adds "-2" to a name another server has taken.
NAME_BYTES = 56


class NotAnnounced(Exception):
    """Why the network was not told about a server (which runs all the same)."""


def addresses_to_announce(host: str) -> list[str]:
    """The IPv4 addresses other machines can reach a server bound to `host` at: every
    non-loopback one of this machine's for a wildcard, else `host`'s own unless it is loopback.
    Empty when there is nothing to announce (or `host` is IPv6 only or does not resolve)."""
    if host in WILDCARDS:
        found = [ip.ip for adapter in ifaddr.get_adapters() for ip in adapter.ips if ip.is_IPv4]
    else:
        try:
            found = [info[4][0] for info in socket.getaddrinfo(host, None, socket.AF_INET)]
        except OSError:
            return []
    return sorted({a for a in found if not ipaddress.ip_address(a).is_loopback})


def instance_name(name: str) -> str:
    """`name` cut to what a DNS-SD instance name may hold, whole characters only."""
    return name.encode()[:NAME_BYTES].decode(errors="ignore").strip() or "Governor"


class Announcement:
    """A server's announcement, from start() until stop() says goodbye to the network."""

    def __init__(self, zeroconf: AsyncZeroconf, info: AsyncServiceInfo) -> None:
        self.zeroconf = zeroconf
        self.info = info

    @property
    def name(self) -> str:
        """The name heard on the network (with "-2" if another server had the one asked for)."""
        return self.info.name.removesuffix("." + SERVICE)

    @classmethod
    async def start(cls, name: str, host: str, port: int, tls: bool, fingerprint: str = "") -> Announcement:
        """Announce the server listening on host:port; NotAnnounced says why not."""
        addresses = addresses_to_announce(host)
        if not addresses:
            raise NotAnnounced(f"other machines cannot reach it at {host} (only IPv4 addresses they "
                               "can reach are announced)")
        # A server bound to one address is announced on that interface only: elsewhere nobody
        # could reach it.
        interfaces = InterfaceChoice.All if host in WILDCARDS else addresses
        try:
            zeroconf = AsyncZeroconf(interfaces=interfaces, ip_version=IPVersion.V4Only)
        except (OSError, ZeroconfError) as e:
            raise NotAnnounced(f"multicast DNS is not available: {e}") from None
        machine = socket.gethostname().split(".")[0] or "governor"
        asked = instance_name(name)
        try:
            info = AsyncServiceInfo(
                SERVICE, f"{asked}.{SERVICE}", port=port, parsed_addresses=addresses,
                server=f"{machine}.local.",
                properties={"proto": wire.VERSION, "scheme": "wss" if tls else "ws", "path": "/",
                            "games": ",".join(games.GAMES), "key": fingerprint})
            await zeroconf.async_register_service(info, allow_name_change=True)
        except (OSError, ZeroconfError) as e:
            await zeroconf.async_close()
            raise NotAnnounced(f"multicast DNS refused the announcement: {e}") from None
        except BaseException:
            await zeroconf.async_close()
            raise
        announcement = cls(zeroconf, info)
        if announcement.name != asked:
            log.warning("another server on the local network announces the name %r: this one is announced "
                        "as %r; if that server is not yours, someone may be passing for this one (its players "
                        "should check the key fingerprint)", asked, announcement.name,
                        extra={"asked": asked, "announced": announcement.name})
        return announcement

    async def stop(self) -> None:
        """Withdraw the announcement (clients that heard it forget it) and close the sockets."""
        await self.zeroconf.async_unregister_all_services()
        await self.zeroconf.async_close()
