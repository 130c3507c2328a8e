"""Upgrading from the previous release (issue 33): `latchkey migrate --dry-run` lists what is missing and
changes nothing, the current `latchkey serve` migrates the database at start, and the accounts made by the old
release still sign in with their passkeys.

- SQLite: from the committed fixture (`fixtures/`, schema 9, made by commit 98b3aaf's release; README there).
- PostgreSQL: from the committed `pg_dump` of a database the same release made and registered the same
  accounts on (`fixtures/postgres/`), restored into a private PostgreSQL 15; then the current binary takes
  over. (Until it was committed, every run built that release from source: 200 s of CI for one database.)
"""
import json
import os
import pathlib
import re
import shutil
import sqlite3
import subprocess
import urllib.request

import pytest

HERE = pathlib.Path(__file__).resolve().parent
from accounts import ACCOUNTS, CREDO, sign_in
from latchkey_server import Server
from processes import PrivatePostgres, free_port, latchkey_binary
from schema import declared_versions

FIXTURES = HERE / "fixtures"
FIXTURE_VERSION = 9
STORES = [store for _, passkeys in ACCOUNTS for _, store, _ in passkeys]


def known_versions():
    """Every schema version the current source knows (`schema.declared_versions`), in order."""
    return declared_versions()


def latest_version():
    """The newest schema version the current source knows."""
    return known_versions()[-1]


def versions_after(version):
    return [number for number in known_versions() if number > version]


def private_copy(source, target):
    shutil.copyfile(source, target)
    os.chmod(target, 0o600)
    return target


def copy_fixture(directory):
    """The fixture's database, key file and passkey stores, copied into `directory` (0600)."""
    for name in ["latchkey-v9.sqlite", "latchkey.key", *STORES]:
        private_copy(FIXTURES / name, directory / name)
    return directory / "latchkey-v9.sqlite", directory / "latchkey.key"


def migrate(*arguments, env=None):
    return subprocess.run([latchkey_binary(), "migrate", *arguments], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, **(env or {})), stdin=subprocess.DEVNULL)


def assert_lists_the_missing_versions(result):
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert f"Schema version: {FIXTURE_VERSION}; this latchkey knows up to {latest_version()}." in out, out
    assert "(dry run: nothing was changed)" in out, out
    listed = [int(number) for number in re.findall(r"^Version (\d+): \S", out, re.M)]
    assert listed == versions_after(FIXTURE_VERSION), out
    assert "\n    ALTER TABLE accounts ADD COLUMN disabled_at BIGINT;\n" in out, out


def readiness(server):
    with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/readyz", timeout=10) as response:
        return json.loads(response.read())


def assert_every_passkey_signs_in(server, stores, ids):
    for display_name, passkeys in ACCOUNTS:
        for _, store, _ in passkeys:
            account = sign_in(latchkey_binary(), server.url, stores / store)
            assert account["id"] == ids[display_name], (store, account)
            assert account["displayName"] == display_name
            assert account["credo"] == (CREDO if display_name.startswith("Ada") else "")


def sqlite_versions(path):
    with sqlite3.connect(path) as db:
        return [row[0] for row in db.execute("SELECT version FROM schema_migrations ORDER BY version")]


def test_sqlite_fixture_dry_run_then_serve_migrates_and_old_passkeys_sign_in(tmp_path):
    database, key = copy_fixture(tmp_path)
    before = database.read_bytes()
    result = migrate("--dry-run", "--database", f"sqlite:{database}")
    assert_lists_the_missing_versions(result)
    assert f"Database: sqlite:{database} (SQLite)" in result.stdout
    assert database.read_bytes() == before, "the dry run changed the database file"
    assert not list(tmp_path.glob("*.sqlite-*")), "the dry run left a -wal or -shm beside the database"
    assert sqlite_versions(database) == list(range(1, FIXTURE_VERSION + 1))
    with sqlite3.connect(database) as db:
        ids = dict((name, id_) for id_, name in db.execute("SELECT id, display_name FROM accounts"))

    with Server(database=f"sqlite:{database}", env={"LATCHKEY_KEY_FILE": str(key)}) as server:
        assert readiness(server) == {"status": "ready", "schemaVersion": latest_version()}
        assert_every_passkey_signs_in(server, tmp_path, ids)
        # While it serves (its -wal open beside the file): read through the log, nothing to do.
        assert (tmp_path / "latchkey-v9.sqlite-wal").exists()
        live = migrate("--dry-run", "--database", f"sqlite:{database}")
        assert live.returncode == 0 and live.stdout.endswith("Nothing to do: the schema is up to date.\n"), live.stdout + live.stderr
        assert server.alive()
    assert sqlite_versions(database) == known_versions()


def test_a_database_from_a_newer_latchkey_is_refused_by_serve_and_migrate_with_one_sentence(tmp_path):
    database, key = copy_fixture(tmp_path)
    applied = migrate("--database", f"sqlite:{database}")
    assert applied.returncode == 0, applied.stderr
    assert f"Applied {len(versions_after(FIXTURE_VERSION))} migration" in applied.stdout, applied.stdout
    newer = latest_version() + 1
    with sqlite3.connect(database) as db:
        db.execute("INSERT INTO schema_migrations (version, applied_at) VALUES (?, 0)", (newer,))
    serve = subprocess.run([latchkey_binary(), "serve", "--port", str(free_port()), "--database", f"sqlite:{database}"],
                           capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
                           env=dict(os.environ, LATCHKEY_KEY_FILE=str(key)))
    assert serve.returncode == 2, serve.stderr
    sentence = serve.stderr.strip().removeprefix("latchkey serve: ")
    assert f"schema version {newer}; this one knows up to {latest_version()}" in sentence, serve.stderr
    for arguments in [["--dry-run"], []]:
        refused = migrate(*arguments, "--database", f"sqlite:{database}")
        assert refused.returncode == 2, refused.stdout
        assert refused.stderr.strip() == f"latchkey migrate: {sentence}"
    assert sqlite_versions(database)[-1] == newer


def copy_postgres_fixture(directory):
    """The PostgreSQL fixture's dump (text), key file and passkey stores (copied into `directory`, 0600)."""
    source = FIXTURES / "postgres"
    for name in ["latchkey.key", *STORES]:
        private_copy(source / name, directory / name)
    return (source / "latchkey-v9.sql").read_text(), directory / "latchkey.key"


@pytest.mark.skipif(not PrivatePostgres.installed(), reason="PostgreSQL 15 is not installed (scripts/provision installs it)")
def test_postgres_made_by_the_previous_release_dry_run_then_serve_migrates_and_passkeys_sign_in(tmp_path):
    dump, key = copy_postgres_fixture(tmp_path)
    with PrivatePostgres() as postgres:
        postgres.restore(dump)
        ids = {name: id_ for id_, name in postgres.query("SELECT id, display_name FROM accounts")}
        assert sorted(ids) == sorted(name for name, _ in ACCOUNTS)
        versions = [int(row[0]) for row in postgres.query("SELECT version FROM schema_migrations ORDER BY version")]
        assert versions == list(range(1, FIXTURE_VERSION + 1))

        def snapshot():
            return (postgres.query("SELECT table_name, column_name, data_type FROM information_schema.columns "
                                   "WHERE table_schema = 'public' ORDER BY 1, 2"),
                    postgres.query("SELECT version, applied_at FROM schema_migrations ORDER BY version"))
        before = snapshot()
        result = migrate("--dry-run", env={"LATCHKEY_DATABASE": postgres.url})
        assert_lists_the_missing_versions(result)
        assert "(PostgreSQL)" in result.stdout and "GENERATED ALWAYS AS IDENTITY" in result.stdout, result.stdout
        assert postgres.password() not in result.stdout + result.stderr
        assert snapshot() == before, "the dry run changed the PostgreSQL database"

        with Server(database=postgres.url, env={"LATCHKEY_KEY_FILE": str(key)}) as server:
            assert readiness(server) == {"status": "ready", "schemaVersion": latest_version()}
            assert_every_passkey_signs_in(server, tmp_path, ids)
        versions = [int(row[0]) for row in postgres.query("SELECT version FROM schema_migrations ORDER BY version")]
        assert versions == known_versions()
