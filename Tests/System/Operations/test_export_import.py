"""`latchkey export` and `latchkey import` (issue 33): a database moved SQLite → PostgreSQL → SQLite keeps its
people — each hop's server (with the first one's key file) signs the same passkeys in, with their counters —
and its OpenID Connect clients, profiles, admin keys, invitations and, with --sessions, the sessions themselves. Import is
all or nothing, refuses a non-empty database without --merge, a newer document, and a malformed one, each
with one sentence; the document holds no secret in clear."""
import hashlib
import json
import os
import pathlib
import sqlite3
import subprocess
import time

import pytest
from soft_webauthn import SoftWebauthnDevice

from latchkey_server import Server
from processes import PrivatePostgres
from soft_webauthn_client import login, register

BINARY = os.environ.get("LATCHKEY_BIN", str(pathlib.Path(__file__).resolve().parents[3] / ".build" / "debug" / "latchkey"))
SECRET = "lk_client_" + "E" * 43


def latchkey(*arguments, env=None, stdout=None):
    return subprocess.run([BINARY, *arguments], capture_output=stdout is None, stdout=stdout, text=True, timeout=120,
                          env={**os.environ, **(env or {})})


def export(database, path, *flags, env=None):
    result = latchkey("export", "--database", database, "--output", str(path), *flags, env=env)
    assert result.returncode == 0, result
    return [json.loads(line) for line in pathlib.Path(path).read_text().splitlines()]


def import_(database, path, *flags, env=None):
    return latchkey("import", str(path), "--database", database, *flags, env=env)


def signs_in(server, people):
    for account, device in people:
        status, body = login(server, device)
        assert status == 200 and body["account"]["id"] == account, body


@pytest.mark.skipif(not PrivatePostgres.installed(), reason="PostgreSQL 15 is installed by scripts/provision")
def test_sqlite_to_postgres_and_back(tmp_path):
    postgres = PrivatePostgres().up()
    try:
        with Server("--user-verification", "preferred", "--oidc", "--signup", "open") as first:
            people = []
            for n in range(3):
                device = SoftWebauthnDevice()
                status, body = register(first, device, f"Person {n}")
                assert status == 201, body
                people.append((body["account"]["id"], device))
            signs_in(first, people)
            session = register(first, SoftWebauthnDevice(), "Signed in")[1]["token"]
            # An invitation, live: it goes along (its code's hash), and its link works after each hop.
            invited = latchkey("admin", "invites", "create", "--username", "invitee", "--group", "staff", "--json",
                               "--database", first.database)
            assert invited.returncode == 0, invited.stderr
            invitation = json.loads(invited.stdout)["code"]
            sqlite_path = first.database.split(":", 1)[1]
            now = int(time.time() * 1000)
            with sqlite3.connect(sqlite_path) as db:
                db.execute("UPDATE accounts SET username = 'person0', email = 'p0@example.com', email_verified = 1, group_names = 'staff' WHERE id = ?",
                           (people[0][0],))
                db.execute("INSERT INTO oidc_clients (id, name, secret_hash, redirect_uris, scopes, created_at, updated_at, created_by)"
                           " VALUES ('wiki', 'Wiki', ?, 'https://wiki.example/cb', 'openid profile', ?, ?, 'cli')",
                           (hashlib.sha256(SECRET.encode()).digest(), now, now))
            # The key file goes along with the document (the first server's directory goes when it stops).
            key_file = tmp_path / "latchkey.key"
            key_file.write_bytes((pathlib.Path(first.directory.name) / "latchkey.key").read_bytes())
            key_file.chmod(0o600)
            env = {"LATCHKEY_KEY_FILE": str(key_file)}
            document = export(first.database, tmp_path / "one.jsonl", "--sessions", env=env)

        header, rows = document[0], document[1:]
        assert header["format"] == "latchkey-export" and header["version"] == 1
        tables = {row["t"] for row in rows}
        assert {"accounts", "credentials", "sessions", "server_keys", "oidc_clients", "invitations"} <= tables
        text = (tmp_path / "one.jsonl").read_text()
        assert SECRET not in text and session not in text, "secrets appear only as hashes"
        assert invitation not in text and invitation.replace("-", "")[5:] not in text, "an invitation's code only as a hash"
        assert "audit_events" not in tables, "the audit trail only with --audit"
        assert not any("trigram" in table for table in tables), "the search's trigram tables are derived: not exported"

        # Hop 1: into PostgreSQL; the first server's passkeys, profile, client and session work there.
        result = import_(postgres.url, tmp_path / "one.jsonl", env=env)
        assert result.returncode == 0, result.stderr
        assert "3 credentials" in result.stdout or "4 credentials" in result.stdout, result.stdout
        with Server("--user-verification", "preferred", "--oidc", "--signup", "open", database=postgres.url, env=env) as second:
            signs_in(second, people)
            status, seen = second.call("POST", "/api/invites/preview", {"code": invitation})
            assert status == 200 and seen["username"] == "invitee" and seen["groups"] == ["staff"], seen
            status, account = second.call("GET", "/api/account", token=session)
            assert status == 200 and account["displayName"] == "Signed in", account
            # Importing again into the now full database is refused with one sentence, and changes nothing.
            again = import_(postgres.url, tmp_path / "one.jsonl", env=env)
            assert again.returncode == 2 and "--merge" in again.stderr and again.stderr.count("\n") == 1, again.stderr
            merged = import_(postgres.url, tmp_path / "one.jsonl", "--merge", env=env)
            assert merged.returncode == 0, merged.stderr
            document = export(postgres.url, tmp_path / "two.jsonl", "--audit", env=env)
        assert any(row["t"] == "audit_events" for row in document[1:])

        # Hop 2: back into a new SQLite file; the signature counters went on moving through both hops.
        target = f"sqlite:{tmp_path / 'three.sqlite'}"
        result = import_(target, tmp_path / "two.jsonl", env=env)
        assert result.returncode == 0, result.stderr
        with Server("--user-verification", "preferred", "--oidc", "--signup", "open", database=target, env=env) as third:
            signs_in(third, people)
            status, used = third.call("POST", "/api/invites/exchange", {"code": invitation, "displayName": "Invitee"})
            assert status == 201, used
        # The account search's trigram index was rebuilt by the import: a piece of a name finds its account.
        found = latchkey("admin", "accounts", "search", "erson 2", "--json", "--database", target, env=env)
        assert found.returncode == 0, found.stderr
        assert [a["displayName"] for a in json.loads(found.stdout)["accounts"]] == ["Person 2"], found.stdout
        with sqlite3.connect(tmp_path / "three.sqlite") as db:
            assert db.execute("SELECT username, email, email_verified, group_names FROM accounts WHERE id = ?", (people[0][0],)).fetchone() \
                == ("person0", "p0@example.com", 1, "staff")
            assert db.execute("SELECT secret_hash FROM oidc_clients WHERE id = 'wiki'").fetchone()[0] == hashlib.sha256(SECRET.encode()).digest()
            assert db.execute("SELECT count(*) FROM audit_events").fetchone()[0] > 0
    finally:
        postgres.stop()


def test_the_document_is_never_readable_by_others(tmp_path):
    """Fourth review, S4-8: the document holds hashes and the wrapped keys. `--output` makes it 0600 from its
    first byte under umask 022 (never over an existing file or link); standard output that is a file others can
    read (the shell made it with the umask) is refused before a byte is written; a pipe is fine."""
    with Server("--user-verification", "preferred") as server:
        assert register(server, SoftWebauthnDevice(), "Person")[0] == 201
        env = {**os.environ, "LATCHKEY_KEY_FILE": str(pathlib.Path(server.directory.name) / "latchkey.key")}

        def run(*arguments, stdout=subprocess.PIPE):
            return subprocess.run([BINARY, "export", "--database", server.database, *arguments], stdout=stdout,
                                  stderr=subprocess.PIPE, text=True, timeout=120, env=env, preexec_fn=lambda: os.umask(0o022))

        document = tmp_path / "document.jsonl"
        result = run("--output", str(document))
        assert result.returncode == 0, result.stderr
        assert document.stat().st_mode & 0o777 == 0o600
        assert json.loads(document.read_text().splitlines()[0])["format"] == "latchkey-export"
        result = run("--output", str(document))
        assert result.returncode == 2 and "already exists" in result.stderr, result.stderr
        link = tmp_path / "link.jsonl"
        link.symlink_to(tmp_path / "elsewhere.jsonl")
        result = run("--output", str(link))
        assert result.returncode == 2 and not (tmp_path / "elsewhere.jsonl").exists(), result.stderr

        shell = tmp_path / "shell.jsonl"
        with open(shell, "w") as out:
            os.chmod(shell, 0o644)
            result = run(stdout=out)
        assert result.returncode == 2, result.stderr
        assert "Standard output is a file others can read (mode 644)" in result.stderr and "--output" in result.stderr, result.stderr
        assert shell.stat().st_size == 0
        result = run()
        assert result.returncode == 0 and json.loads(result.stdout.splitlines()[0])["format"] == "latchkey-export", result.stderr


def test_refusals(tmp_path):
    target = f"sqlite:{tmp_path / 'target.sqlite'}"
    newer = tmp_path / "newer.jsonl"
    newer.write_text(json.dumps({"format": "latchkey-export", "version": 99, "schemaVersion": 1, "tables": []}) + "\n")
    result = import_(target, newer)
    assert result.returncode == 2 and "version 99" in result.stderr, result.stderr

    not_export = tmp_path / "other.jsonl"
    not_export.write_text('{"hello": 1}\n')
    result = import_(target, not_export)
    assert result.returncode == 2 and "not a Latchkey export" in result.stderr, result.stderr

    # All or nothing: a bad row late in the document leaves the database without the good ones before it.
    partial = tmp_path / "partial.jsonl"
    partial.write_text("\n".join([
        json.dumps({"format": "latchkey-export", "version": 1, "schemaVersion": 12, "tables": ["accounts"]}),
        json.dumps({"t": "accounts", "r": {"id": "a1", "user_handle": "AQID", "display_name": "A", "credo": "", "created_at": 1, "updated_at": 1}}),
        json.dumps({"t": "accounts", "r": {"id": "a2", "user_handle": "not base64url!", "display_name": "B", "credo": "", "created_at": 1, "updated_at": 1}}),
    ]) + "\n")
    result = import_(target, partial)
    assert result.returncode == 2 and "line 3" in result.stderr and "base64url" in result.stderr, result.stderr
    with sqlite3.connect(tmp_path / "target.sqlite") as db:
        assert db.execute("SELECT count(*) FROM accounts").fetchone()[0] == 0
