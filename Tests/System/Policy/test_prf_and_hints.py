"""Hints, credProps and PRF against a real `latchkey serve` (issue 32, items 3 and 4): `--registration-hints`
and `--login-hints` in the options; what a registration's client said — credProps' `rk`, prf's `enabled` —
recorded per passkey and shown by the API and `latchkey admin`; PRF inputs in the login options (the
configured `--prf-salt`, or the client's own `eval` / `evalByCredential`, checked), and a login's PRF
outputs handed back with the session and found nowhere else: not in the database (SQLite's file and
write-ahead log, PostgreSQL's rows) and not in the server's log. soft-webauthn has no PRF: the extension
outputs here are written by the test (the server only records or relays them, it cannot check them);
`latchkey login --prf-salt` with the software authenticator shows the real derivation end to end."""
import base64
import hashlib
import hmac
import json
import os
import pathlib
import secrets
import subprocess

import pytest
from soft_webauthn import SoftWebauthnDevice

from latchkey_server import Server
from processes import PrivatePostgres
from soft_webauthn_client import as_json, b64url, login_response, registration_response, unb64url

BINARY = os.environ.get("LATCHKEY_BIN", str(pathlib.Path(__file__).resolve().parents[3] / ".build" / "debug" / "latchkey"))
BASE = ("--rate-limit", "0", "--user-verification", "preferred")


def serve_fails(*flags, env=None):
    return subprocess.run([BINARY, "serve", "--port", "0", "--origin", "http://localhost:8080", "--database", "sqlite::memory:", *flags],
                          capture_output=True, text=True, timeout=60, env={**os.environ, **(env or {})})


def register(server, device, name, extension_results, token=None):
    """A registration (a new account, or with `token` a passkey added to it) whose client reported `extension_results`."""
    if token is None:
        status, credential = registration_response(server, device, name)
        assert status == 200, credential
    else:
        status, options = server.call("POST", "/api/registration/options", {"name": name}, token=token)
        assert status == 200, options
        options["publicKey"]["challenge"] = unb64url(options["publicKey"]["challenge"])
        options["publicKey"]["user"]["id"] = unb64url(options["publicKey"]["user"]["id"])
        credential = as_json(device.create(options, server.origin))
    credential["clientExtensionResults"] = extension_results
    return server.call("POST", "/api/registration/verify", {"credential": credential}, token=token)


def test_hints_go_in_the_options_as_configured_and_are_checked():
    with Server(*BASE, "--registration-hints", "security-key,hybrid", "--login-hints", "client-device") as server:
        status, options = server.call("POST", "/api/registration/options", {"displayName": "Ada"})
        assert status == 200 and options["publicKey"]["hints"] == ["security-key", "hybrid"], options
        # credProps and prf are asked for at every registration.
        assert options["publicKey"]["extensions"] == {"credProps": True, "prf": {}}, options
        status, options = server.call("POST", "/api/login/options")
        assert status == 200 and options["publicKey"]["hints"] == ["client-device"], options
        assert "extensions" not in options["publicKey"], "no PRF salt configured, none asked for"
    # From the environment too, in the order given; and none at all by default.
    with Server(*BASE, env={"LATCHKEY_LOGIN_HINTS": "hybrid,security-key"}) as server:
        assert server.call("POST", "/api/login/options")[1]["publicKey"]["hints"] == ["hybrid", "security-key"]
        assert "hints" not in server.call("POST", "/api/registration/options", {"displayName": "Ada"})[1]["publicKey"]
    result = serve_fails("--login-hints", "usb")
    assert result.returncode == 2 and "--login-hints must be security-key or client-device or hybrid" in result.stderr, result.stderr
    result = serve_fails("--registration-hints", "hybrid", "--registration-hints", "hybrid")
    assert result.returncode == 2 and "--registration-hints names a hint twice" in result.stderr, result.stderr
    result = serve_fails("--prf-salt", "not base64url!")
    assert result.returncode == 2 and "--prf-salt must be 1 to 64 bytes as base64url" in result.stderr, result.stderr
    result = serve_fails("--prf-salt", b64url(bytes(65)))
    assert result.returncode == 2 and "--prf-salt" in result.stderr, result.stderr


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request):
    """(a running server, how to read every row of its database as text)."""
    if request.param == "sqlite":
        with Server(*BASE, "--prf-salt", b64url(b"the relying party's salt")) as running:
            yield running, None
        return
    postgres = PrivatePostgres().up()
    try:
        with Server(*BASE, "--prf-salt", b64url(b"the relying party's salt"), database=postgres.url) as running:
            yield running, postgres
    finally:
        postgres.down()


def test_what_the_client_said_is_recorded_per_passkey_and_shown(backend):
    server, _ = backend
    status, body = register(server, SoftWebauthnDevice(), "Ada", {"credProps": {"rk": True}, "prf": {"enabled": True}})
    assert status == 201, body
    token, account = body["token"], body["account"]["id"]
    status, added = register(server, SoftWebauthnDevice(), "Key", {"credProps": {"rk": False}, "prf": {"enabled": False}}, token=token)
    assert status == 201, added
    assert added["passkey"]["discoverable"] is False and added["passkey"]["prfEnabled"] is False, added
    status, _ = register(server, SoftWebauthnDevice(), "Old browser", {}, token=token)
    assert status == 201
    status, passkeys = server.call("GET", "/api/account/passkeys", token=token)
    assert status == 200
    said = {p["name"]: (p["discoverable"], p["prfEnabled"]) for p in passkeys}
    assert said == {"Ada": (True, True), "Key": (False, False), "Old browser": (None, None)}, said

    # The operator's view of the account says it too ("?" where the client did not say).
    shown = subprocess.run([BINARY, "admin", "accounts", "show", account], capture_output=True, text=True, timeout=60,
                           env={**os.environ, "LATCHKEY_DATABASE": server.database})
    assert shown.returncode == 0, shown.stderr
    header = next(line for line in shown.stdout.splitlines() if line.startswith("PASSKEY ID"))
    assert header.split()[-2:] == ["DISCOVERABLE", "PRF"], header
    rows = {line.split()[1]: line.split()[-2:] for line in shown.stdout.splitlines() if line.split()[1:2] in (["Ada"], ["Key"])}
    assert rows == {"Ada": ["yes", "yes"], "Key": ["no", "no"]}, shown.stdout
    assert any(line.split()[-2:] == ["?", "?"] for line in shown.stdout.splitlines() if "Old" in line), shown.stdout
    detail = json.loads(subprocess.run([BINARY, "admin", "accounts", "show", account, "--json"], capture_output=True, text=True, timeout=60,
                                       env={**os.environ, "LATCHKEY_DATABASE": server.database}).stdout)
    assert sorted((p["name"], p["discoverable"], p["prfEnabled"]) for p in detail["passkeys"]) == [
        ("Ada", True, True), ("Key", False, False), ("Old browser", None, None)]


def database_text(server, postgres, tmp_path):
    """Everything the database holds, as bytes to search: SQLite's file and its write-ahead log, or every
    row of every PostgreSQL table as text (bytea as hex)."""
    if postgres is None:
        path = server.database.removeprefix("sqlite:")
        return b"".join(pathlib.Path(path + suffix).read_bytes() for suffix in ("", "-wal") if os.path.exists(path + suffix))
    tables = [row[0] for row in postgres.query(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()", database="latchkey")]
    return "\n".join(" ".join(row) for table in tables for row in postgres.query(f"SELECT t::text FROM {table} t", database="latchkey")).encode()


def forms(secret):
    """How 32 secret bytes could sit in a file: raw, base64url, base64, hex."""
    return [secret, b64url(secret).encode(), base64.b64encode(secret).rstrip(b"="), secret.hex().encode()]


def test_prf_outputs_are_handed_back_and_kept_nowhere(backend, tmp_path):
    server, postgres = backend
    device = SoftWebauthnDevice()
    status, body = register(server, device, "Ada", {"credProps": {"rk": True}, "prf": {"enabled": True}})
    assert status == 201, body

    # The configured salt is in every login's options, canonical base64url.
    status, credential = login_response(server, device)
    assert status == 200
    status, options = server.call("POST", "/api/login/options")
    assert options["publicKey"]["extensions"] == {"prf": {"eval": {"first": b64url(b"the relying party's salt")}}}, options
    assert options["publicKey"]["allowCredentials"] == []

    outputs = {"first": secrets.token_bytes(32), "second": secrets.token_bytes(32)}
    results = {name: b64url(value) for name, value in outputs.items()}
    # Outputs of the wrong size are refused before anything else, and the challenge stays usable.
    credential["clientExtensionResults"] = {"prf": {"results": {"first": b64url(bytes(31))}}}
    status, refused = server.call("POST", "/api/login/verify", {"credential": credential})
    assert status == 422 and refused["error"]["code"] == "invalid_prf", refused
    assert "credential.clientExtensionResults.prf.results.first" in refused["error"]["message"]
    credential["clientExtensionResults"] = {"prf": {"results": results}}
    status, session = server.call("POST", "/api/login/verify", {"credential": credential})
    assert status == 200, session
    assert session["prf"] == results, "the outputs come back with the session"
    # A login whose client reported none gets none.
    status, plain = login_response(server, device)
    status, session = server.call("POST", "/api/login/verify", {"credential": plain})
    assert status == 200 and "prf" not in session, session

    log = pathlib.Path(server.directory.name, "server.log").read_bytes()
    assert b"/api/login/verify" in log, "the log has the logins (it is the right file)"
    stored = database_text(server, postgres, tmp_path)
    assert b"Ada" in stored, "the database dump has the account (it is the right database)"
    for secret in outputs.values():
        for form in forms(secret):
            assert form not in log, "a PRF output is in the server's log"
            assert form not in stored, "a PRF output is in the database"


def test_a_clients_own_prf_inputs_are_checked_and_passed_on():
    with Server(*BASE) as server:
        first, second = b64url(b"first salt"), base64.urlsafe_b64encode(b"second salt").decode()  # padded: forgiven, sent without
        status, options = server.call("POST", "/api/login/options", {"prf": {"eval": {"first": first, "second": second}}})
        assert status == 200, options
        assert options["publicKey"]["extensions"] == {"prf": {"eval": {"first": first, "second": b64url(b"second salt")}}}
        assert options["publicKey"]["allowCredentials"] == []
        # evalByCredential names credentials the client knows: browsers take it only beside allowCredentials.
        ids = [b64url(bytes([n]) * 16) for n in (2, 1)]
        status, options = server.call("POST", "/api/login/options", {"prf": {"evalByCredential": {i: {"first": first} for i in ids}}})
        assert status == 200, options
        assert [c["id"] for c in options["publicKey"]["allowCredentials"]] == sorted(ids)
        assert set(options["publicKey"]["extensions"]["prf"]["evalByCredential"]) == set(ids)
        # Without a body, or with an empty one, nothing is asked for (no salt is configured).
        assert "extensions" not in server.call("POST", "/api/login/options", {})[1]["publicKey"]

        too_many = {b64url(n.to_bytes(2, "big") * 8): {"first": first} for n in range(33)}
        for body, fragment in [
            ({"prf": {}}, "prf needs eval, evalByCredential or both"),
            ({"prf": {"eval": {"first": "not base64url!"}}}, "prf.eval.first must be 1 to 64 bytes"),
            ({"prf": {"eval": {"first": ""}}}, "prf.eval.first must be 1 to 64 bytes"),
            ({"prf": {"eval": {"first": first, "second": b64url(bytes(65))}}}, "prf.eval.second must be 1 to 64 bytes"),
            ({"prf": {"evalByCredential": too_many}}, "at most 32 credentials"),
            ({"prf": {"evalByCredential": {"!": {"first": first}}}}, "not a credential id"),
        ]:
            status, refused = server.call("POST", "/api/login/options", body)
            assert status == 422 and refused["error"]["code"] == "invalid_prf" and fragment in refused["error"]["message"], (body, refused)
        for body, field in [({"prf": {"eval": {"second": first}}}, "prf.eval.first"), ({"prf": {"eval": "x"}}, "prf.eval"),
                            ({"prf": {"evalByCredential": {ids[0]: 1}}}, f"prf.evalByCredential.{ids[0]}")]:
            status, refused = server.call("POST", "/api/login/options", body)
            assert status == 400 and field in refused["error"]["message"], (body, refused)
        status, refused, _ = server.raw("POST", "/api/login/options", body=b"{", content_type="application/json")
        assert status == 400 and refused["error"]["code"] == "malformed_json"


def prf_output(secret, salt):
    """WebAuthn L3 §10.1.4 over CTAP2 hmac-secret, written out here: HMAC-SHA256(secret, SHA-256("WebAuthn PRF" ‖ 0 ‖ salt))."""
    return hmac.new(secret, hashlib.sha256(b"WebAuthn PRF\x00" + salt).digest(), hashlib.sha256).digest()


def test_latchkey_login_prf_salt_gives_the_software_authenticators_prf(tmp_path):
    salt = b"the relying party's salt"
    with Server(*BASE, "--prf-salt", b64url(salt)) as server:
        env = {**os.environ, "HOME": str(tmp_path), "XDG_CONFIG_HOME": "", "LATCHKEY_TOKEN_STORE": str(tmp_path / "sessions.json"),
               "LATCHKEY_AUTHENTICATOR_STORE": str(tmp_path / "authenticator.json"), "LATCHKEY_SERVER": server.url}

        def cli(*arguments):
            run = subprocess.run([BINARY, *arguments], capture_output=True, text=True, timeout=60, env=env)
            assert run.returncode == 0, (arguments, run.stderr)
            return run.stdout

        cli("register", "Ada")
        stored = json.loads((tmp_path / "authenticator.json").read_text())["state"]["passkeys"]
        secret = unb64url(stored[0]["prfSecret"])
        passkeys = json.loads(cli("passkeys", "list", "--json"))
        assert passkeys[0]["prfEnabled"] is True and passkeys[0]["discoverable"] is True, passkeys

        cli("logout")
        printed = json.loads(cli("login", "--json", "--prf-salt", b64url(b"mine"), "--prf-salt", b64url(b"other")))
        assert printed["prf"] == {"first": b64url(prf_output(secret, b"mine")), "second": b64url(prf_output(secret, b"other"))}, printed
        cli("logout")
        printed = json.loads(cli("login", "--json", "--prf"))
        assert printed["prf"] == {"first": b64url(prf_output(secret, salt))}, printed
        cli("logout")
        assert cli("login") == "Logged in as Ada.\n", "no output printed unless asked"

        log = pathlib.Path(server.directory.name, "server.log").read_bytes()
        database = server.database.removeprefix("sqlite:")
        files = b"".join(pathlib.Path(database + s).read_bytes() for s in ("", "-wal") if os.path.exists(database + s))
        for value in (prf_output(secret, b"mine"), prf_output(secret, b"other"), prf_output(secret, salt)):
            for form in forms(value):
                assert form not in log and form not in files
