"""FIDO metadata (MDS3) against a real `latchkey serve` and `latchkey mds` (issue 32, item 2).

The real BLOB cannot be fetched here, so each test builds its own with `cryptography`
(Tests/System/Support/metadata_blob.py): a root CA, an intermediate and a signing leaf (the leaf and the intermediate in the JWT header's `x5c`), the payload
signed ES256 (or RS256). The BLOBs: a good one, a tampered one (payload changed after signing), an expired
one, one whose models include a revoked one, one chained to another root. Registrations use the software
authenticator's `packed` full attestation through `latchkey authenticator create --attestation packed`,
whose attestation root (`latchkey authenticator attestation-root`) the metadata lists for its AAGUID."""
import base64
import json
import os
import pathlib
import sqlite3
import subprocess

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from soft_webauthn import SoftWebauthnDevice

from latchkey_server import Server
from metadata_blob import PKI, entry, payload  # noqa:  (Tests/System/Support: the BLOBs and their certificates)
from processes import PrivatePostgres
from soft_webauthn_client import as_json, unb64url

BINARY = os.environ.get("LATCHKEY_BIN", str(pathlib.Path(__file__).resolve().parents[3] / ".build" / "debug" / "latchkey"))
SOFT_AAGUID = "6c617463-686b-6579-536f-667441757468"  # SoftAuthenticator's model: "latchkeySoftAuth"
OTHER_AAGUID = "cb69481e-8ff7-4039-93ec-0a2729a154a8"
BASE = ("--rate-limit", "0", "--attestation", "direct")


def attestation_root(store):
    """The software authenticator's attestation root, as metadata lists it (base64 DER)."""
    pem = subprocess.run([BINARY, "authenticator", "attestation-root", "--store", str(store)], capture_output=True, text=True, timeout=60, check=True).stdout
    return base64.b64encode(x509.load_pem_x509_certificate(pem.encode()).public_bytes(serialization.Encoding.DER)).decode()


def register_packed(server, store, name, token=None):
    """A registration whose response `latchkey authenticator create --attestation packed` made."""
    status, options = server.call("POST", "/api/registration/options", {"displayName": name}, token=token)
    assert status == 200, options
    made = subprocess.run([BINARY, "authenticator", "create", "--origin", server.origin, "--attestation", "packed", "--store", str(store)],
                          input=json.dumps(options), capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made.stderr
    return server.call("POST", "/api/registration/verify", {"credential": json.loads(made.stdout)}, token=token)


def register_none(server, name):
    """A registration by soft-webauthn (attestation none, AAGUID zero): an account to add passkeys to."""
    status, options = server.call("POST", "/api/registration/options", {"displayName": name})
    options["publicKey"]["challenge"] = unb64url(options["publicKey"]["challenge"])
    options["publicKey"]["user"]["id"] = unb64url(options["publicKey"]["user"]["id"])
    options["publicKey"]["attestation"] = "none"
    return server.call("POST", "/api/registration/verify", {"credential": as_json(SoftWebauthnDevice().create(options, server.origin))})


def mds(*arguments, database, env=None):
    """`latchkey mds …` on `database` (given in LATCHKEY_DATABASE: a PostgreSQL URL holds a password)."""
    return subprocess.run([BINARY, "mds", *arguments], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **(env or {}), "LATCHKEY_DATABASE": database})


def write(tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


def serve_fails(*flags):
    return subprocess.run([BINARY, "serve", "--port", "0", "--origin", "http://localhost:8080", "--database", "sqlite::memory:", *flags],
                          capture_output=True, text=True, timeout=60)


def test_a_good_blob_anchors_the_models_attestation_and_is_stored(tmp_path):
    pki = PKI()
    store = tmp_path / "authenticator.json"
    blob = pki.blob(payload(7, [entry(SOFT_AAGUID, "Latchkey SoftAuthenticator", [attestation_root(store)],
                                      icon="data:image/png;base64,iVBORw0KGgo="),
                                entry(OTHER_AAGUID, "A Security Key"), {"aaid": "4e4e#4005", "metadataStatement": {"description": "UAF"}}]))
    files = (write(tmp_path, "blob.jwt", blob), write(tmp_path, "root.pem", pki.root_pem()))
    # Without metadata the same attestation is not verified: nothing anchors it.
    with Server(*BASE) as server:
        status, body = register_packed(server, store, "before")
        assert status == 201, body
        passkeys = server.call("GET", "/api/account/passkeys", token=body["token"])[1]
        assert passkeys[0]["attestationFormat"] == "packed" and passkeys[0]["attestationVerified"] is False
    with Server(*BASE, "--mds-blob", files[0], "--mds-root", files[1]) as server:
        status, body = register_packed(server, store, "Ada")
        assert status == 201, body
        passkeys = server.call("GET", "/api/account/passkeys", token=body["token"])[1]
        assert passkeys[0]["attestationVerified"] is True, passkeys
        # The community list has no name for this AAGUID; the metadata has.
        assert passkeys[0]["provider"]["name"] == "Latchkey SoftAuthenticator"
        shown = json.loads(mds("show", "--json", database=server.database).stdout)
        assert shown["serial"] == 7 and shown["entries"] == 2 and shown["outOfDate"] is False
        model = json.loads(mds("show", "--aaguid", SOFT_AAGUID, "--json", database=server.database).stdout)
        assert model["status"] == "FIDO_CERTIFIED_L1" and model["attestationRootCertificates"] == 1 and model["compromised"] is False
        assert model["icon"] == "data:image/png;base64,iVBORw0KGgo="
        trail = json.loads(subprocess.run([BINARY, "admin", "audit", "--event", "metadata.loaded", "--json", "--database", server.database],
                                          capture_output=True, text=True, timeout=60).stdout)["events"]
        assert len(trail) == 1 and trail[0]["detail"]["serial"] == 7 and trail[0]["actor"] == "system", trail


def test_another_authenticator_claiming_the_model_fails_its_chain(tmp_path):
    """The metadata's roots are the model's: an attestation chained elsewhere is refused, not merely unverified."""
    pki = PKI()
    listed, impostor = tmp_path / "listed.json", tmp_path / "impostor.json"
    blob = pki.blob(payload(1, [entry(SOFT_AAGUID, "Latchkey SoftAuthenticator", [attestation_root(listed)])]))
    with Server(*BASE, "--mds-blob", write(tmp_path, "blob.jwt", blob), "--mds-root", write(tmp_path, "root.pem", pki.root_pem())) as server:
        status, body = register_packed(server, impostor, "impostor")
        assert status == 401 and body["error"]["code"] == "attestation_chain_invalid", body


def test_blobs_that_are_tampered_expired_unsigned_by_the_root_or_without_terms_are_refused(tmp_path):
    pki, other = PKI(), PKI("Another Root")
    database = f"sqlite:{tmp_path}/db.sqlite"
    root = write(tmp_path, "root.pem", pki.root_pem())
    good = [entry(OTHER_AAGUID, "A Security Key")]

    def load(name, blob, root_file=root):
        return mds("load", write(tmp_path, name, blob), "--root", root_file, database=database)

    tampered = load("tampered.jwt", pki.blob(payload(2, good), tamper=lambda p: p["entries"][0]["statusReports"].clear()))
    assert tampered.returncode == 1 and "signature" in tampered.stderr, tampered.stderr
    expired = load("expired.jwt", pki.blob(payload(2, good, next_update="2024-03-01")))
    assert expired.returncode == 1 and "2024-03-01" in expired.stderr and "out of date" in expired.stderr, expired.stderr
    elsewhere = load("other.jwt", other.blob(payload(2, good)))
    assert elsewhere.returncode == 1 and "chain" in elsewhere.stderr, elsewhere.stderr
    # The default root is the FIDO Alliance's: a test root's BLOB does not chain to it.
    default = mds("load", write(tmp_path, "default.jwt", pki.blob(payload(2, good))), database=database)
    assert default.returncode == 1 and "chain" in default.stderr, default.stderr
    unlicensed = load("nolegal.jwt", pki.blob(payload(2, good, legal=False)))
    assert unlicensed.returncode == 1 and "legalHeader" in unlicensed.stderr, unlicensed.stderr
    garbage = load("garbage.jwt", b"not a JWT at all")
    assert garbage.returncode == 1 and "JWT" in garbage.stderr, garbage.stderr
    missing = mds("load", str(tmp_path / "absent.jwt"), database=database)
    assert missing.returncode == 2 and "cannot be opened" in missing.stderr, missing.stderr
    assert "No FIDO metadata is loaded" in mds("show", database=database).stdout
    # An RS256 BLOB (the real one is) loads like an ES256 one.
    signed_rsa = PKI("RSA Root", rsa_leaf=True)
    loaded = mds("load", write(tmp_path, "rsa.jwt", signed_rsa.blob(payload(3, good))), "--root", write(tmp_path, "rsa.pem", signed_rsa.root_pem()),
                 database=database)
    assert loaded.returncode == 0 and "Loaded metadata BLOB 3" in loaded.stdout, loaded.stderr
    # The server refuses to start on an expired BLOB, in one sentence naming the date.
    refused = serve_fails("--mds-blob", str(tmp_path / "expired.jwt"), "--mds-root", root)
    assert refused.returncode == 2 and "2024-03-01" in refused.stderr, refused.stderr
    assert serve_fails("--mds-root", root).returncode == 2


def test_a_newer_blob_replaces_the_older_and_an_older_one_is_refused(tmp_path):
    pki = PKI()
    database = f"sqlite:{tmp_path}/db.sqlite"
    root = write(tmp_path, "root.pem", pki.root_pem())
    first = mds("load", write(tmp_path, "5.jwt", pki.blob(payload(5, [entry(OTHER_AAGUID, "Key v1")]))), "--root", root, database=database)
    assert first.returncode == 0, first.stderr
    newer = mds("load", write(tmp_path, "6.jwt", pki.blob(payload(6, [entry(SOFT_AAGUID, "Soft")]))), "--root", root, database=database)
    assert newer.returncode == 0 and "replacing BLOB 5" in newer.stdout, newer.stdout
    again = mds("load", str(tmp_path / "6.jwt"), "--root", root, database=database)
    assert again.returncode == 0 and "loaded already" in again.stdout, again.stdout
    older = mds("load", str(tmp_path / "5.jwt"), "--root", root, database=database)
    assert older.returncode == 1 and "Kept BLOB 6" in older.stderr, older.stderr
    # The newer BLOB's entries replaced the older's entirely.
    with sqlite3.connect(f"{tmp_path}/db.sqlite") as connection:
        assert [row[0] for row in connection.execute("SELECT description FROM metadata_entries")] == ["Soft"]
        assert connection.execute("SELECT serial FROM metadata_blob").fetchall() == [(6,)]
    # serve with the older file keeps the newer stored BLOB and starts.
    with Server("--mds-blob", str(tmp_path / "5.jwt"), "--mds-root", root, database=database,
                env={"LATCHKEY_KEY_FILE": str(tmp_path / "latchkey.key")}) as server:
        assert server.call("GET", "/healthz")[0] == 200
    assert json.loads(mds("show", "--json", database=database).stdout)["serial"] == 6


@pytest.fixture(params=["sqlite", "postgres"])
def database(request, tmp_path):
    if request.param == "sqlite":
        yield f"sqlite:{tmp_path}/db.sqlite"
        return
    postgres = PrivatePostgres().up()
    try:
        yield postgres.url
    finally:
        postgres.down()


@pytest.mark.parametrize("status,words", [
    ("REVOKED", "revoked"),
    ("USER_VERIFICATION_BYPASS", "skip its PIN"),
])
def test_a_model_whose_latest_status_is_a_compromise_is_refused_in_words_and_audited(tmp_path, database, status, words):
    pki = PKI()
    store = tmp_path / "authenticator.json"
    root = write(tmp_path, "root.pem", pki.root_pem())
    statuses = (("FIDO_CERTIFIED_L1", "2023-05-01"), (status, "2024-06-01"))
    blob = write(tmp_path, "blob.jwt", pki.blob(payload(3, [entry(SOFT_AAGUID, "Latchkey SoftAuthenticator", [attestation_root(store)], statuses)])))
    env = {"LATCHKEY_DATABASE": database, "LATCHKEY_KEY_FILE": str(tmp_path / "latchkey.key")}
    with Server(*BASE, "--user-verification", "preferred", database=database, env=env) as server:
        # A passkey of the model registered before the metadata said anything.
        status_code, before = register_packed(server, store, "Early")
        assert status_code == 201, before
        assert mds("load", blob, "--root", root, database=database, env=env).returncode == 0
        # A sign-up is refused (no account to audit on) ...
        code, body = register_packed(server, store, "Late")
        assert code == 403 and body["error"]["code"] == "authenticator_not_allowed", body
        assert words in body["error"]["message"] and status in body["error"]["message"] and "Latchkey SoftAuthenticator" in body["error"]["message"]
        # ... and adding one to an account is refused and audited on it.
        code, account = register_none(server, "Someone")
        assert code == 201, account
        code, body = register_packed(server, store, "Added", token=account["token"])
        assert code == 403 and words in body["error"]["message"], body
    trail = json.loads(subprocess.run([BINARY, "admin", "audit", "--account", account["account"]["id"], "--event", "passkey.refused", "--json"],
                                      capture_output=True, text=True, timeout=60, env={**os.environ, **env}).stdout)["events"]
    assert len(trail) == 1 and status in trail[0]["detail"]["rule"] and trail[0]["detail"]["aaguid"] == SOFT_AAGUID, trail
    # The passkey from before keeps working, and the operator finds it.
    listed = subprocess.run([BINARY, "admin", "passkeys", "list", "--violating-policy", "--json"], capture_output=True, text=True, timeout=60,
                            env={**os.environ, **env})
    rows = json.loads(listed.stdout)
    assert [row["accountId"] for row in rows] == [before["account"]["id"]] and status in rows[0]["violations"][0], rows


def test_a_compromise_that_an_update_followed_no_longer_refuses(tmp_path):
    """Only the latest report counts: USER_VERIFICATION_BYPASS then UPDATE_AVAILABLE and a new certification."""
    pki = PKI()
    store = tmp_path / "authenticator.json"
    statuses = (("USER_VERIFICATION_BYPASS", "2023-01-01"), ("UPDATE_AVAILABLE", "2023-02-01"), ("FIDO_CERTIFIED_L2", "2023-03-01"))
    blob = pki.blob(payload(4, [entry(SOFT_AAGUID, "Latchkey SoftAuthenticator", [attestation_root(store)], statuses)]))
    with Server(*BASE, "--mds-blob", write(tmp_path, "blob.jwt", blob), "--mds-root", write(tmp_path, "root.pem", pki.root_pem())) as server:
        status, body = register_packed(server, store, "Updated")
        assert status == 201, body
