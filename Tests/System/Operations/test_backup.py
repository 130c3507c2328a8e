"""`latchkey backup` against a real `latchkey serve` under load (issue 33): the copy is taken while
sign-ups keep landing, opens, passes integrity_check and holds every account acknowledged before the
backup began; `--keep` rotates; the copy is the owner's only; PostgreSQL is refused with the pg_dump
line; and a server started on the copy (with the key file) signs the same passkeys in."""
import os
import pathlib
import sqlite3
import subprocess
import threading
import time

from soft_webauthn import SoftWebauthnDevice

from latchkey_server import Server
from soft_webauthn_client import login, register

BINARY = os.environ.get("LATCHKEY_BIN", str(pathlib.Path(__file__).resolve().parents[3] / ".build" / "debug" / "latchkey"))


class SignUps(threading.Thread):
    """Registers accounts one after another; `acknowledged` holds (id, device) of each 201 and when it came."""

    def __init__(self, server):
        super().__init__(daemon=True)
        self.server = server
        self.acknowledged = []
        self.stopping = threading.Event()

    def run(self):
        n = 0
        while not self.stopping.is_set():
            device = SoftWebauthnDevice()
            status, body = register(self.server, device, f"load {n}")
            if status == 201:
                self.acknowledged.append((body["account"]["id"], device, time.monotonic()))
            n += 1


def backup(*arguments):
    return subprocess.run([BINARY, "backup", *arguments], capture_output=True, text=True, timeout=120)


def test_backups_under_load_hold_every_acknowledged_account_and_rotate(tmp_path):
    with Server("--rate-limit", "0", "--user-verification", "preferred") as server:
        load = SignUps(server)
        load.start()
        try:
            while len(load.acknowledged) < 20:
                time.sleep(0.05)
            directory = tmp_path / "backups"
            directory.mkdir()
            copies = []
            for round_ in range(3):
                began = time.monotonic()
                before = {account for account, _, at in load.acknowledged if at < began}
                result = backup(str(directory), "--database", server.database, "--keep", "2")
                assert result.returncode == 0, result.stderr
                assert "integrity_check ok" in result.stdout, result.stdout
                copy = pathlib.Path(result.stdout.split(" to ", 1)[1].split(":", 1)[0])
                copies.append(copy)
                assert copy.stat().st_mode & 0o777 == 0o600
                with sqlite3.connect(f"file:{copy}?mode=ro", uri=True) as db:
                    assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
                    present = {row[0] for row in db.execute("SELECT id FROM accounts")}
                assert before <= present, f"round {round_}: {len(before - present)} acknowledged accounts missing from the copy"
                time.sleep(1.1)  # the next backup gets the next second's name
        finally:
            load.stopping.set()
            load.join(timeout=30)
        kept = sorted(directory.iterdir())
        assert kept == copies[1:], (kept, copies)
        assert server.alive()

        # Restore: a server on the newest copy, with the key file, signs in an account that was in it.
        key_file = pathlib.Path(server.directory.name) / "latchkey.key"
        with sqlite3.connect(f"file:{copies[-1]}?mode=ro", uri=True) as db:
            present = {row[0] for row in db.execute("SELECT id FROM accounts")}
        account, device, _ = next(entry for entry in load.acknowledged if entry[0] in present)
        with Server("--user-verification", "preferred", database=f"sqlite:{copies[-1]}", env={"LATCHKEY_KEY_FILE": str(key_file)}) as restored:
            status, body = login(restored, device)
            assert status == 200 and body["account"]["id"] == account, body


def test_the_copy_is_never_readable_by_others_while_it_is_written(tmp_path):
    """Fourth review, S4-8 (observed that way): a backup run with umask 022 while another process polls its
    path. The copy used to be 0644 while VACUUM INTO wrote it (chmod 600 came after), so a reader could open
    it then and read it all later through that descriptor. Now it is 0600 from its first byte."""
    source = tmp_path / "db.sqlite"
    with sqlite3.connect(source) as db:
        db.execute("CREATE TABLE accounts (id TEXT)")
        db.execute("CREATE TABLE padding (b BLOB)")
        db.execute("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 64) "
                   "INSERT INTO padding SELECT randomblob(1048576) FROM n")
    target = tmp_path / "copy.sqlite"
    seen = set()
    process = subprocess.Popen([BINARY, "backup", str(target), "--database", f"sqlite:{source}"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=lambda: os.umask(0o022))
    while process.poll() is None:
        try:
            seen.add(os.stat(target).st_mode & 0o777)
        except FileNotFoundError:
            pass
    stdout, stderr = process.communicate()
    assert process.returncode == 0, stderr
    assert seen, "the poller never saw the copy"
    assert all(mode & 0o077 == 0 for mode in seen), [oct(mode) for mode in seen]
    assert target.stat().st_mode & 0o777 == 0o600


def test_a_new_database_and_its_wal_and_shm_are_the_owners_only(tmp_path):
    """Fourth review, S4-8: a fresh `latchkey serve` under umask 022 made latchkey.sqlite, its -wal and its
    -shm 0644. They hold session hashes and the wrapped keys: 0600, as the key file."""
    previous = os.umask(0o022)
    try:
        with Server() as server:
            assert server.call("POST", "/api/login/options")[0] == 200
            path = server.database.removeprefix("sqlite:")
            modes = {suffix: os.stat(path + suffix).st_mode & 0o777 for suffix in ("", "-wal", "-shm")}
    finally:
        os.umask(previous)
    assert modes == {"": 0o600, "-wal": 0o600, "-shm": 0o600}, {k: oct(v) for k, v in modes.items()}


def test_refusals_are_one_sentence(tmp_path):
    result = backup(str(tmp_path / "x.sqlite"), "--database", "postgres://latchkey@127.0.0.1:1/latchkey")
    assert result.returncode == 2 and "pg_dump" in result.stderr, result.stderr
    result = backup(str(tmp_path / "x.sqlite"), "--database", f"sqlite:{tmp_path}/missing.sqlite")
    assert result.returncode == 2 and "no database" in result.stderr, result.stderr
    existing = tmp_path / "existing.sqlite"
    existing.write_bytes(b"")
    with Server() as server:
        result = backup(str(existing), "--database", server.database)
        assert result.returncode == 2 and "already exists" in result.stderr, result.stderr
        result = backup(str(tmp_path / "new.sqlite"), "--database", server.database, "--keep", "3")
        assert result.returncode == 2 and "directory" in result.stderr, result.stderr
    for stderr in (r.stderr for r in [result]):
        assert len(stderr.strip().splitlines()) == 1


def test_json_log_lines_from_the_real_server():
    """`--log-format json` (issue 33): every line the server writes is one JSON object; a request's line
    has its method, path, status and duration, and a hostile path stays inside its string."""
    import json
    with Server("--log-format", "json") as server:
        assert server.call("GET", "/healthz")[0] == 200
        server.raw("GET", "/api/nothing%0a%22%7d%7b?x=1", body=None)
        server.call("POST", "/api/login/options")
        log = pathlib.Path(server.directory.name) / "server.log"
        time.sleep(0.3)
        lines = [line for line in log.read_text().splitlines() if line and not line.startswith("latchkey serve: listening")]
    objects = [json.loads(line) for line in lines]
    assert all({"time", "level", "logger", "source", "message"} <= set(o) for o in objects), objects
    requests = [o for o in objects if o.get("path") == "/api/login/options"]
    assert requests and requests[0]["method"] == "POST" and requests[0]["status"] == "200" and float(requests[0]["duration_ms"]) >= 0, objects
