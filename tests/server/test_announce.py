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


# The two tests below announce on this machine's own network: one at a time (pytest-xdist's group),
# so that neither hears the other's names.
@pytest.mark.xdist_group("host-multicast")
async def test_a_name_another_server_announces_is_not_taken_and_the_name_got_is_logged(caplog):
    """Multicast DNS gives the second server "-2"; it says so at warning level, naming both."""
    from server.announce import Announcement
    if not addresses_to_announce("0.0.0.0"):
        pytest.skip("this machine has no IPv4 address but loopback to announce on")
    first = await Announcement.start("Ana's San Juan", "0.0.0.0", 9701, False, "ab12")
    try:
        with caplog.at_level("INFO", logger="governor.server"):
            second = await Announcement.start("Ana's San Juan", "0.0.0.0", 9702, False, "cd34")
        try:
            assert (first.name, second.name) == ("Ana's San Juan", "Ana's San Juan-2")
        finally:
            await second.stop()
    finally:
        await first.stop()
    warned = [r for r in caplog.records if r.levelname == "WARNING"]
    assert len(warned) == 1
    assert ("another server on the local network announces the name \"Ana's San Juan\": this one is announced "
            "as \"Ana's San Juan-2\"") in warned[0].getMessage()


@pytest.mark.xdist_group("host-multicast")
async def test_a_name_nobody_else_announces_is_taken_without_a_warning(caplog):
    from server.announce import Announcement
    if not addresses_to_announce("0.0.0.0"):
        pytest.skip("this machine has no IPv4 address but loopback to announce on")
    with caplog.at_level("INFO", logger="governor.server"):
        only = await Announcement.start("Bo's own", "0.0.0.0", 9703, False, "ab12")
    await only.stop()
    assert only.name == "Bo's own" and not [r for r in caplog.records if r.levelname == "WARNING"]
