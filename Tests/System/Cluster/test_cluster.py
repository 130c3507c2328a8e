"""Several Latchkey instances on one PostgreSQL behind nginx (issue 13), with nothing sticky: the cluster
of deploy/cluster.py (what `scripts/cluster up` starts) — a private PostgreSQL, three `latchkey serve`
and nginx — is started once for this module and stopped at its end. Each test talks to the instances
directly (to choose which one serves which step) or through nginx (as a client would).

soft-webauthn (PyPI) is the authenticator: it does not do user verification, so the instances run with
--user-verification preferred.

The cluster's own protections (security finding 10) are checked here too, on the same cluster: PostgreSQL
refuses a connection without the cluster's password, the password is on no command line, and nginx's
access log has paths without their query strings. And forward authentication's stated bound holds across
instances: a logout on one stops the session passing another's check within the cache's 5 s.
"""
import concurrent.futures
import os
import pathlib
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

import pytest
from soft_webauthn import SoftWebauthnDevice

HERE = pathlib.Path(__file__).resolve()
sys.path.insert(0, str(HERE.parents[3] / "deploy"))
from cluster import Cluster  # noqa: E402
from latchkey_server import Endpoint  # noqa: E402
from processes import free_port, healthy, start_latchkey, wait_until  # noqa: E402
from schema import declared_versions  # noqa: E402
from soft_webauthn_client import login, login_response, register, registration_response  # noqa: E402

FLAGS = ["--user-verification", "preferred", "--rate-limit", "1000000", "--housekeeping-interval", "1", "--database-timeout", "2",
         "--forward-auth-rule", "localhost signed-in"]
FORWARD_AUTH_BOUND = 5  # --forward-auth-cache-ttl's default: how late another instance sees a session end


@pytest.fixture(scope="module")
def cluster():
    directory = tempfile.mkdtemp(prefix="latchkey-cluster-test.")
    cluster = Cluster(directory, port=free_port(), instances=3, flags=FLAGS)
    cluster.up()
    yield cluster
    cluster.down()


def instances(cluster):
    """Each instance, addressed directly, with the cluster's public origin."""
    return [Endpoint(port, cluster.origin) for port in cluster.instance_ports]


def proxy(cluster):
    return Endpoint(cluster.port, cluster.origin)


def signed_up(endpoint, name="Ada"):
    device = SoftWebauthnDevice()
    status, body = register(endpoint, device, name)
    assert status == 201, body
    return device, body["token"]


def forward_auth_status(endpoint, token):
    """The forward-auth check as Caddy asks it (X-Forwarded-*), with the browser's session cookie; its status
    and the Remote-User it names."""
    status, _, headers = endpoint.raw("GET", "/api/forward-auth", body=None, headers={
        "Cookie": f"latchkey_session={token}", "X-Forwarded-Proto": "http", "X-Forwarded-Host": "localhost",
        "X-Forwarded-Uri": "/app"})
    return status, {name.lower(): value for name, value in headers.items()}.get("remote-user")


def test_forward_auth_sees_a_logout_on_another_instance_within_its_bound(cluster):
    """Each instance's forward-auth check keeps a session it found for --forward-auth-cache-ttl (5 s by default,
    docs/forward-auth.md): a logout on A stops the person passing on A at once (A forgets it) and on B within
    that bound (B reads the shared database again once its entry is older)."""
    a, b, _ = instances(cluster)
    _, token = signed_up(a, "Fran")
    assert forward_auth_status(a, token)[0] == 200
    status, user = forward_auth_status(b, token)
    assert status == 200 and user, (status, user)  # B found the session in PostgreSQL, and keeps it now
    assert a.call("POST", "/api/logout", token=token)[0] in (200, 204)
    ended = time.monotonic()
    assert forward_auth_status(a, token)[0] == 302, "A, where the logout happened, forgets the session at once"
    while forward_auth_status(b, token)[0] == 200:
        assert time.monotonic() - ended < FORWARD_AUTH_BOUND + 1.5, "B still passes the ended session past the bound"
        time.sleep(0.1)
    assert forward_auth_status(b, token)[0] == 302


def test_a_ceremony_begun_on_one_instance_finishes_on_another_and_sessions_are_everywhere(cluster):
    a, b, c = instances(cluster)
    device = SoftWebauthnDevice()
    # Registration: options from A, verify on B.
    status, credential = registration_response(a, device, "Grace")
    assert status == 200
    status, created = b.call("POST", "/api/registration/verify", {"credential": credential})
    assert status == 201, created
    # Login: options from B, verify on C.
    status, assertion = login_response(b, device)
    assert status == 200
    status, opened = c.call("POST", "/api/login/verify", {"credential": assertion})
    assert status == 200, opened
    token = opened["token"]
    # The session C made works on A, and through the proxy.
    assert a.call("GET", "/api/account", token=token)[1]["displayName"] == "Grace"
    assert proxy(cluster).call("GET", "/api/account", token=token)[0] == 200
    # Logout on A ends it on B and C at once; the registration's own session is untouched.
    assert a.call("POST", "/api/logout", token=token)[0] == 204
    assert b.call("GET", "/api/account", token=token)[0] == 401
    assert c.call("GET", "/api/account", token=token)[0] == 401
    assert c.call("GET", "/api/account", token=created["token"])[0] == 200


def test_fifty_finishes_of_one_challenge_over_three_instances_open_one_session(cluster):
    endpoints = instances(cluster)
    device, _ = signed_up(proxy(cluster))
    status, assertion = login_response(endpoints[0], device)
    assert status == 200
    start = threading.Barrier(50)

    def finish(index):
        start.wait()
        return endpoints[index % 3].call("POST", "/api/login/verify", {"credential": assertion})

    with concurrent.futures.ThreadPoolExecutor(50) as pool:
        answers = list(pool.map(finish, range(50)))
    statuses = sorted(status for status, _ in answers)
    assert statuses.count(200) == 1, statuses
    assert statuses.count(401) == 49, statuses
    assert {body["error"]["code"] for status, body in answers if status == 401} == {"unknown_challenge"}


def test_an_account_deleted_on_one_instance_is_gone_on_all_at_once(cluster):
    endpoints = instances(cluster)
    device, _ = signed_up(endpoints[0])
    tokens = []
    for endpoint in endpoints:
        status, body = login(endpoint, device)
        assert status == 200, body
        tokens.append(body["token"])
    assert endpoints[1].call("DELETE", "/api/account", token=tokens[1])[0] == 204
    assert endpoints[0].call("GET", "/api/account", token=tokens[0])[0] == 401
    assert endpoints[2].call("GET", "/api/account", token=tokens[2])[0] == 401
    status, body = login(endpoints[2], device)
    assert (status, body["error"]["code"]) == (404, "unknown_credential")


def psql_without_the_password(cluster, host, password=None):
    """psql as PostgreSQL's own OS user (when the tests run as root), with no password or a wrong one, and
    no password file to fall back on; never prompts (-w)."""
    environment = {key: value for key, value in os.environ.items() if key not in ("PGPASSWORD", "PGPASSFILE")}
    environment["PGPASSFILE"] = str(cluster.directory / "no-such-pgpass")
    if password is not None:
        environment["PGPASSWORD"] = password
    return subprocess.run(
        [*cluster.as_postgres, "/usr/lib/postgresql/15/bin/psql", "-w", "-h", host, "-p", str(cluster.pg_port), "-U", "postgres",
         "-d", "latchkey", "-At", "-c", "SELECT count(*) FROM server_keys"],
        capture_output=True, text=True, env=environment, timeout=30)


def test_postgresql_refuses_a_local_user_without_the_clusters_password(cluster):
    """initdb -A trust let every local user in as superuser (finding 10); now TCP and the Unix socket both
    ask for the password."""
    for host in ("127.0.0.1", str(cluster.directory / "postgres")):
        refused = psql_without_the_password(cluster, host)
        assert refused.returncode != 0, (host, refused.stdout)
        assert "no password supplied" in refused.stderr or "password authentication failed" in refused.stderr, (host, refused.stderr)
        wrong = psql_without_the_password(cluster, host, password="not-" + cluster.pg_password())
        assert wrong.returncode != 0, (host, wrong.stdout)
        assert "password authentication failed" in wrong.stderr, (host, wrong.stderr)
    # With the password (cluster.psql passes PGPASSWORD), it answers.
    assert cluster.psql("SELECT 1") == [["1"]]


def test_the_database_password_is_in_a_private_file_and_on_no_command_line(cluster):
    password = cluster.pg_password()
    assert len(password) >= 40, "secrets.token_urlsafe(32) is 43 characters"
    assert cluster.password_file.stat().st_mode & 0o777 == 0o600
    assert password not in cluster.state_file.read_text()
    for pid in [pid for pid in cluster.pids if pid] + [cluster.nginx_pid]:
        command_line = pathlib.Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        assert password not in command_line, pid
    # The instances have it in their environment (readable by their own user and root only).
    for pid in [pid for pid in cluster.pids if pid]:
        environment = pathlib.Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        assert f"LATCHKEY_DATABASE={cluster.secret_database_url()}".encode() in environment, pid
    # And their logs show the URL with the password masked.
    for index in range(cluster.count):
        assert password not in (cluster.directory / f"instance-{index}.log").read_text()


def test_nginx_logs_the_path_without_its_query_string(cluster):
    """PassKeysDemo's credo and display name, and Hanko's user name, travel in query strings; nginx's access
    log keeps the path only."""
    access_log = cluster.directory / "nginx" / "access.log"
    marker = secrets.token_hex(8)
    paths = {
        f"/pkd-{marker}/index.php": f"?operation=update&displayName=Ada&credo=SECRETCREDO{marker}",
        f"/hanko-{marker}/user": f"?user_name=SECRETNAME{marker}",
    }
    for path, query in paths.items():
        status, _, _ = proxy(cluster).raw("GET", path + query, body=None)
        assert status in (200, 400, 401, 404), status
    # nginx writes the line as the request ends, right after the answer: give it a moment.
    wait_until(lambda: all(path in access_log.read_text() for path in paths), 10, "both requests in nginx's access log")
    text = access_log.read_text()
    assert f"SECRETCREDO{marker}" not in text and f"SECRETNAME{marker}" not in text
    for path in paths:
        line = next(line for line in text.splitlines() if path in line)
        assert f'"GET {path} HTTP/1.1"' in line, line


def spawn(cluster, database, flags, count=3):
    """`count` more instances on the cluster's PostgreSQL database named `database`, started at the same
    moment; (endpoints, processes). The URL with its password goes in LATCHKEY_DATABASE and the cluster's key
    file in LATCHKEY_KEY_FILE, as cluster.py does (every instance on one database needs the same key file)."""
    ports = [free_port() for _ in range(count)]
    processes = [
        start_latchkey(port, flags, binary=cluster.binary, origin=cluster.origin, database=cluster.secret_database_url(database),
                       key_file=cluster.key_file, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        for port in ports
    ]
    return [Endpoint(port, cluster.origin) for port in ports], processes


def stop(processes):
    for process in processes:
        if process.poll() is None:
            process.terminate()
    for process in processes:
        process.wait(timeout=30)


def test_three_instances_starting_together_on_an_empty_database_migrate_it_once(cluster):
    for attempt in range(3):
        name = f"race{attempt}"
        cluster.psql(f"CREATE DATABASE {name}")
        endpoints, processes = spawn(cluster, name, ["--rate-limit", "0"])
        try:
            wait_until(lambda: all(healthy(e.port) or p.poll() is not None for e, p in zip(endpoints, processes)), 60, "start-up")
            failed = [p.stderr.read().decode() for p in processes if p.poll() is not None]
            assert failed == [], failed
        finally:
            stop(processes)
        output = [row[0] for row in cluster.psql("SELECT version FROM schema_migrations ORDER BY version", database=name)]
        # Each version the migrations declare, once (they need not be contiguous: branches reserve numbers).
        assert output == [str(v) for v in declared_versions()], output


def test_the_rate_limit_holds_across_instances(cluster):
    """A client that spreads its requests over three instances gets the limit once; with the limit per
    instance (the single-machine default) the same client gets it three times — the gap this closes."""
    results = {}
    for scope in ("database", "instance"):
        endpoints, processes = spawn(cluster, "latchkey", ["--rate-limit", "30", "--trust-forwarded-for", "--rate-limit-scope", scope])
        try:
            wait_until(lambda: all(healthy(e.port) for e in endpoints), 60, "start-up")
            # A client address of its own (as the proxy would write it), so no other test shares its bucket.
            address = f"198.51.100.{7 if scope == 'database' else 8}"
            statuses, retry_after = [], set()
            for index in range(90):
                status, _, headers = endpoints[index % 3].raw("POST", "/api/login/options", headers={"X-Forwarded-For": address})
                statuses.append(status)
                if status == 429:
                    retry_after.add(int(headers["Retry-After"]))
            results[scope] = statuses.count(200)
            assert set(statuses) <= {200, 429}, statuses
            assert retry_after <= {1, 2, 3}, retry_after
        finally:
            stop(processes)
    # 30 at once plus what refilled (half a request a second) while the 90 requests ran.
    assert 30 <= results["database"] <= 33, results
    assert results["instance"] >= 88, results


def metric(port, name):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as response:
        for line in response.read().decode().splitlines():
            if line.startswith(name + " ") or line.startswith(name + "{"):
                return float(line.rsplit(" ", 1)[1])
    return 0.0


def test_housekeeping_runs_on_one_instance_at_a_time(cluster):
    """Every instance wakes up each second (--housekeeping-interval 1); the purges of all three together
    come about once a second, not three times."""
    ports = cluster.instance_ports
    before = [metric(port, "latchkey_housekeeping_runs_total") for port in ports]
    started = time.time()
    time.sleep(8)
    elapsed = time.time() - started
    runs = sum(metric(port, "latchkey_housekeeping_runs_total") for port in ports) - sum(before)
    # One per interval (claims count an interval from 0.9 s on), never one per instance per interval.
    assert elapsed / 1.5 <= runs <= elapsed / 0.9 + 1, (runs, elapsed)
    last = cluster.psql("SELECT instance, (extract(epoch FROM now()) * 1000)::bigint - last_run FROM housekeeping WHERE task = 'purge-expired'")
    assert len(last) == 1 and int(last[0][1]) < 2500, last


class Ledger:
    """What the server acknowledged through the proxy while an instance was killed."""

    def __init__(self):
        self.lock = threading.Lock()
        self.answers = []  # (time, status, error code)
        self.crashes = []  # exceptions that ended a worker
        self.accounts = {}  # account id -> allowed credo values (the acknowledged one and later attempts)

    def record(self, status, body):
        code = body["error"]["code"] if isinstance(body, dict) and "error" in body else None
        with self.lock:
            self.answers.append((time.time(), status, code))


def load(cluster, ledger, until, worker):
    try:
        load_loop(cluster, ledger, until, worker)
    except BaseException as error:  # a worker that died would quietly stop adding to the ledger
        ledger.crashes.append(repr(error))
        raise


def load_loop(cluster, ledger, until, worker):
    endpoint = proxy(cluster)
    sequence = 0
    while time.time() < until:
        device = SoftWebauthnDevice()
        try:
            status, body = register(endpoint, device, f"load-{worker}-{sequence}")
        except OSError:
            status, body = 0, None
        ledger.record(status, body)
        if status != 201:
            continue
        account, token = body["account"]["id"], body["token"]
        with ledger.lock:
            ledger.accounts[account] = {""}
        for update in range(5):
            sequence += 1
            credo = f"credo {worker}-{sequence}"
            with ledger.lock:
                ledger.accounts[account].add(credo)
            try:
                status, body = endpoint.call("PATCH", "/api/account", {"credo": credo}, token=token)
            except OSError:
                status, body = 0, None
            ledger.record(status, body)
            if status == 200:
                with ledger.lock:
                    ledger.accounts[account] = {credo}


def test_an_instance_killed_under_load_loses_no_acknowledged_write_and_the_others_keep_serving(cluster):
    ledger, workers = Ledger(), 6
    until = time.time() + 10
    threads = [threading.Thread(target=load, args=(cluster, ledger, until, worker)) for worker in range(workers)]
    for thread in threads:
        thread.start()
    time.sleep(3)
    killed_at = time.time()
    cluster.kill(1)
    for thread in threads:
        thread.join()
    assert ledger.crashes == []
    statuses = [status for _, status, _ in ledger.answers]
    failures = [(round(at - killed_at, 2), status, code) for at, status, code in ledger.answers if status not in (200, 201)]
    print(f"\nkill: {len(ledger.answers)} answers through nginx, failures (s after the kill, status, code): {failures}")
    # Only what was in flight on the killed instance fails (nginx's 502, in Latchkey's JSON shape: a POST
    # that reached an instance is never sent to another); everything begun a second after the kill succeeds.
    assert all((status, code) == (502, "upstream_unavailable") for _, status, code in failures), failures
    assert len(failures) <= workers, failures
    assert all(at < 1 for at, _, _ in failures), failures
    assert statuses.count(201) > 20 and statuses.count(200) > 50, (statuses.count(201), statuses.count(200))
    # Every acknowledged write is in the database.
    stored = dict(cluster.psql("SELECT id, credo FROM accounts WHERE display_name LIKE 'load-%'"))
    for account, allowed in ledger.accounts.items():
        assert account in stored, f"acknowledged account {account} is missing"
        assert stored[account] in allowed, (account, stored[account], allowed)
    # The killed instance comes back and serves the same data.
    cluster.start(1)
    assert healthy(cluster.instance_ports[1])


def test_postgresql_restarted_under_load_gives_503s_then_every_instance_reconnects(cluster):
    device, token = signed_up(proxy(cluster))
    endpoints = instances(cluster)
    answers, stop_at = [], time.time() + 12
    lock = threading.Lock()

    def reader(index):
        while time.time() < stop_at:
            began = time.time()
            try:
                status, body = endpoints[index % 3].call("GET", "/api/account", token=token)
            except OSError as error:
                status, body = 0, {"error": {"code": repr(error)}}
            with lock:
                answers.append((began, time.time() - began, status, body["error"]["code"] if status >= 400 and body else None))
            time.sleep(0.02)

    threads = [threading.Thread(target=reader, args=(index,)) for index in range(6)]
    for thread in threads:
        thread.start()
    time.sleep(2)
    down_at = time.time()
    cluster.stop_postgres(mode="immediate")
    time.sleep(3)
    cluster.start_postgres()
    up_at = time.time()
    for thread in threads:
        thread.join()
    statuses = {status for _, _, status, _ in answers}
    print([(round(began - down_at, 2), code) for began, _, status, code in answers if status == 0][:10])
    print(f"\nPostgreSQL down {up_at - down_at:.1f} s: {len(answers)} answers, {sum(1 for a in answers if a[2] == 503)} × 503, "
          f"longest {max(a[1] for a in answers):.2f} s")
    assert statuses <= {200, 503}, sorted(statuses)
    assert {code for _, _, status, code in answers if status == 503} == {"database_unavailable"}
    assert any(status == 503 and down_at <= began < up_at for began, _, status, _ in answers), "no 503 while PostgreSQL was down"
    # No request hangs: each ends within the database time-out (2 s) and a margin.
    assert max(duration for _, duration, _, _ in answers) < 6
    # Reconnected: everything begun three seconds after the restart succeeds, on every instance.
    assert all(status == 200 for began, _, status, _ in answers if began > up_at + 3)
    for endpoint in endpoints:
        assert endpoint.call("GET", "/api/account", token=token)[0] == 200


def test_the_sample_production_config_is_one_nginx_accepts(tmp_path):
    """deploy/nginx/latchkey.conf, with a throw-away certificate in place of the real one, passes `nginx -t`."""
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", tmp_path / "key.pem", "-out",
                    tmp_path / "cert.pem", "-subj", "/CN=login.example.com", "-days", "1"], check=True, capture_output=True)
    site = (HERE.parents[3] / "deploy" / "nginx" / "latchkey.conf").read_text()
    site = site.replace("/etc/letsencrypt/live/login.example.com/fullchain.pem", str(tmp_path / "cert.pem"))
    site = site.replace("/etc/letsencrypt/live/login.example.com/privkey.pem", str(tmp_path / "key.pem"))
    # Every access log of the sample uses the format without query strings (finding 10).
    access_logs = [line.strip() for line in site.splitlines() if line.strip().startswith("access_log")]
    assert access_logs and all(line.endswith(" latchkey_no_query;") for line in access_logs), access_logs
    assert "$request " not in site and "$request'" not in site and "$args" not in site
    site = site.replace("/var/log/nginx/", f"{tmp_path}/")
    (tmp_path / "site.conf").write_text(site)
    (tmp_path / "nginx.conf").write_text(f"pid {tmp_path}/nginx.pid;\nerror_log {tmp_path}/error.log;\nevents {{}}\nhttp {{ include {tmp_path}/site.conf; }}\n")
    checked = subprocess.run(["/usr/sbin/nginx", "-t", "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf")], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr
