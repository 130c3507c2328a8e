"""What the invitation suites share: `latchkey admin` on a server's database, an invitation's use and the
add-passkey ceremony with its restricted session, a soft-webauthn person, the raw database file."""
import json
import os
import pathlib
import subprocess

from soft_webauthn import SoftWebauthnDevice

from latchkey_server import Server, admin  # noqa: F401 (for the suites)
from soft_webauthn_client import add_passkey, login, refused_everywhere_but_registration, register  # noqa: F401

BINARY = os.environ.get("LATCHKEY_BIN", str(pathlib.Path(__file__).resolve().parents[3] / ".build" / "debug" / "latchkey"))
REFUSAL = "This invitation cannot be used: it may be mistyped, expired, used up or revoked. Ask for a new one."
SIGNUP_CLOSED = "New accounts here are by invitation only: ask the service's operator for an invitation link."


def invite(server, *arguments, env=None):
    """`latchkey admin invites create ARGUMENTS --json`, links at the server's origin: the answer."""
    return json.loads(admin(server, "invites", "create", *arguments, "--origin", server.origin, "--json", env=env).stdout)


def create_account(server, *arguments, env=None):
    """`latchkey admin accounts create ARGUMENTS --json`: the account and its invitation."""
    return json.loads(admin(server, "accounts", "create", *arguments, "--origin", server.origin, "--json", env=env).stdout)


def show(server, account):
    return json.loads(admin(server, "accounts", "show", account, "--json").stdout)


def preview(server, code):
    return server.call("POST", "/api/invites/preview", {"code": code})


def exchange(server, code, display_name="Grace Hopper"):
    body = {"code": code}
    if display_name is not None:
        body["displayName"] = display_name
    return server.call("POST", "/api/invites/exchange", body)


def join(server, code, display_name="Grace Hopper"):
    """A person uses the code and adds their first passkey: (account id, device)."""
    status, session = exchange(server, code, display_name)
    assert status == 201, session
    device = SoftWebauthnDevice()
    status, added = add_passkey(server, session["token"], device)
    assert status == 201, added
    return session["account"]["id"], device


def account_count(server):
    """How many accounts the server's database holds (SQLite or PostgreSQL), as `latchkey admin` lists them."""
    return len(json.loads(admin(server, "accounts", "list", "--limit", "500", "--json").stdout)["accounts"])


def database_bytes(server):
    """The SQLite file and its log as they are on disk, after a checkpoint."""
    path = server.database.split(":", 1)[1]
    subprocess.run(["sqlite3", path, "PRAGMA wal_checkpoint(TRUNCATE)"], capture_output=True)
    return b"".join(pathlib.Path(path + suffix).read_bytes() for suffix in ("", "-wal") if pathlib.Path(path + suffix).exists())
