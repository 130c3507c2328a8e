"""The fixtures every suite under Tests/System shares (pytest finds this file above each suite's folder; a suite's
own conftest.py or test file may override a fixture by name). The helpers they stand on live in Support/, on the
path through pytest.ini: latchkey_server (Server, admin), soft_webauthn_client (register, login, person),
chromium (start_browser, accessible), backends (any_server: SQLite and PostgreSQL), processes."""
import pytest

from latchkey_server import Server


@pytest.fixture
def server(request):
    """A `latchkey serve` of its own for the test, with the flags of `@pytest.mark.parametrize("server", [(FLAGS…)],
    indirect=True)` (none without it), on a temporary SQLite database; stopped when the test ends."""
    with Server(*getattr(request, "param", ())) as instance:
        yield instance
