"""The accounts of the upgrade fixture, made through a running `latchkey serve`'s API by a `latchkey` CLI
and its software authenticator (one credential store file per passkey), and signed in again after an
upgrade. Standard library only.

As a script it makes the committed fixtures with the previous release's binary:

    python3 Tests/System/Upgrade/accounts.py OLD_LATCHKEY Tests/System/Upgrade/fixtures
    python3 Tests/System/Upgrade/accounts.py --postgres OLD_LATCHKEY Tests/System/Upgrade/fixtures/postgres

The first starts OLD_LATCHKEY serve on a new fixtures/latchkey-v9.sqlite (its key file fixtures/latchkey.key
made on that first start), registers ACCOUNTS through it, stops it, and leaves the database checkpointed into
one file. The second does the same on a private PostgreSQL 15 and keeps its `pg_dump` as latchkey-v9.sql.
Tests/System/Upgrade/fixtures/README.md says which binary made the committed ones.
"""
import json
import os
import pathlib
import sqlite3
import subprocess
import sys
import tempfile

# Also run as a script (the fixtures' maker, above), outside pytest and its path setting.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "Support"))
from processes import free_port, healthy, start_latchkey, wait_until  # noqa: E402

# Display name, then each passkey: its name and its store file (the first one registers the account).
# Ada's first passkey claims Apple Passwords' AAGUID, so a provider is named on the way.
ACCOUNTS = [
    ("Ada Lovelace", [("Ada Lovelace", "ada.json", "fbfc3007-154e-4ecc-8c0b-6e020557d7bd"), ("Ada's spare", "ada-spare.json", None)]),
    ("Grace Hopper", [("Grace Hopper", "grace.json", None)]),
]
CREDO = "Imagination is the discovering faculty."


def cli(binary, arguments, server, store, home, aaguid=None):
    """`latchkey ARGUMENTS --server SERVER --store STORE --json` with its token store in `home`; the JSON it
    printed (AssertionError with its stderr when it failed)."""
    command = [binary, *arguments, "--server", server, "--store", str(store), "--json"]
    if aaguid:
        command += ["--aaguid", aaguid]
    environment = dict(os.environ, HOME=str(home), XDG_CONFIG_HOME="", LATCHKEY_AUTHENTICATOR_STORE="",
                       LATCHKEY_TOKEN_STORE=str(pathlib.Path(home) / "sessions.json"))
    result = subprocess.run(command, capture_output=True, text=True, timeout=60, env=environment, stdin=subprocess.DEVNULL)
    assert result.returncode == 0, f"{' '.join(command[:2])}: exit {result.returncode}: {result.stderr}"
    return json.loads(result.stdout) if result.stdout.strip() else None


def register_all(binary, server, stores):
    """Registers ACCOUNTS on `server` with `binary`, the passkeys' store files in `stores`; answers
    {display name: account id}."""
    ids = {}
    with tempfile.TemporaryDirectory() as home:
        for display_name, passkeys in ACCOUNTS:
            (first, store, aaguid), *more = passkeys
            account = cli(binary, ["register", first], server, pathlib.Path(stores) / store, home, aaguid)
            ids[display_name] = account["id"]
            for name, other, other_aaguid in more:
                cli(binary, ["passkeys", "add", name], server, pathlib.Path(stores) / other, home, other_aaguid)
            if display_name.startswith("Ada"):
                cli(binary, ["account", "update", "--credo", CREDO], server, pathlib.Path(stores) / store, home)
            (pathlib.Path(home) / "sessions.json").unlink(missing_ok=True)
    return ids


def sign_in(binary, server, store):
    """Logs in on `server` with the passkey in `store` (a copy: the login moves its counter); the account."""
    with tempfile.TemporaryDirectory() as home:
        return cli(binary, ["login"], server, store, home)


def serve_and_register(binary, database, directory, fixture):
    """Removes `fixture`, the key file and the passkey stores from `directory`, then runs `binary` serve on
    `database` (its key file made on that first start) and registers ACCOUNTS through it."""
    directory.mkdir(parents=True, exist_ok=True)
    for stale in [fixture, directory / "latchkey.key", *(directory / store for _, passkeys in ACCOUNTS for _, store, _ in passkeys)]:
        stale.unlink(missing_ok=True)
    port = free_port()
    with open(directory / "make.log", "w") as log:
        server = start_latchkey(port, binary=binary, database=database, key_file=directory / "latchkey.key", stdout=log, stderr=log)
        try:
            wait_until(lambda: healthy(port) or server.poll() is not None, 30, "the old latchkey serve answering")
            register_all(binary, f"http://localhost:{port}", directory)
        finally:
            server.terminate()
            server.wait(timeout=30)
    (directory / "make.log").unlink()


def make_fixture(binary, directory):
    directory = pathlib.Path(directory)
    database = directory / "latchkey-v9.sqlite"
    serve_and_register(binary, f"sqlite:{database}", directory, database)
    # One file: the last connection's close checkpoints the write-ahead log into it and removes the log.
    db = sqlite3.connect(database)
    print("schema version", db.execute("SELECT max(version) FROM schema_migrations").fetchone()[0],
          "accounts", db.execute("SELECT count(*) FROM accounts").fetchone()[0],
          "passkeys", db.execute("SELECT count(*) FROM credentials").fetchone()[0])
    db.close()
    leftovers = [path.name for path in directory.glob("latchkey-v9.sqlite-*")]
    assert not leftovers, leftovers

def make_postgres_fixture(binary, directory):
    """ACCOUNTS registered by `binary` on a private PostgreSQL, kept as `directory`/latchkey-v9.sql (a plain
    pg_dump) with the key file and the passkeys' stores beside it."""
    from processes import PrivatePostgres
    directory = pathlib.Path(directory)
    with PrivatePostgres() as postgres:
        serve_and_register(binary, postgres.url, directory, directory / "latchkey-v9.sql")
        print("schema version", postgres.query("SELECT max(version) FROM schema_migrations")[0][0],
              "accounts", postgres.query("SELECT count(*) FROM accounts")[0][0],
              "passkeys", postgres.query("SELECT count(*) FROM credentials")[0][0])
        (directory / "latchkey-v9.sql").write_text(postgres.dump())


if __name__ == "__main__":
    arguments = sys.argv[1:]
    postgres = arguments[:1] == ["--postgres"]
    if postgres:
        arguments = arguments[1:]
    if len(arguments) != 2:
        print("usage: accounts.py [--postgres] OLD_LATCHKEY FIXTURE_DIRECTORY", file=sys.stderr)
        sys.exit(2)
    (make_postgres_fixture if postgres else make_fixture)(*arguments)
