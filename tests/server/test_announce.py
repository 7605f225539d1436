"""What a server announces on the local network (server/announce.py), short of the network itself:
that is tested between two network namespaces in tests/client/test_lan.py."""
import pytest

from server.announce import NAME_BYTES, addresses_to_announce, instance_name


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.1.1", "localhost", "::1"])
def test_a_loopback_address_is_not_announced(host):
    assert addresses_to_announce(host) == []


def test_a_wildcard_announces_this_machines_addresses_but_loopback():
    addresses = addresses_to_announce("0.0.0.0")
    assert "127.0.0.1" not in addresses
    assert addresses == addresses_to_announce("::") == sorted(set(addresses))


def test_an_instance_name_fits_a_dns_label_in_whole_characters():
    assert instance_name("Ana's San Juan") == "Ana's San Juan"
    long = instance_name("Ünïcödé " * 20)
    assert len(long.encode()) <= NAME_BYTES and long.startswith("Ünïcödé")
    assert instance_name("   ") == "Governor"


async def test_a_server_on_loopback_says_why_it_is_not_announced(make_server):
    server = await make_server(announce="Governor on test")
    assert server.announcement is None
    assert "other machines cannot reach it at 127.0.0.1" in server.not_announced


async def test_a_server_asked_not_to_announce_says_nothing_about_it(make_server):
    server = await make_server()
    assert server.announcement is None and server.not_announced is None
