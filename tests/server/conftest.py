"""A real server on 127.0.0.1, port 0, in this process, with a fresh data directory; and a real
PostgreSQL server for the tests that ask for one, with a fresh database for each test."""
from __future__ import annotations

import itertools
import tempfile

import pytest

from server.app import Server


@pytest.fixture
async def make_server(tmp_path):
    servers = []

    async def make(**kw):
        kw.setdefault("bot_processes", False)
        # Headless clients move far faster than people: the flooding test sets the real rate.
        kw.setdefault("rate", 10_000.0)
        kw.setdefault("burst", 10_000)
        # ... and every test comes from one address: the tests of the per-address limits set theirs.
        kw.setdefault("tables_per_addr", 1000)
        kw.setdefault("tables_per_net", 1000)
        kw.setdefault("tables_per_window", 1000)
        kw.setdefault("watch_rate", 10_000.0)
        kw.setdefault("watch_burst", 10_000)
        kw.setdefault("conn_rate", 10_000.0)
        kw.setdefault("conn_burst", 10_000)
        server = Server(kw.pop("data_dir", tmp_path / "data"), "127.0.0.1", 0, **kw)
        await server.start()
        servers.append(server)
        return server

    yield make
    for s in servers:
        await s.stop()


@pytest.fixture
async def server(make_server):
    return await make_server()


@pytest.fixture(scope="session")
def postgres():
    """A private PostgreSQL server (the binaries come with the pgserver package) in a temporary
    folder, started once for the whole session when a test first needs it, stopped and deleted
    at the end. Not in pytest's own temporary folders: another pytest run of the same user
    deletes all but the newest three of those, and PostgreSQL stops when its folder goes."""
    import pgserver
    server = pgserver.get_server(tempfile.mkdtemp(prefix="governor-pg-"), cleanup_mode="delete")
    yield server
    server.cleanup()


_databases = itertools.count()


@pytest.fixture
def database(postgres):
    """The URL of a new, empty database on that server, dropped after the test."""
    name = f"test_{next(_databases)}"
    postgres.psql(f"CREATE DATABASE {name};")
    yield postgres.get_uri(name)
    postgres.psql(f"DROP DATABASE {name} WITH (FORCE);")
