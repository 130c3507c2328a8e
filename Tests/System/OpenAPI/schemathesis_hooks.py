"""Schemathesis hooks (loaded through SCHEMATHESIS_HOOKS by test_schemathesis.py): a real session token for
the operations that need one.

Schemathesis cannot sign a WebAuthn ceremony, so the token comes from a soft-webauthn device, registered
against the server named by LATCHKEY_OPENAPI_SERVER: a new account with two passkeys, so that removing one
can succeed (204) before the last one is refused (409). The token is kept until the server answers 401 —
an operation ended the session (logout, logout everywhere, the account deleted); schemathesis then asks for
a new one and replays the request once.

Only the operations that need a session get it. `registration/options` stays anonymous, so that its public
form (a new account's options, `displayName` checked) is the one fuzzed; with a session it adds a passkey,
which the ceremony test in test_schemathesis.py and this module's sign-up both do. On `login/verify` or
`registration/verify`, whose made-up credentials always fail verification (401), a token would only make
every failure look like an ended session and cost a new account."""
import os
import pathlib
import sys

import schemathesis
from soft_webauthn import SoftWebauthnDevice

# Loaded by the schemathesis command the test runs, outside pytest and Tests/System/pytest.ini's path setting.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "Support"))
from latchkey_server import Endpoint  # noqa: E402
from soft_webauthn_client import as_json, register, unb64url  # noqa: E402

SIGNED_IN = ["getAccount", "updateAccount", "deleteAccount", "logout", "logoutEverywhere", "listPasskeys", "renamePasskey",
             "removePasskey", "listApps", "removeApp"]


class Remote(Endpoint):
    """What soft_webauthn_client needs of a server — its origin and `call` — for one that is already running
    (the test started it; this module runs inside schemathesis). An `Endpoint` (plain http), so that `call`
    finds everything it uses (its base URL and TLS context since Endpoint learnt https)."""

    def __init__(self, url):
        super().__init__(int(url.rsplit(":", 1)[1]), url)


def signed_up_with_two_passkeys(server):
    """A new account's token; the account has two passkeys."""
    status, body = register(server, SoftWebauthnDevice(), "Schemathesis")
    if status != 201:
        raise RuntimeError(f"sign-up failed: {status} {body}")
    token = body["token"]
    status, options = server.call("POST", "/api/registration/options", {"name": "Second"}, token=token)
    if status != 200:
        raise RuntimeError(f"add-passkey options failed: {status} {options}")
    options["publicKey"]["challenge"] = unb64url(options["publicKey"]["challenge"])
    options["publicKey"]["user"]["id"] = unb64url(options["publicKey"]["user"]["id"])
    credential = as_json(SoftWebauthnDevice().create(options, server.origin))
    status, body = server.call("POST", "/api/registration/verify", {"credential": credential}, token=token)
    if status != 201:
        raise RuntimeError(f"adding a passkey failed: {status} {body}")
    return token


@schemathesis.auth(retry_on=[401]).apply_to(operation_id=SIGNED_IN)
class SessionToken:
    def get(self, case, context):
        return signed_up_with_two_passkeys(Remote(os.environ["LATCHKEY_OPENAPI_SERVER"]))

    def set(self, case, data, context):
        case.headers = case.headers or {}
        case.headers["Authorization"] = f"Bearer {data}"


# Headers that frame the HTTP message itself. Schemathesis's negative cases sometimes add them with made-up
# values (an empty Content-Length); such a request is not valid HTTP, and the HTTP layer answers it before
# any route with a bare 400 and no JSON body (said in the document's introduction; pinned by
# test_malformed_http_head_is_a_bare_400). The document's operations are about valid HTTP requests, so these
# headers are left to the HTTP client.
FRAMING_HEADERS = {"content-length", "transfer-encoding", "host", "connection", "expect", "upgrade", "te", "trailer"}


@schemathesis.hook
def before_call(context, case, kwargs):
    for headers in (case.headers, kwargs.get("headers")):
        if headers:
            for name in [name for name in headers if name.lower() in FRAMING_HEADERS]:
                del headers[name]
