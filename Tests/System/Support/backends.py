"""`latchkey serve` on each database it supports, for suites whose cases must pass on both: SQLite (a
temporary file) and PostgreSQL (a private server of its own, `processes.PrivatePostgres`, stopped with
the case). `serving` is the context manager; `any_server` the pytest fixture over both, with the flags the
admin suites use (no rate limit, user verification preferred: soft-webauthn does none). A module uses the
fixture by importing it (`from backends import any_server  # noqa: F401`)."""
import contextlib

import pytest

from latchkey_server import Server
from processes import PrivatePostgres

BACKENDS = ("sqlite", "postgres")
ADMIN_FLAGS = ("--rate-limit", "0", "--user-verification", "preferred")


@contextlib.contextmanager
def serving(backend, *flags):
    """A running `latchkey serve` with `flags` on `backend` ("sqlite" or "postgres")."""
    if backend == "sqlite":
        with Server(*flags) as running:
            yield running
        return
    postgres = PrivatePostgres().up()
    try:
        with Server(*flags, database=postgres.url) as running:
            yield running
    finally:
        postgres.down()


@pytest.fixture(params=BACKENDS)
def any_server(request):
    """A server for the case, once on SQLite and once on PostgreSQL; `.database` is its database URL."""
    with serving(request.param, *ADMIN_FLAGS) as running:
        yield running
