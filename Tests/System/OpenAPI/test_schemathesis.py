"""The API document (openapi.yaml) against the real `latchkey serve`: schemathesis (PyPI) reads the document the
server itself serves at /openapi.json, generates requests for every operation from it — valid ones and
invalid ones — and checks each answer: no 5xx, no status the operation does not document, no undocumented
content type, no body or header that breaks the documented schema. One stateless run (examples, coverage
and fuzzing phases) and one stateful run (sequences that follow the document's links, such as listing the
passkeys and then renaming or removing one), each bounded in time.

The server runs with --rate-limit 0: a fuzzer sends thousands of API requests a minute and would otherwise
mostly see 429 (documented, so allowed, but it would test nothing else); 429 itself is covered by
Tests/System/Hostile and the Swift tests. soft-webauthn makes ES256 keys with `none` attestation and no user
verification, so the server also runs with --user-verification preferred. Tokens come from
schemathesis_hooks.py.

LATCHKEY_SCHEMATHESIS_SECONDS (default 90) is the stateless run's budget, and LATCHKEY_SCHEMATHESIS_STATEFUL_SECONDS
(default 60) the stateful run's; LATCHKEY_SCHEMATHESIS_SEED makes a run repeatable (schemathesis prints the
seed it used)."""
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import urllib.request

import pytest
import schemathesis
import yaml
from soft_webauthn import SoftWebauthnDevice

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[2]
from latchkey_server import Server
from soft_webauthn_client import as_json, unb64url

import openapi_json

CHECKS = ",".join([
    "not_a_server_error", "status_code_conformance", "content_type_conformance", "response_schema_conformance",
    "response_headers_conformance",
])


@pytest.fixture(scope="module")
def server():
    # Mail goes to a port where nothing listens: the email routes answer as with a mail server (the sends
    # fail later, in the outbox, off the requests).
    instance = Server("--rate-limit", "0", "--user-verification", "preferred", "--access-tokens", "--oidc", "--signup", "open",
                      "--smtp-url", "smtp://127.0.0.1:9", "--recovery-email", "--signup-domain", "example.com",
                      env={"LATCHKEY_INTROSPECTION_SECRET": "schemathesis-does-not-know-this-secret-0123"})
    yield instance
    instance.stop()


def fetch(server, path):
    with urllib.request.urlopen(f"http://127.0.0.1:{server.port}{path}", timeout=30) as response:
        return response.headers.get("Content-Type"), response.read()


def test_served_document_is_openapi_yaml(server):
    """The committed copies are what openapi.yaml gives, and the server serves exactly them."""
    for path, content in openapi_json.expected().items():
        assert path.read_bytes() == content, f"{path.relative_to(ROOT)} is stale: run scripts/openapi-json"
    content_type, yaml_text = fetch(server, "/openapi.yaml")
    assert content_type.startswith("application/yaml")
    assert yaml_text == (ROOT / "openapi.yaml").read_bytes()
    content_type, json_text = fetch(server, "/openapi.json")
    assert content_type.startswith("application/json")
    assert json.loads(json_text) == yaml.safe_load(yaml_text)


class Conformance:
    """Calls operations of the served document one by one and holds each answer to it with the same checks
    as the runs below, for what schemathesis cannot make by itself: the answers of real ceremonies (it
    cannot sign one) and of the session cookie."""

    def __init__(self, server):
        self.server = server
        self.base = f"http://127.0.0.1:{server.port}"
        self.schema = schemathesis.openapi.from_url(f"{self.base}/openapi.json")
        self.checks = [getattr(schemathesis.checks, name) for name in CHECKS.split(",")]

    def call(self, method, path, status, body=None, token=None, headers=None, **path_parameters):
        """Calls `method path`; checks the answer against the document and its status; returns the answer."""
        payload = {} if body is None else {"body": body, "media_type": "application/json"}
        case = self.schema[path][method].Case(path_parameters=path_parameters or None, **payload)
        sent = dict(headers or {})
        if token:
            sent["Authorization"] = f"Bearer {token}"
        response = case.call(base_url=self.base, headers=sent)
        case.validate_response(response, checks=self.checks)
        assert response.status_code == status, f"{method} {path}: {response.status_code} {response.text}"
        return response

    def register(self, device, display_name=None, token=None):
        """Sign-up (`display_name`) or an added passkey (`token`), through both calls; the verify's answer."""
        body = {"displayName": display_name} if display_name else {"name": "Second"}
        options = self.call("POST", "/api/registration/options", 200, body=body, token=token).json()
        options["publicKey"]["challenge"] = unb64url(options["publicKey"]["challenge"])
        options["publicKey"]["user"]["id"] = unb64url(options["publicKey"]["user"]["id"])
        credential = as_json(device.create(options, self.server.origin))
        return self.call("POST", "/api/registration/verify", 201, body={"credential": credential}, token=token)

    def assertion(self, device):
        options = self.call("POST", "/api/login/options", 200).json()
        options["publicKey"]["challenge"] = unb64url(options["publicKey"]["challenge"])
        return as_json(device.get(options, self.server.origin))


def test_ceremonies_and_cookie_conform(server):
    """Sign-up, an added passkey, login, the cookie's Origin rule, removal down to the last passkey, a login
    with a removed passkey, a replayed challenge, logout and deletion: every answer as documented."""
    api = Conformance(server)
    first, second = SoftWebauthnDevice(), SoftWebauthnDevice()
    signed_up = api.register(first, display_name="Ada")
    assert signed_up.headers["set-cookie"][0].startswith("latchkey_session=")
    token = signed_up.json()["token"]
    added = api.register(second, token=token).json()["passkey"]

    assertion = api.assertion(first)
    logged_in = api.call("POST", "/api/login/verify", 200, body={"credential": assertion})
    api.call("POST", "/api/login/verify", 401, body={"credential": assertion})  # the challenge is used
    cookie = {"Cookie": f"latchkey_session={logged_in.json()['token']}"}
    api.call("PATCH", "/api/account", 403, body={"credo": "x"}, headers=cookie)
    api.call("PATCH", "/api/account", 403, body={"credo": "x"}, headers={**cookie, "Origin": "https://elsewhere.example"})
    api.call("PATCH", "/api/account", 200, body={"credo": "Passkeys\tonly"}, headers={**cookie, "Origin": server.origin})
    api.call("GET", "/api/account", 200, headers=cookie)

    passkeys = api.call("GET", "/api/account/passkeys", 200, token=token).json()
    assert {passkey["id"] for passkey in passkeys} >= {added["id"]}
    api.call("PATCH", "/api/account/passkeys/{id}", 200, body={"name": "Laptop"}, token=token, id=added["id"])
    api.call("DELETE", "/api/account/passkeys/{id}", 204, token=token, id=added["id"])
    api.call("DELETE", "/api/account/passkeys/{id}", 404, token=token, id=added["id"])
    api.call("POST", "/api/login/verify", 404, body={"credential": api.assertion(second)})
    only = api.call("GET", "/api/account/passkeys", 200, token=token).json()[0]["id"]
    api.call("DELETE", "/api/account/passkeys/{id}", 409, token=token, id=only)

    api.call("POST", "/api/logout", 204, token=logged_in.json()["token"])
    api.call("GET", "/api/account", 401, token=logged_in.json()["token"])
    api.call("POST", "/api/logout/everywhere", 204, token=token)
    other = api.register(SoftWebauthnDevice(), display_name="Grace").json()["token"]
    api.call("DELETE", "/api/account", 204, token=other)
    api.call("GET", "/api/account", 401, token=other)


def test_malformed_http_head_is_a_json_400(server):
    """What the document's introduction says of a request that is not valid HTTP — the one kind the runs below
    leave out (schemathesis_hooks.FRAMING_HEADERS): answered before any route with 400 `malformed_http` in the
    API's JSON shape, and the connection closed; the server goes on. Each shape: an empty Content-Length, a
    header field without a colon, a request line that is not HTTP."""
    for request in [b"DELETE /api/account HTTP/1.1\r\nHost: x\r\nContent-Length:\r\n\r\n",
                    b"GET /api/account HTTP/1.1\r\nHost: x\r\nNo colon in this field\r\n\r\n",
                    b"GET / HTTP/9\x00\r\n\r\n"]:
        with server.connect() as connection:
            connection.sendall(request)
            received = b""
            while chunk := connection.recv(4096):
                received += chunk
        head, _, body = received.partition(b"\r\n\r\n")
        assert head.lower().startswith(b"http/1.1 400"), received
        assert b"connection: close" in head.lower() and b"application/json" in head.lower(), received
        assert json.loads(body)["error"]["code"] == "malformed_http", received
    assert fetch(server, "/healthz")[1] == b'{"status":"ok"}'


def run_schemathesis(server, phases, seconds):
    """`schemathesis run` on the served document; fails the test with schemathesis's report on any finding."""
    executable = pathlib.Path(sys.executable).parent / "schemathesis"
    with tempfile.TemporaryDirectory() as scratch:  # schemathesis keeps a cache in its working directory
        command = [
            str(executable), "run", f"http://127.0.0.1:{server.port}/openapi.json",
            "--url", f"http://127.0.0.1:{server.port}", "--phases", phases, "--checks", CHECKS,
            "--max-time", str(seconds), "--workers", "1", "--request-timeout", "10", "--no-color",
        ]
        if os.environ.get("LATCHKEY_SCHEMATHESIS_SEED"):
            command += ["--seed", os.environ["LATCHKEY_SCHEMATHESIS_SEED"]]
        environment = dict(
            os.environ, SCHEMATHESIS_HOOKS=str(HERE / "schemathesis_hooks.py"), LATCHKEY_OPENAPI_SERVER=server.origin,
        )
        finished = subprocess.run(
            command, env=environment, cwd=scratch, capture_output=True, text=True, timeout=seconds + 120,
        )
    output = finished.stdout + finished.stderr
    print(output[-6000:])
    assert finished.returncode == 0, f"schemathesis ({phases}) found problems:\n{output[-20000:]}"
    assert server.alive()


def test_stateless(server):
    """Every operation on its own: the document's examples, boundary and negative cases, then random ones."""
    run_schemathesis(server, "examples,coverage,fuzzing", int(os.environ.get("LATCHKEY_SCHEMATHESIS_SECONDS", "90")))


def test_stateful(server):
    """Sequences of calls along the document's links."""
    run_schemathesis(server, "stateful", int(os.environ.get("LATCHKEY_SCHEMATHESIS_STATEFUL_SECONDS", "60")))
