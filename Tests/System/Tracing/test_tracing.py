"""OpenTelemetry tracing in `latchkey serve` (issue 33, item 5), against an OTLP/HTTP receiver this test runs on
127.0.0.1 (the OpenTelemetry Collector is not available here): with the standard OTEL_* variables pointing at
it, one registration and one login arrive as spans once the server is stopped with SIGTERM (the exporter
flushes on shutdown): each request a server span named after its route, the ceremony its child, the WebAuthn
verification and the database's units of work in the same trace under the ceremony; a caller's W3C
traceparent is continued. Off (no variable asks for it, OTEL_SDK_DISABLED=true, OTEL_TRACES_EXPORTER=none),
nothing reaches the receiver; values swift-otel would stop the process on are refused in a sentence."""
import base64
import http.server
import json
import os
import secrets
import subprocess
import tempfile
import threading

import pytest
from soft_webauthn import SoftWebauthnDevice

from latchkey_server import Server
from processes import PrivatePostgres, free_port, latchkey_binary
from soft_webauthn_client import login_response, register

SERVER_KIND = 2  # OTLP's SPAN_KIND_SERVER
# soft-webauthn sets no UV flag; no rate limit for the few requests of each case.
FLAGS = ("--rate-limit", "0", "--user-verification", "preferred")


class Receiver:
    """An OTLP/HTTP receiver: every POST is kept as (path, content type, body bytes) and answered with an
    empty ExportTraceServiceResponse in the request's own encoding."""

    def __init__(self):
        self.requests = []
        received = self.requests

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                content_type = self.headers.get("Content-Type", "")
                received.append((self.path, content_type, body))
                answer = b"{}" if "json" in content_type else b""
                self.send_response(200)
                self.send_header("Content-Type", "application/json" if "json" in content_type else "application/x-protobuf")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def spans(self):
        """Every span of every JSON export, as dicts with hex ids, the resource's attributes beside them."""
        found = []
        for path, content_type, body in self.requests:
            assert path == "/v1/traces", path
            assert "json" in content_type, content_type
            for resource_spans in json.loads(body).get("resourceSpans", []):
                resource = attributes(resource_spans.get("resource", {}).get("attributes", []))
                for scope in resource_spans.get("scopeSpans", []):
                    for span in scope.get("spans", []):
                        found.append({
                            "name": span["name"], "kind": span.get("kind"), "trace": hex_id(span["traceId"]),
                            "id": hex_id(span["spanId"]), "parent": hex_id(span.get("parentSpanId", "")),
                            "attributes": attributes(span.get("attributes", [])), "status": span.get("status", {}),
                            "resource": resource,
                        })
        return found

    def close(self):
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def hex_id(text):
    """A trace or span id as OTLP/JSON carries it (hex, as the specification says, or base64, protobuf's JSON
    mapping of bytes) in lower-case hex; '' for none."""
    if not text:
        return ""
    if len(text) in (16, 32) and all(c in "0123456789abcdefABCDEF" for c in text):
        return text.lower()
    return base64.b64decode(text).hex()


def attributes(pairs):
    """OTLP KeyValue list as a dict of plain values."""
    values = {}
    for pair in pairs:
        value = pair.get("value", {})
        if "stringValue" in value:
            values[pair["key"]] = value["stringValue"]
        elif "intValue" in value:
            values[pair["key"]] = int(value["intValue"])
        elif "boolValue" in value:
            values[pair["key"]] = value["boolValue"]
        else:
            values[pair["key"]] = value
    return values


def tracing_env(receiver, **more):
    env = {
        "OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url,
        "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json", "OTEL_SERVICE_NAME": "latchkey-under-test",
    }
    env.update(more)
    return env


def login_with_headers(server, device, headers):
    """A login whose verify request carries `headers`; (status, body)."""
    status, credential = login_response(server, device)
    assert status == 200, credential
    status, body, _ = server.raw("POST", "/api/login/verify", json.dumps({"credential": credential}).encode(), headers=headers)
    return status, body


def one(spans, **where):
    matching = [span for span in spans if all(span.get(key) == value for key, value in where.items())]
    assert len(matching) == 1, (where, [(s["name"], s["parent"]) for s in spans])
    return matching[0]


def children(spans, parent):
    return [span for span in spans if span["parent"] == parent["id"]]


def test_a_registration_and_a_login_arrive_as_linked_spans():
    with Receiver() as receiver:
        server = Server(*FLAGS, env=tracing_env(receiver))
        try:
            device = SoftWebauthnDevice()
            status, body = register(server, device, "Traced")
            assert status == 201, body
            # The login's verify with no traceparent: its request span starts a trace.
            status, credential = login_response(server, device)
            assert status == 200, credential
            status, body = server.call("POST", "/api/login/verify", {"credential": credential})
            assert status == 200, body
            # A second login continues the caller's trace.
            caller_trace, caller_span = secrets.token_hex(16), secrets.token_hex(8)
            status, body = login_with_headers(server, device, {"traceparent": f"00-{caller_trace}-{caller_span}-01"})
            assert status == 200, body
        finally:
            server.stop()  # SIGTERM: the exporter sends what it holds before the process ends
        spans = receiver.spans()

    assert spans, "no span reached the receiver"
    assert {span["resource"].get("service.name") for span in spans} == {"latchkey-under-test"}

    # The first login: a root server span for the route, the ceremony under it, verification and the
    # transaction (SQLite) under the ceremony, all in one trace.
    logins = [span for span in spans if span["name"] == "/api/login/verify"]
    assert len(logins) == 2, [span["name"] for span in spans]
    request = one(logins, parent="")
    assert request["kind"] == SERVER_KIND
    assert request["attributes"]["http.request.method"] == "POST"
    assert request["attributes"]["http.route"] == "/api/login/verify"
    assert request["attributes"]["http.response.status_code"] == 200
    assert request["attributes"]["url.path"] == "/api/login/verify"
    trace = [span for span in spans if span["trace"] == request["trace"]]
    ceremony = one(children(trace, request), name="ceremony.login")
    assert ceremony["attributes"]["latchkey.ceremony"] == "login"
    verification = one(children(trace, ceremony), name="webauthn.verify")
    assert verification["attributes"]["webauthn.ceremony"] == "authentication"
    transaction = one(children(trace, ceremony), name="db.transaction")
    assert transaction["attributes"]["db.system.name"] == "sqlite"
    assert {span["name"] for span in trace} == {"/api/login/verify", "ceremony.login", "webauthn.verify", "db.transaction"}

    # The second login is a child of the caller's span, in the caller's trace.
    continued = one(logins, parent=caller_span)
    assert continued["trace"] == caller_trace
    assert {span["name"] for span in spans if span["trace"] == caller_trace} == {
        "/api/login/verify", "ceremony.login", "webauthn.verify", "db.transaction"}

    # The registration: the same shape, and its session's own unit of work.
    registration = one(spans, name="/api/registration/verify")
    assert registration["parent"] == "" and registration["attributes"]["http.response.status_code"] == 201
    trace = [span for span in spans if span["trace"] == registration["trace"]]
    ceremony = one(children(trace, registration), name="ceremony.registration")
    assert ceremony["attributes"]["latchkey.ceremony"] == "registration"
    verification = one(children(trace, ceremony), name="webauthn.verify")
    assert verification["attributes"]["webauthn.ceremony"] == "registration"
    units = [span for span in children(trace, ceremony) if span["name"].startswith("db.")]
    assert units and all(span["attributes"]["db.system.name"] == "sqlite" for span in units)

    # Options write nothing: a request span and no other.
    options = [span for span in spans if span["name"] == "/api/login/options"]
    assert len(options) == 2 and all(not children(spans, span) for span in options)
    assert all(span["attributes"]["http.response.status_code"] == 200 for span in options)


@pytest.mark.skipif(not PrivatePostgres.installed(), reason="PostgreSQL 15 is installed by scripts/provision")
def test_on_postgresql_the_login_is_two_units_of_work_under_its_ceremony():
    postgres = PrivatePostgres().up()
    try:
        with Receiver() as receiver:
            server = Server(*FLAGS, database=postgres.url, env=tracing_env(receiver))
            try:
                device = SoftWebauthnDevice()
                status, body = register(server, device, "Traced on PostgreSQL")
                assert status == 201, body
                status, credential = login_response(server, device)
                assert status == 200, credential
                status, body = server.call("POST", "/api/login/verify", {"credential": credential})
                assert status == 200, body
            finally:
                server.stop()
            spans = receiver.spans()
    finally:
        postgres.down()
    assert spans and not any("password" in json.dumps(span).lower() for span in spans)
    request = one(spans, name="/api/login/verify")
    ceremony = one(children(spans, request), name="ceremony.login")
    one(children(spans, ceremony), name="webauthn.verify")
    # The credential with its account, then the one statement that marks, counts and opens the session.
    units = [span for span in children(spans, ceremony) if span["name"] != "webauthn.verify"]
    assert [span["name"] for span in units] == ["db.work", "db.work"]
    assert all(span["attributes"]["db.system.name"] == "postgresql" and span["trace"] == request["trace"] for span in units)
    # A registration's transaction is one span: its connection's unit of work has none of its own.
    registration = one(children(spans, one(spans, name="/api/registration/verify")), name="ceremony.registration")
    transaction = one(children(spans, registration), name="db.transaction")
    assert transaction["attributes"]["db.system.name"] == "postgresql" and not children(spans, transaction)


def test_a_refused_login_and_a_query_are_recorded_without_secrets():
    with Receiver() as receiver:
        server = Server(*FLAGS, env=tracing_env(receiver))
        try:
            device = SoftWebauthnDevice()
            status, body = register(server, device, "Refused")
            assert status == 201, body
            status, credential = login_response(server, device)
            assert status == 200, credential
            signature = bytearray(base64.urlsafe_b64decode(credential["response"]["signature"] + "=="))
            signature[-1] ^= 1
            credential["response"]["signature"] = base64.urlsafe_b64encode(bytes(signature)).decode().rstrip("=")
            status, body = server.call("POST", "/api/login/verify", {"credential": credential})
            assert status == 401, body
            status, _, _ = server.raw("GET", "/healthz?token=not-for-the-spans", body=None)
            assert status == 200
        finally:
            server.stop()
        spans = receiver.spans()

    request = one(spans, name="/api/login/verify")
    assert request["attributes"]["http.response.status_code"] == 401
    ceremony = one(children(spans, request), name="ceremony.login")
    verification = one(children(spans, ceremony), name="webauthn.verify")
    assert verification["attributes"]["webauthn.rule"] == body["error"]["code"] == "signature_invalid"
    assert verification["status"].get("code") == 2  # STATUS_CODE_ERROR
    health = [span for span in spans if span["name"] == "/healthz" and span["attributes"].get("url.path") == "/healthz"]
    assert health and all("url.query" not in span["attributes"] for span in health)
    assert not any("not-for-the-spans" in json.dumps(span) for span in spans)


def test_protobuf_is_the_default_encoding():
    with Receiver() as receiver:
        env = tracing_env(receiver)
        del env["OTEL_EXPORTER_OTLP_PROTOCOL"]
        server = Server(*FLAGS, env=env)
        caller_trace = secrets.token_hex(16)
        try:
            status, _, _ = server.raw("GET", "/healthz", body=None, headers={"traceparent": f"00-{caller_trace}-{secrets.token_hex(8)}-01"})
            assert status == 200
        finally:
            server.stop()
        exports = list(receiver.requests)
    assert exports and all(path == "/v1/traces" and content_type == "application/x-protobuf" for path, content_type, _ in exports)
    # The span's trace id travels as its 16 bytes.
    assert any(bytes.fromhex(caller_trace) in body for _, _, body in exports)


def test_off_nothing_reaches_the_receiver():
    with Receiver() as receiver:
        for env in ({"OTEL_SERVICE_NAME": "latchkey-under-test", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"},
                    tracing_env(receiver, OTEL_SDK_DISABLED="true"),
                    tracing_env(receiver, OTEL_TRACES_EXPORTER="none")):
            server = Server(*FLAGS, env=env)
            try:
                device = SoftWebauthnDevice()
                status, body = register(server, device, "Untraced")
                assert status == 201, body
                status, credential = login_response(server, device)
                assert status == 200, credential
                status, body = server.call("POST", "/api/login/verify", {"credential": credential})
                assert status == 200, body
            finally:
                server.stop()
        assert receiver.requests == []


def test_settings_swift_otel_cannot_honour_are_refused_in_a_sentence():
    with Receiver() as receiver:
        for variable, value, sentence in (
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc", "OTEL_EXPORTER_OTLP_PROTOCOL is grpc: Latchkey exports OTLP over HTTP only"),
            ("OTEL_PROPAGATORS", "tracecontext,baggage", "OTEL_PROPAGATORS names baggage"),
            ("OTEL_TRACES_SAMPLER", "xray", "OTEL_TRACES_SAMPLER is xray"),
            ("OTEL_TRACES_EXPORTER", "zipkin", "OTEL_TRACES_EXPORTER is zipkin"),
        ):
            env = dict(os.environ, **tracing_env(receiver, **{variable: value}))
            with tempfile.TemporaryDirectory() as directory:
                env["LATCHKEY_KEY_FILE"] = os.path.join(directory, "latchkey.key")
                done = subprocess.run(
                    [latchkey_binary(), "serve", "--port", str(free_port()), "--database", f"sqlite:{directory}/db.sqlite"],
                    env=env, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
            assert done.returncode == 2, (variable, done.stdout, done.stderr)
            assert sentence in done.stderr, done.stderr
            assert "listening" not in done.stdout
        assert receiver.requests == []
