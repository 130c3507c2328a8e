"""`latchkey serve --tls-cert --tls-key` (issue 33, item 3): HTTPS without a proxy, against a certificate from a
CA each test makes (Tests/System/Support/certificates.py, Debian's openssl). curl speaks HTTP/2 (ALPN h2) and HTTP/1.1
to it, every response carries HSTS, a soft-webauthn passkey signs up and in over https with a Secure
__Host- cookie; SIGHUP presents a renewed certificate to new connections while open ones keep theirs, and
keeps the old one (server alive) when the new files are bad; start-up refuses bad files with one sentence;
and the connection protections hold over TLS (a silent or half-sent handshake, an HTTP/2 connection that
ignores the idle GOAWAY, a malformed HTTP/1.1 head, the per-client connection bound)."""
import json
import os
import shutil
import signal
import socket
import ssl
import subprocess
import time

import pytest
from soft_webauthn import SoftWebauthnDevice

from certificates import CertificateAuthority, serial_of
from latchkey_server import Server
from processes import free_port, latchkey_binary, wait_until
from soft_webauthn_client import login, login_response, register

HSTS = "max-age=31536000"


@pytest.fixture
def ca(tmp_path):
    return CertificateAuthority(tmp_path / "ca")


@pytest.fixture
def files(ca, tmp_path):
    """The paths the server is given (as certbot's live/ names), holding a first certificate, serial 0x1001."""
    chain, key = ca.issue("first", serial=0x1001)
    live = tmp_path / "live"
    live.mkdir()
    shutil.copy(chain, live / "fullchain.pem")
    shutil.copy(key, live / "privkey.pem")
    os.chmod(live / "privkey.pem", 0o600)
    return live / "fullchain.pem", live / "privkey.pem"


def curl(server, *arguments, path="/healthz"):
    """curl against the server, trusting the test CA only; returns (HTTP version, status, headers, body)."""
    result = subprocess.run(
        ["curl", "-sS", "--cacert", str(server.ca), "-D", "-", "-o", "-", "-w", "\n%{http_version} %{http_code}",
         *arguments, f"{server.base}{path}"],
        capture_output=True, timeout=60)  # bytes: text mode would turn the head's CRLFs into LFs
    assert result.returncode == 0, result.stderr
    output, _, summary = result.stdout.decode().rpartition("\n")
    version, status = summary.split()
    head, _, body = output.partition("\r\n\r\n")
    headers = {}
    for line in head.split("\r\n")[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return version, int(status), headers, body


def presented_serial(server):
    """The serial of the certificate a new TLS connection to the server is shown (verified against the CA)."""
    context = ssl.create_default_context(cafile=str(server.ca))
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as raw:
        with context.wrap_socket(raw, server_hostname="localhost") as tls:
            return tls.getpeercert()["serialNumber"]


def replace(path, data, mode=0o644):
    """Puts `data` at `path` at once (a new file renamed over the old, as certbot's renewal switches
    its live/ link), with `mode`."""
    temporary = path.with_name(path.name + ".new")
    temporary.write_bytes(data)
    os.chmod(temporary, mode)
    os.replace(temporary, path)


def log_lines(server, text):
    return [line for line in server.log_text().splitlines() if text in line]


# HTTPS, HTTP/2 and HTTP/1.1, HSTS, a passkey.

def test_https_speaks_http2_and_http11_with_hsts_and_a_passkey_signs_up_and_in(ca, files):
    certificate, key = files
    with Server("--user-verification", "preferred", tls=(certificate, key, ca.certificate)) as server:
        version, status, headers, body = curl(server, "--http2")
        assert (version, status) == ("2", 200), (version, status)
        assert json.loads(body) == {"status": "ok"}
        assert headers.get("strict-transport-security") == HSTS

        version, status, headers, _ = curl(server, "--http1.1")
        assert (version, status) == ("1.1", 200)
        assert headers.get("strict-transport-security") == HSTS

        # The API's JSON errors carry it too, and so does the page.
        version, status, headers, body = curl(server, "--http2", path="/no-such-path")
        assert (version, status) == ("2", 404)
        assert json.loads(body)["error"]["code"] == "not_found"
        assert headers.get("strict-transport-security") == HSTS
        version, status, headers, body = curl(server, "--http2", path="/")
        assert (version, status) == ("2", 200) and "<html" in body.lower()
        assert headers.get("strict-transport-security") == HSTS

        # Plain HTTP on the TLS port gets nothing served.
        plain = subprocess.run(["curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", f"http://127.0.0.1:{server.port}/healthz"],
                               capture_output=True, text=True, timeout=60)
        assert plain.stdout != "200"

        # A real sign-up and login over https, the origin https://localhost:PORT.
        device = SoftWebauthnDevice()
        status, account = register(server, device, "Ada over TLS")
        assert status == 201, account
        status, session = login(server, device)
        assert status == 200, session
        assert session["account"]["id"] == account["account"]["id"]

        # The session cookie is Secure, under the __Host- name (the origin is https).
        status, credential = login_response(server, device)
        assert status == 200
        status, body, response_headers = server.raw("POST", "/api/login/verify", json.dumps({"credential": credential}).encode())
        assert status == 200, body
        cookie = response_headers.get("Set-Cookie") or response_headers.get("set-cookie")
        assert cookie.startswith("__Host-latchkey_session="), cookie
        assert "; Secure" in cookie and "HttpOnly" in cookie
        assert response_headers.get("Strict-Transport-Security") == HSTS

        loaded = log_lines(server, "TLS certificate loaded")
        assert loaded and "1001" in loaded[0], server.log_text()
        assert f"listening on https://127.0.0.1:{server.port}" in server.log_text()


# Reloading on SIGHUP.

def test_sighup_presents_a_renewed_certificate_to_new_connections_and_keeps_the_old_one_when_the_files_are_bad(ca, files):
    certificate, key = files
    with Server(tls=(certificate, key, ca.certificate)) as server:
        assert presented_serial(server) == "1001"
        # A connection opened before the renewal keeps its certificate and goes on working.
        context = ssl.create_default_context(cafile=str(ca.certificate))
        early = context.wrap_socket(socket.create_connection(("127.0.0.1", server.port), timeout=10), server_hostname="localhost")

        renewed_chain, renewed_key = ca.issue("renewed", serial=0x2002)
        replace(certificate, renewed_chain.read_bytes())
        replace(key, renewed_key.read_bytes(), mode=0o600)
        os.kill(server.process.pid, signal.SIGHUP)
        wait_until(lambda: log_lines(server, "TLS certificate reloaded"), 30, "the reload's log line")
        reloaded = log_lines(server, "TLS certificate reloaded")[0]
        assert "serial=2002" in reloaded and "previous_serial=1001" in reloaded, reloaded
        assert presented_serial(server) == "2002"
        assert serial_of(renewed_chain.read_bytes()) == "2002"

        assert early.getpeercert()["serialNumber"] == "1001"
        early.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        answer = b""
        while chunk := early.recv(4096):
            answer += chunk
        early.close()
        assert answer.startswith(b"HTTP/1.1 200"), answer[:200]

        # Bad files: each is refused with a sentence, the renewed certificate stays, the server lives on.
        other_chain, other_key = ca.issue("other", serial=0x3003)
        good_chain, good_key = certificate.read_bytes(), key.read_bytes()
        bad = [
            ("a key that is not the certificate's", lambda: replace(key, other_key.read_bytes(), mode=0o600), "does not go with"),
            ("a certificate cut short", lambda: replace(certificate, good_chain[:100]), "holds no PEM certificate"),
            ("a key others can read", lambda: replace(key, good_key, mode=0o644), "chmod 600"),
        ]
        for what, damage, sentence in bad:
            replace(certificate, good_chain)
            replace(key, good_key, mode=0o600)
            damage()
            refusals = len(log_lines(server, "TLS certificate not reloaded"))
            os.kill(server.process.pid, signal.SIGHUP)
            wait_until(lambda: len(log_lines(server, "TLS certificate not reloaded")) > refusals, 30, f"the refusal of {what}")
            line = log_lines(server, "TLS certificate not reloaded")[-1]
            assert sentence in line and "still presenting serial 2002" in line, (what, line)
            assert server.alive(), what
            assert presented_serial(server) == "2002", what
            assert server.call("GET", "/healthz")[0] == 200


# Start-up refusals.

def serve(*flags, tmp_path):
    port = free_port()
    return subprocess.run(
        [latchkey_binary(), "serve", "--port", str(port), "--origin", f"https://localhost:{port}",
         "--database", f"sqlite:{tmp_path}/refused.sqlite", *map(str, flags)],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)


def test_start_up_refuses_unusable_files_with_one_sentence(ca, files, tmp_path):
    certificate, key = files
    other_chain, other_key = ca.issue("other", serial=0x3003)
    open_key = tmp_path / "open.key"
    open_key.write_bytes(key.read_bytes())
    os.chmod(open_key, 0o640)
    garbage = tmp_path / "garbage.pem"
    garbage.write_text("not a certificate\n")
    cases = [
        (["--tls-cert", certificate], "--tls-cert needs --tls-key"),
        (["--tls-key", key], "--tls-key needs --tls-cert"),
        (["--tls-cert", tmp_path / "missing.pem", "--tls-key", key], "cannot be read"),
        (["--tls-cert", certificate, "--tls-key", open_key], f"The TLS key file {open_key} is readable by others (mode 640); chmod 600 it"),
        (["--tls-cert", garbage, "--tls-key", key], "holds no PEM certificate"),
        (["--tls-cert", certificate, "--tls-key", other_key], "does not go with the certificate"),
    ]
    for flags, sentence in cases:
        result = serve(*flags, tmp_path=tmp_path)
        assert result.returncode == 2, (flags, result.stdout, result.stderr)
        assert result.stderr.startswith("latchkey serve: "), result.stderr
        assert sentence in result.stderr, (flags, result.stderr)
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr


# The connection protections over TLS.

def read_until_closed(connection, seconds=60):
    """Everything the server sends until it closes the connection (raises on a time-out: never closed)."""
    connection.settimeout(seconds)
    received = b""
    try:
        while chunk := connection.recv(65536):
            received += chunk
    except (ConnectionResetError, ssl.SSLError):
        pass
    return received


def test_silent_and_half_sent_handshakes_are_closed(ca, files):
    certificate, key = files
    with Server("--idle-timeout", "3", "--head-timeout", "1", tls=(certificate, key, ca.certificate)) as server:
        with socket.create_connection(("127.0.0.1", server.port)) as silent:
            assert read_until_closed(silent) == b""
        with socket.create_connection(("127.0.0.1", server.port)) as half:
            half.sendall(b"\x16\x03\x01\x02")  # the start of a TLS record header, and no more
            assert read_until_closed(half) == b""
        assert server.call("GET", "/healthz")[0] == 200


def test_a_busy_connection_outlives_the_handshake_deadline_on_either_protocol(ca, files):
    """Once ALPN has chosen, the handshake deadline is gone: a connection that keeps sending requests is served
    for longer than the silence allowed before a handshake, over HTTP/1.1 and over HTTP/2 (curl reuses one
    connection for every URL, two a second)."""
    certificate, key = files
    with Server("--idle-timeout", "2", "--head-timeout", "1", tls=(certificate, key, ca.certificate)) as server:
        url = f"{server.base}/healthz"
        for protocol in ("--http1.1", "--http2"):
            result = subprocess.run(
                ["curl", "-sS", "--cacert", str(ca.certificate), protocol, "--rate", "2/s",
                 "-w", "%{http_version} %{http_code} %{num_connects}\n", *["-o", "/dev/null", url] * 9],
                capture_output=True, text=True, timeout=120)
            assert result.returncode == 0, result.stderr
            lines = result.stdout.split()
            answers = [tuple(lines[i:i + 3]) for i in range(0, len(lines), 3)]
            version = "1.1" if protocol == "--http1.1" else "2"
            assert answers == [(version, "200", "1")] + [(version, "200", "0")] * 8, (protocol, answers)


def frames(data):
    """HTTP/2 frames in `data`: (type, flags, stream) of each whole one."""
    found, offset = [], 0
    while offset + 9 <= len(data):
        length = int.from_bytes(data[offset:offset + 3], "big")
        found.append((data[offset + 3], data[offset + 4], int.from_bytes(data[offset + 5:offset + 9], "big") & 0x7FFFFFFF))
        offset += 9 + length
    return found


def test_an_http2_connection_that_ignores_the_idle_goaway_is_closed(ca, files):
    certificate, key = files
    with Server("--idle-timeout", "2", tls=(certificate, key, ca.certificate)) as server:
        context = ssl.create_default_context(cafile=str(ca.certificate))
        context.set_alpn_protocols(["h2"])
        with context.wrap_socket(socket.create_connection(("127.0.0.1", server.port)), server_hostname="localhost") as tls:
            assert tls.selected_alpn_protocol() == "h2"
            # The client preface and an empty SETTINGS; then nothing, not even the SETTINGS or PING acks.
            tls.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00")
            received = read_until_closed(tls)
        kinds = [kind for kind, _, _ in frames(received)]
        assert 0x4 in kinds, kinds  # the server's SETTINGS
        assert 0x7 in kinds, kinds  # GOAWAY at the idle time-out, then the close when it was ignored
        assert server.call("GET", "/healthz")[0] == 200


def test_the_server_stops_promptly_with_silent_and_idle_connections_open(ca, files):
    """SIGTERM with a socket that never started its handshake (browsers pre-connect), an idle HTTP/1.1
    connection and an HTTP/2 connection that answers nothing (no PING ack, no close_notify): the server stops
    within the HTTP/2 grace (5 s) and the close_notify wait (1 s), not at the idle time-out (30 s here), as it
    did before — found by the browser stage, whose TLS test then waited 30 s for the stop and failed."""
    certificate, key = files
    server = Server("--idle-timeout", "30", tls=(certificate, key, ca.certificate))
    connections = []
    try:
        connections.append(socket.create_connection(("127.0.0.1", server.port)))
        for protocol in ("http/1.1", "h2"):
            context = ssl.create_default_context(cafile=str(ca.certificate))
            context.set_alpn_protocols([protocol])
            tls = context.wrap_socket(socket.create_connection(("127.0.0.1", server.port)), server_hostname="localhost")
            assert tls.selected_alpn_protocol() == protocol
            if protocol == "h2":
                tls.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00")
            connections.append(tls)
        time.sleep(0.5)
        started = time.monotonic()
        server.process.send_signal(signal.SIGTERM)
        server.process.wait(timeout=60)
        took = time.monotonic() - started
        assert took < 12, f"the server took {took:.1f} s to stop"
        assert server.process.returncode == 0
    finally:
        for connection in connections:
            connection.close()
        server.stop()


def test_a_malformed_http11_head_over_tls_gets_the_json_400_with_hsts(ca, files):
    certificate, key = files
    with Server(tls=(certificate, key, ca.certificate)) as server:
        context = ssl.create_default_context(cafile=str(ca.certificate))
        context.set_alpn_protocols(["http/1.1"])
        with context.wrap_socket(socket.create_connection(("127.0.0.1", server.port)), server_hostname="localhost") as tls:
            tls.sendall(b"POST /api/login/options HTTP/1.1\r\nHost: localhost\r\nContent-Length: \r\n\r\n")
            answer = read_until_closed(tls)
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 400"), head
        assert b"strict-transport-security: max-age=31536000" in head.lower(), head
        assert json.loads(body)["error"]["code"] == "malformed_http"


def test_the_per_client_connection_bound_holds_over_tls(ca, files):
    certificate, key = files
    with Server("--max-connections-per-client", "2", tls=(certificate, key, ca.certificate)) as server:
        context = ssl.create_default_context(cafile=str(ca.certificate))
        held = [context.wrap_socket(socket.create_connection(("127.0.0.1", server.port), timeout=10), server_hostname="localhost")
                for _ in range(2)]
        try:
            with socket.create_connection(("127.0.0.1", server.port), timeout=10) as third:
                assert read_until_closed(third, seconds=10) == b""  # closed at accept, before any handshake
        finally:
            for connection in held:
                connection.close()
        wait_until(lambda: answers(server), 30, "a slot freed")


def answers(server):
    """/healthz answers 200 now (a connection refused at accept is an OSError)."""
    try:
        return server.call("GET", "/healthz")[0] == 200
    except OSError:
        return False
