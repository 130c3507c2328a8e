"""`--admin-listen HOST:PORT` (issue 29): the admin API is served there only — the main address answers
404 for it — and nothing else is served there; the key rules are the same."""
import json
import os
import pathlib
import subprocess
import urllib.error
import urllib.request

from latchkey_server import Server
from processes import free_port

BINARY = os.environ.get("LATCHKEY_BIN", str(pathlib.Path(__file__).resolve().parents[3] / ".build" / "debug" / "latchkey"))


def get(port, path, secret=None):
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}")
    if secret:
        request.add_header("Authorization", f"Bearer {secret}")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def test_the_admin_api_is_served_on_its_own_address_only():
    admin_port = free_port()
    with Server("--admin-listen", f"127.0.0.1:{admin_port}") as server:
        created = subprocess.run([BINARY, "admin", "keys", "create", "--scope", "read", "--name", "ops", "--json",
                                  "--database", server.database], capture_output=True, text=True, timeout=60)
        assert created.returncode == 0, created.stderr
        secret = json.loads(created.stdout)["secret"]
        status, body = get(server.port, "/api/admin/accounts", secret)
        assert status == 404 and body["error"]["code"] == "not_found", body
        assert get(admin_port, "/api/admin/accounts")[0] == 401
        status, body = get(admin_port, "/api/admin/accounts", secret)
        assert status == 200 and body == {"accounts": [], "next": None}
        assert get(admin_port, "/api/account")[0] == 404
        assert get(admin_port, "/")[0] == 404
        assert get(server.port, "/healthz")[0] == 200


def test_the_console_is_served_on_the_admin_address_only_and_its_setup_link_points_there():
    """Issue 45: /admin and its session's routes beside the admin API, nowhere else; the first administrator's
    setup link, logged once, on the admin address (with the origin given for that port)."""
    import re
    import time
    admin_port = free_port()
    admin_origin = f"http://localhost:{admin_port}"
    with Server("--admin-listen", f"127.0.0.1:{admin_port}", "--origin", admin_origin) as server:
        request = urllib.request.Request(f"http://127.0.0.1:{admin_port}/admin")
        with urllib.request.urlopen(request, timeout=10) as response:
            assert response.status == 200 and "frame-ancestors 'none'" in response.headers["Content-Security-Policy"]
        assert get(server.port, "/admin")[0] == 404
        assert get(server.port, "/admin/api/session")[0] == 404
        assert get(admin_port, "/admin/api/session")[0] == 401
        found = None
        for _ in range(50):
            found = re.findall(r"url=(\S+/admin/setup#[A-Za-z0-9_-]{43})", server.log_text())
            if found:
                break
            time.sleep(0.1)
        assert found == [f"{admin_origin}/admin/setup#{found[0].split('#')[1]}"], server.log_text()


def test_a_malformed_admin_address_is_refused():
    result = subprocess.run([BINARY, "serve", "--port", "0", "--origin", "http://localhost:8080", "--database", "sqlite::memory:",
                             "--admin-listen", "no-port-here"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and "--admin-listen must be HOST:PORT" in result.stderr, result.stderr
