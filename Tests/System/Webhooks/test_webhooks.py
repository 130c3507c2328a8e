"""Signed webhooks against a real `latchkey serve` (issue 29, item 5): a small local receiver checks every
delivery's HMAC-SHA256 signature (the README's way, `verify` below) and sees every audit event exactly
once — across a graceful restart, across three instances on one PostgreSQL, and after being down for a
while; webhook URLs on internal addresses are refused without --webhook-allow-private. The delivery
figures (events/s, lag p50/p99 under a login load) are written to .build/webhook-figures.txt."""
import hashlib
import hmac
import http.server
import json
import os
import pathlib
import statistics
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from soft_webauthn import SoftWebauthnDevice

from latchkey_server import Server
from processes import PrivatePostgres, free_port
from soft_webauthn_client import login, register

BINARY = os.environ.get("LATCHKEY_BIN", str(pathlib.Path(__file__).resolve().parents[3] / ".build" / "debug" / "latchkey"))
SECRET = "Wc7pYq2LrT9vXz4KmN8sB3dF6hJ1gA5e"
REPOSITORY = pathlib.Path(__file__).resolve().parents[3]


def verify(secret, header, body, tolerance=300):
    """The README's receiver check: the signature is HMAC-SHA256(secret, "<t>.<body>") and t is recent."""
    fields = dict(part.split("=", 1) for part in header.split(","))
    expected = hmac.new(secret.encode(), fields["t"].encode() + b"." + body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, fields.get("v1", "")) and abs(time.time() - int(fields["t"])) <= tolerance


class Receiver(http.server.ThreadingHTTPServer):
    """Accepts deliveries on 127.0.0.1; `down` answers 503 instead. Records each accepted event with its
    arrival time; counts deliveries whose signature does not verify."""

    def __init__(self):
        self.events = []
        self.bad_signatures = 0
        self.down = False
        self.lock = threading.Lock()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                if receiver.down:
                    self.send_response(503)
                    self.end_headers()
                    return
                good = verify(SECRET, self.headers.get("Latchkey-Signature", "t=0,v1="), body)
                event = json.loads(body)
                with receiver.lock:
                    if not good:
                        receiver.bad_signatures += 1
                    elif event["id"] == self.headers["Latchkey-Event-Id"]:
                        receiver.events.append((event, time.time()))
                self.send_response(204 if good else 400)
                self.end_headers()

            def log_message(self, *args):
                pass

        super().__init__(("127.0.0.1", free_port()), Handler)
        self.thread = threading.Thread(target=self.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.server_address[1]}/hooks/latchkey"

    def ids(self):
        with self.lock:
            return [event["id"] for event, _ in self.events]

    def close(self):
        self.shutdown()
        self.server_close()


@pytest.fixture
def receiver():
    running = Receiver()
    yield running
    running.close()


def flags(receiver, *more):
    return ("--rate-limit", "0", "--user-verification", "preferred", "--webhook-url", receiver.url, "--webhook-allow-private",
            "--webhook-retry-delay", "1", *more)


def audit_ids(database):
    """Every event id the trail holds, as webhooks name them."""
    result = subprocess.run([BINARY, "admin", "audit", "--json", "--limit", "500"], capture_output=True, text=True, timeout=60,
                            env={**os.environ, "LATCHKEY_DATABASE": database})
    assert result.returncode == 0, result.stderr
    return {f"evt_{event['id']}" for event in json.loads(result.stdout)["events"]}


def wait_for(receiver, expected, seconds=30):
    deadline = time.time() + seconds
    while time.time() < deadline and not expected <= set(receiver.ids()):
        time.sleep(0.1)
    assert expected <= set(receiver.ids()), sorted(expected - set(receiver.ids()))


def some_ceremonies(server, people=3, logins=2):
    devices = []
    for n in range(people):
        device = SoftWebauthnDevice()
        assert register(server, device, f"person {n}")[0] == 201
        for _ in range(logins):
            assert login(server, device)[0] == 200
        devices.append(device)
    return devices


def test_every_event_arrives_once_signed_and_across_a_restart(receiver):
    env = {"LATCHKEY_WEBHOOK_SECRET": SECRET}
    with Server(*flags(receiver), env=env) as server:
        some_ceremonies(server)
        expected = audit_ids(server.database)
        assert len(expected) == 3 * (2 + 2)  # account.created, passkey.added, two login.succeeded each
        wait_for(receiver, expected)
        # A graceful restart: nothing is delivered twice, and what happens after arrives too.
        server.process.terminate()
        server.process.wait(timeout=30)
        server.start()
        some_ceremonies(server, people=1)
        expected = audit_ids(server.database)
        wait_for(receiver, expected)
        time.sleep(1)
        ids = receiver.ids()
        assert len(ids) == len(set(ids)) == len(expected), "an event was delivered twice"
        assert receiver.bad_signatures == 0
        event, _ = receiver.events[0]
        assert set(event) == {"id", "type", "createdAt", "data"} and event["data"]["event"] == event["type"]
        body = json.dumps(event).encode()
        assert not verify(SECRET, "t=%d,v1=%s" % (time.time(), "0" * 64), body)


def test_a_receiver_down_for_a_while_gets_every_event_when_it_is_back(receiver):
    receiver.down = True
    with Server(*flags(receiver), env={"LATCHKEY_WEBHOOK_SECRET": SECRET}) as server:
        some_ceremonies(server, people=2, logins=1)
        expected = audit_ids(server.database)
        time.sleep(3)  # first tries and retries (1 s, 2 s) all refused
        assert receiver.ids() == []
        receiver.down = False
        wait_for(receiver, expected, seconds=40)
        ids = receiver.ids()
        assert len(ids) == len(set(ids)) == len(expected)


def test_three_instances_on_one_postgresql_deliver_each_event_once(receiver, tmp_path):
    postgres = PrivatePostgres().up()
    key_file = tmp_path / "latchkey.key"
    env = {"LATCHKEY_WEBHOOK_SECRET": SECRET, "LATCHKEY_KEY_FILE": str(key_file)}
    servers = []
    try:
        for _ in range(3):
            servers.append(Server(*flags(receiver), database=postgres.url, env=env))
        for server in servers:
            some_ceremonies(server, people=2, logins=2)
        expected = audit_ids(postgres.url)
        assert len(expected) == 3 * 2 * 4
        wait_for(receiver, expected)
        time.sleep(1.5)  # long enough for a second delivery by another instance to show
        ids = receiver.ids()
        assert len(ids) == len(set(ids)) == len(expected), "an event was delivered twice across instances"
        assert receiver.bad_signatures == 0
    finally:
        for server in servers:
            server.stop()
        postgres.down()


def test_internal_addresses_and_a_missing_secret_are_refused_at_start(tmp_path):
    def serve(*arguments, env=None):
        return subprocess.run([BINARY, "serve", "--port", "0", "--origin", "http://localhost:8080",
                               "--database", f"sqlite:{tmp_path}/db.sqlite", *arguments], capture_output=True, text=True,
                              timeout=60, env={**os.environ, "LATCHKEY_KEY_FILE": str(tmp_path / "k"), **(env or {})})
    for url in ["http://127.0.0.1:9/hook", "http://localhost/hook", "http://10.1.2.3/hook", "http://169.254.169.254/latest",
                "http://[::1]/hook", "http://192.168.0.10/hook",
                # Fourth review, S4-9: NAT64 and 6to4 wrapping loopback, IPv4-compatible, site-local, multicast,
                # outside 2000::/3, and IPv4's IETF, benchmarking, multicast, reserved and broadcast blocks.
                "http://[64:ff9b::7f00:1]:9/hook", "http://[64:ff9b::a9fe:a9fe]/latest", "http://[64:ff9b:1::808:808]/hook",
                "http://[2002:7f00:1::]:9/hook", "http://[::127.0.0.1]:9/hook", "http://[fec0::1]/hook",
                "http://[ff02::1]/hook", "http://[100::1]/hook", "http://192.0.0.1/hook", "http://198.18.0.1:9/hook",
                "http://224.0.0.1:9/hook", "http://240.0.0.1/hook", "http://255.255.255.255/hook"]:
        result = serve("--webhook-url", url, env={"LATCHKEY_WEBHOOK_SECRET": SECRET})
        assert result.returncode == 2 and "--webhook-allow-private" in result.stderr, (url, result.stderr)
    result = serve("--webhook-url", "https://hooks.example.com/x")
    assert result.returncode == 2 and "webhook-secret" in result.stderr, result.stderr
    result = serve("--webhook-url", "ftp://example.com/x", env={"LATCHKEY_WEBHOOK_SECRET": SECRET})
    assert result.returncode == 2 and "not an http or https URL" in result.stderr, result.stderr


def test_secret_files_others_can_read_are_refused_at_start(tmp_path):
    """Fourth review, S4-10: the webhook and introspection secrets' files are refused as the key file is
    when group or others can read them, with the key file's sentence; at 0600 the server starts."""
    secret = tmp_path / "secret"
    secret.write_text(SECRET + "\n")
    cases = [
        (["--webhook-url", "http://127.0.0.1:9/hook", "--webhook-allow-private", "--webhook-secret-file", str(secret)],
         "webhook secret"),
        (["--access-tokens", "--introspection-secret-file", str(secret)], "introspection secret"),
    ]
    for flags, words in cases:
        for mode in (0o644, 0o640):
            os.chmod(secret, mode)
            result = subprocess.run([BINARY, "serve", "--port", "0", "--origin", "http://localhost:8080",
                                     "--database", f"sqlite:{tmp_path}/db.sqlite", *flags], capture_output=True, text=True,
                                    timeout=20, env={**os.environ, "LATCHKEY_KEY_FILE": str(tmp_path / "k")})
            expected = f"The {words} file {secret} is readable by others (mode {mode:o}); chmod 600 it"
            assert result.returncode == 2 and expected in result.stderr, (flags, mode, result.stderr)
        os.chmod(secret, 0o600)
        with Server(*flags) as server:
            assert server.call("GET", "/healthz")[0] == 200


def test_delivery_figures_under_a_login_load(receiver):
    """Not a pass/fail of speed (shared 2-core machines): the figures go to .build/webhook-figures.txt. The
    lag of a login's event is from the moment its 200 reached the client to the moment the receiver had
    the event (the k-th login of an account is its k-th login.succeeded)."""
    with Server(*flags(receiver), env={"LATCHKEY_WEBHOOK_SECRET": SECRET}) as server:
        people = []
        for n in range(8):
            device = SoftWebauthnDevice()
            status, body = register(server, device, f"load {n}")
            assert status == 201
            people.append((body["account"]["id"], device))

        def logins(person):
            finished = []
            for _ in range(25):
                assert login(server, person[1])[0] == 200
                finished.append(time.time())
            return person[0], finished

        began = time.time()
        with ThreadPoolExecutor(8) as pool:
            finished = dict(pool.map(logins, people))
        wait_for(receiver, audit_ids(server.database), seconds=60)
        with receiver.lock:
            arrivals = [(event, at) for event, at in receiver.events if event["type"] == "login.succeeded"]
        lags = []
        for account, times in finished.items():
            mine = sorted((int(event["id"][4:]), at) for event, at in arrivals if event["data"]["accountId"] == account)
            assert len(mine) == len(times) == 25
            lags += [arrived - done for (_, arrived), done in zip(mine, times)]
        lags.sort()
        last = max(at for _, at in arrivals)
        figures = (f"webhook delivery, debug build, SQLite, 8 clients x 25 logins: {len(arrivals)} login events delivered in "
                   f"{last - began:.2f} s ({len(arrivals) / (last - began):.0f} events/s, the logins' own pace); lag from a "
                   f"login's answer to its event's arrival: p50 {statistics.median(lags) * 1000:.0f} ms, "
                   f"p99 {lags[int(len(lags) * 0.99) - 1] * 1000:.0f} ms\n")
        (REPOSITORY / ".build").mkdir(exist_ok=True)
        (REPOSITORY / ".build" / "webhook-figures.txt").write_text(figures)
        print(figures)
        assert len(arrivals) == 200
