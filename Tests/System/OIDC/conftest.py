"""One `latchkey serve --oidc` per test module (the suites' cases do not interfere: each makes its own people
and, where it matters, its own clients)."""
import pytest

from oidc_support import Provider


@pytest.fixture(scope="module")
def provider():
    instance = Provider()
    yield instance
    instance.stop()
