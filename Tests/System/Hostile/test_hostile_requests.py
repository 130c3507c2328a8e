"""Hostile requests against the REAL `latchkey serve` binary ($LATCHKEY_BIN), not an in-process router.

These are the shapes of SECURITY-FINDINGS, replayed over HTTP against the built server: deeply nested
JSON bodies (513 `[` trapped Foundation's JSONDecoder and took the whole process down) on every route
that reads a body, anonymous and with a bearer token; `android-safetynet` attestations whose JWS carries
a timestampMs of 1e300 (the `Int(_:)` trap) or a 513-`[` header; a CBOR attStmt of 11 000 distinct keys
(quadratic decoding); the rate limiter bypassed by spelling the path `//api/...`; half-sent requests and
idle keep-alive connections held open for ever; a client holding more connections than it may; and
"one character" fields of tens of kilobytes of combining marks, NULs and line breaks. Every test starts
its own server (a free port, a temporary SQLite database) and stops it however the test ends; after
the hostile requests the process must still be alive and answering. Run with the soft_webauthn venv:
`LATCHKEY_BIN=... .venv/soft_webauthn/bin/python -m pytest -q -p no:cacheprovider Tests/System/Hostile`.
"""
import base64
import hashlib
import json
import os
import socket
import struct
import time

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from cryptography.x509.oid import NameOID
from fido2 import cbor
from soft_webauthn import SoftWebauthnDevice

from latchkey_server import Server
from soft_webauthn_client import b64url, register

BODY_LIMIT = 64 * 1024
UV_PREFERRED = ("--user-verification", "preferred")
NO_RATE_LIMIT = ("--rate-limit", "0")


@pytest.fixture
def signed_in():
    """A server with one account registered by soft-webauthn: (server, token, passkey id)."""
    with Server(*UV_PREFERRED, *NO_RATE_LIMIT) as instance:
        status, body = register(instance, SoftWebauthnDevice(), "Mallory")
        assert status == 201, body
        token = body["token"]
        status, passkeys = instance.call("GET", "/api/account/passkeys", token=token)
        assert status == 200, passkeys
        if isinstance(passkeys, dict):
            passkeys = passkeys.get("passkeys", [])
        assert passkeys, "the new account lists no passkey"
        yield instance, token, passkeys[0]["id"]


def error_code(body):
    return body.get("error", {}).get("code") if isinstance(body, dict) else None


def assert_healthy(server, token=None):
    assert server.process.poll() is None, "the server process died"
    status, body = server.call("GET", "/healthz")
    assert status == 200, body
    if token is not None:
        status, body = server.call("GET", "/api/account", token=token)
        assert status == 200, f"the token stopped working: {status} {body}"


# --- 1. deep JSON on every body-reading route -------------------------------------------------------

def deep_bodies():
    shapes = {}
    for n in (513, 1000, 100000):
        shapes[f"{n} ["] = b"[" * n
        shapes[f"{n} [ then ]"] = b"[" * n + b"]" * n
        shapes[f'{n} {{"a":'] = b'{"a":' * n
        shapes[f'{n} {{"a": then 1 and }}'] = b'{"a":' * n + b"1" + b"}" * n
    return shapes


DEEP_BODIES = deep_bodies()


@pytest.mark.parametrize("shape", list(DEEP_BODIES))
def test_deep_json_on_every_body_reading_route(signed_in, shape):
    server, token, passkey_id = signed_in
    body = DEEP_BODIES[shape]
    routes = [
        ("POST", "/api/registration/options", None),
        ("POST", "/api/registration/verify", None),
        ("POST", "/api/login/verify", None),
        ("POST", "/api/registration/options", token),
        ("POST", "/api/registration/verify", token),
        ("PATCH", "/api/account", token),
        ("PATCH", f"/api/account/passkeys/{passkey_id}", token),
    ]
    expected = (413, "body_too_large") if len(body) > BODY_LIMIT else (400, "malformed_json")
    wrong = []
    for method, path, bearer in routes:
        status, answer, _ = server.raw(method, path, body, token=bearer)
        if (status, error_code(answer)) != expected:
            wrong.append(f"{method} {path} ({'token' if bearer else 'anonymous'}): {status} {answer}")
    assert not wrong, f"expected {expected} for {len(body)} bytes of {shape!r}:\n" + "\n".join(wrong)
    assert_healthy(server, token)


# --- 2. android-safetynet crash shapes --------------------------------------------------------------

def attestation_certificate():
    """A self-signed P-256 certificate for CN=attest.android.com, and its key."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "attest.android.com")])
    now = time.time()
    import datetime
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name).issuer_name(name).public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(datetime.datetime.fromtimestamp(now - 86400, datetime.timezone.utc))
        .not_valid_after(datetime.datetime.fromtimestamp(now + 86400 * 365, datetime.timezone.utc))
        .sign(key, hashes.SHA256())
    )
    return certificate, key


def authenticator_data(credential_id: bytes, credential_key, flags=0x45) -> bytes:
    numbers = credential_key.public_key().public_numbers()
    cose = cbor.encode({1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32, "big"), -3: numbers.y.to_bytes(32, "big")})
    return (hashlib.sha256(b"localhost").digest() + bytes([flags]) + struct.pack(">I", 0) + b"\x00" * 16
            + struct.pack(">H", len(credential_id)) + credential_id + cose)


def creation_client_data(server, challenge: str) -> bytes:
    return json.dumps({"type": "webauthn.create", "challenge": challenge, "origin": server.origin, "crossOrigin": False}).encode()


def registration_challenge(server) -> str:
    status, options = server.call("POST", "/api/registration/options", {"displayName": "Mallory"})
    assert status == 200, options
    return options["publicKey"]["challenge"]


def credential_body(credential_id: bytes, client_data: bytes, attestation_object: bytes) -> bytes:
    return json.dumps({"credential": {
        "id": b64url(credential_id), "rawId": b64url(credential_id), "type": "public-key",
        "response": {"clientDataJSON": b64url(client_data), "attestationObject": b64url(attestation_object)},
        "clientExtensionResults": {},
    }}).encode()


def safetynet_registration(server, header: bytes = None) -> bytes:
    """A registration body whose android-safetynet JWS is validly signed and bound to the ceremony, with
    timestampMs 1e300 (or, given `header`, that JWS header instead of the real one)."""
    challenge = registration_challenge(server)
    credential_id = os.urandom(32)
    auth_data = authenticator_data(credential_id, ec.generate_private_key(ec.SECP256R1()))
    client_data = creation_client_data(server, challenge)
    certificate, signing_key = attestation_certificate()
    if header is None:
        der = certificate.public_bytes(serialization.Encoding.DER)
        header = json.dumps({"alg": "ES256", "x5c": [base64.b64encode(der).decode()]}).encode()
    nonce = base64.b64encode(hashlib.sha256(auth_data + hashlib.sha256(client_data).digest()).digest()).decode()
    payload = ('{"nonce": "%s", "timestampMs": 1e300, "ctsProfileMatch": true}' % nonce).encode()
    signing_input = f"{b64url(header)}.{b64url(payload)}".encode()
    r, s = decode_dss_signature(signing_key.sign(signing_input, ec.ECDSA(hashes.SHA256())))
    jws = signing_input + b"." + b64url(r.to_bytes(32, "big") + s.to_bytes(32, "big")).encode()
    attestation_object = cbor.encode({"fmt": "android-safetynet", "attStmt": {"ver": "1", "response": jws}, "authData": auth_data})
    return credential_body(credential_id, client_data, attestation_object)


@pytest.mark.parametrize("server", [UV_PREFERRED], indirect=True)
def test_safetynet_timestamp_1e300_is_refused_not_a_crash(server):
    status, body, _ = server.raw("POST", "/api/registration/verify", safetynet_registration(server))
    assert server.process.poll() is None, "the server died on timestampMs 1e300"
    assert (status, error_code(body)) == (401, "attestation_statement_malformed"), (status, body)
    assert_healthy(server)


@pytest.mark.parametrize("server", [UV_PREFERRED], indirect=True)
def test_safetynet_jws_header_of_513_brackets_is_refused_not_a_crash(server):
    status, body, _ = server.raw("POST", "/api/registration/verify", safetynet_registration(server, header=b"[" * 513))
    assert server.process.poll() is None, "the server died on a JWS header of 513 ["
    assert 400 <= status < 500 and error_code(body), (status, body)
    assert_healthy(server)


# --- 3. a CBOR attStmt of 11 000 keys ---------------------------------------------------------------

@pytest.mark.parametrize("server", [UV_PREFERRED], indirect=True)
def test_attestation_statement_with_11000_keys_is_refused(server):
    challenge = registration_challenge(server)
    credential_id = os.urandom(32)
    auth_data = authenticator_data(credential_id, ec.generate_private_key(ec.SECP256R1()))
    statement = {key: 0 for key in range(11000)}
    attestation_object = cbor.encode({"fmt": "none", "attStmt": statement, "authData": auth_data})
    body = credential_body(credential_id, creation_client_data(server, challenge), attestation_object)
    assert len(body) <= BODY_LIMIT, len(body)
    status, answer, _ = server.raw("POST", "/api/registration/verify", body)
    assert (status, error_code(answer)) == (401, "attestation_object_malformed"), (status, answer)
    assert "more than 32 members" in answer["error"]["message"], answer
    assert_healthy(server)


# --- 4. the rate limiter and the spelling of the path -----------------------------------------------

@pytest.mark.parametrize("server", [("--rate-limit", "5")], indirect=True)
def test_double_slashes_do_not_bypass_the_rate_limit(server):
    for i in range(5):
        status, body, _ = server.raw("POST", "/api/login/options")
        assert status == 200, (i, status, body)
    for path in ("//api/login/options", "/api//login/options"):
        status, body, headers = server.raw("POST", path)
        assert (status, error_code(body)) == (429, "rate_limited"), (path, status, body)


@pytest.mark.parametrize("server", [("--rate-limit", "5")], indirect=True)
def test_double_slash_requests_count_against_the_same_bucket(server):
    for i in range(5):
        status, body, _ = server.raw("POST", "//api/login/options")
        assert status == 200, (i, status, body)
    status, body, _ = server.raw("POST", "/api/login/options")
    assert (status, error_code(body)) == (429, "rate_limited"), (status, body)


# --- 5. idle connections ----------------------------------------------------------------------------

def closed_by_server(connection, within: float) -> bool:
    """Reads until the server closes the connection (b'' or a reset) or `within` seconds pass."""
    deadline = time.monotonic() + within
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        connection.settimeout(left)
        try:
            if connection.recv(65536) == b"":
                return True
        except (ConnectionResetError, ConnectionAbortedError):
            return True
        except socket.timeout:
            return False


@pytest.mark.parametrize("server", [("--idle-timeout", "1")], indirect=True)
def test_a_half_sent_request_is_closed_after_the_idle_timeout(server):
    with server.connect() as connection:
        connection.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")  # no blank line: the head never ends
        assert closed_by_server(connection, within=10), "a half-sent request was held open for 10 s"
    assert_healthy(server)


@pytest.mark.parametrize("server", [("--idle-timeout", "1")], indirect=True)
@pytest.mark.parametrize("path", ["/api/account", "/api/login/options"])
def test_a_trickled_body_is_closed_after_the_idle_timeout(server, path):
    """Slowloris on the body: a byte every 0.3 s never lets the idle time-out strike, so the body has
    to arrive within the time-out of its head — on a route that reads the body and one that does not."""
    with server.connect() as connection:
        connection.sendall(f"PATCH {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                           "Content-Length: 1000\r\n\r\n{".encode())
        started = time.monotonic()
        closed_after = None
        while time.monotonic() - started < 10:
            time.sleep(0.3)
            try:
                connection.sendall(b" ")
            except (BrokenPipeError, ConnectionResetError):
                closed_after = time.monotonic() - started
                break
        assert closed_after is not None and closed_after < 5, f"a trickled body held the connection ({closed_after})"
    assert_healthy(server)


@pytest.mark.parametrize("server", [("--idle-timeout", "1")], indirect=True)
def test_an_idle_keep_alive_connection_is_closed_after_the_idle_timeout(server):
    with server.connect() as connection:
        connection.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        received = b""
        while b"\r\n\r\n" not in received or not received.rstrip().endswith(b"}"):
            chunk = connection.recv(65536)
            assert chunk, f"closed before the answer was complete: {received!r}"
            received += chunk
        assert received.startswith(b"HTTP/1.1 200"), received
        assert closed_by_server(connection, within=10), "an idle keep-alive connection was held open for 10 s"
    assert_healthy(server)


# --- 6. connection caps -----------------------------------------------------------------------------

def healthz_on_a_new_connection(server, within: float):
    """GET /healthz on a fresh connection, retried until it is answered or `within` seconds pass (a
    closed connection is released by the server a moment after the client closes it)."""
    deadline = time.monotonic() + within
    last = None
    while time.monotonic() < deadline:
        try:
            status, body, _ = server.raw("GET", "/healthz", body=None, timeout=5)
            if status == 200:
                return status, body
            last = (status, body)
        except (OSError, Exception) as error:  # http.client.RemoteDisconnected is an OSError too
            last = repr(error)
        time.sleep(0.1)
    return last


def answers(connection) -> bytes:
    """Sends a complete request on a held connection and returns the start of its answer."""
    connection.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    connection.settimeout(10)
    return connection.recv(65536)


def check_connection_cap(server, allowed: int):
    held = [server.connect() for _ in range(allowed)]
    try:
        with server.connect() as extra:
            assert closed_by_server(extra, within=5), f"connection {allowed + 1} was not closed by the server"
        # The held ones were admitted (and still work).
        for i, connection in enumerate(held):
            answer = answers(connection)
            assert answer.startswith(b"HTTP/1.1 200"), (i, answer)
        held.pop().close()
        result = healthz_on_a_new_connection(server, within=5)
        assert result and result[0] == 200, f"/healthz after one held connection was closed: {result}"
    finally:
        for connection in held:
            connection.close()
    assert server.process.poll() is None


@pytest.mark.parametrize("server", [("--max-connections-per-client", "4")], indirect=True)
def test_connections_over_the_per_client_cap_are_closed(server):
    check_connection_cap(server, allowed=4)


@pytest.mark.parametrize("server", [("--max-connections", "3")], indirect=True)
def test_at_the_total_cap_the_longest_waiting_connection_makes_room(server):
    """At the total bound the newcomer is not refused (16 addresses could then lock everyone out, review 3
    finding 5): the connection that has waited longest without a request is closed instead, and one that
    is answering a request never is."""
    held = [server.connect() for _ in range(3)]
    time.sleep(0.2)  # the server has counted all three before the fourth comes
    try:
        with server.connect() as newcomer:
            assert answers(newcomer).startswith(b"HTTP/1.1 200"), "the newcomer was not served"
        assert closed_by_server(held[0], within=5), "the longest-waiting connection was not closed to make room"
        for i, connection in enumerate(held[1:], start=1):
            answer = answers(connection)
            assert answer.startswith(b"HTTP/1.1 200"), (i, answer)
    finally:
        for connection in held:
            connection.close()
    assert server.process.poll() is None


# --- 7. byte caps on text fields --------------------------------------------------------------------

def patch_account(server, token, fields):
    body = json.dumps(fields, ensure_ascii=False).encode()
    assert len(body) <= BODY_LIMIT, len(body)
    return server.raw("PATCH", "/api/account", body, token=token)[:2]


def test_a_one_character_credo_of_60_kilobytes_is_refused(signed_in):
    server, token, _ = signed_in
    status, body = patch_account(server, token, {"credo": "e" + "\u0301" * 30000})
    assert (status, error_code(body)) == (422, "invalid_field"), (status, body)
    assert "credo" in body["error"]["message"], body
    assert_healthy(server, token)


def test_a_one_character_display_name_of_1201_bytes_is_refused(signed_in):
    server, token, _ = signed_in
    status, body = patch_account(server, token, {"displayName": "a" + "\u0301" * 600})
    assert (status, error_code(body)) == (422, "invalid_field"), (status, body)
    assert "displayName" in body["error"]["message"], body
    status, account = server.call("GET", "/api/account", token=token)
    assert status == 200 and account["displayName"] == "Mallory", account


def test_a_credo_with_a_nul_is_refused(signed_in):
    server, token, _ = signed_in
    status, body = patch_account(server, token, {"credo": "before\u0000after"})
    assert (status, error_code(body)) == (422, "invalid_field"), (status, body)
    assert "credo" in body["error"]["message"], body


def test_a_credo_over_two_lines_is_kept_exactly(signed_in):
    server, token, _ = signed_in
    status, body = patch_account(server, token, {"credo": "line1\nline2"})
    assert status == 200 and body["credo"] == "line1\nline2", (status, body)
    status, account = server.call("GET", "/api/account", token=token)
    assert status == 200 and account["credo"] == "line1\nline2", account


# --- found by Tests/System/Hostile/test_volume.py ----------------------------------------------------------------

@pytest.mark.parametrize("chunk", [b"zz\r\n{}\r\n0\r\n\r\n", b"-2\r\n{}\r\n0\r\n\r\n", b"10000\r\n" + b"x" * 70000 + b"\r\n0\r\n\r\n"])
@pytest.mark.parametrize("route", ["PATCH /api/account", "POST /api/registration/options"])
def test_broken_chunked_framing_is_a_400_not_a_500(signed_in, chunk, route):
    """A chunk size that is not hex, negative, or a chunk longer than it says: NIO's parser throws while
    the handler reads the body; that was a 500 `internal_error`."""
    server, token, _ = signed_in
    method, path = route.split()
    request = (f"{method} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nAuthorization: Bearer {token}\r\n"
               "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n").encode() + chunk
    with server.connect() as connection:
        connection.sendall(request)
        received = b""
        while True:
            data = connection.recv(65536)
            if not data:
                break
            received += data
    assert received.startswith(b"HTTP/1.1 400"), received[:200]
    assert b'"malformed_http"' in received
    assert_healthy(server)
