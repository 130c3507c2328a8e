"""Hostile HTTP traffic against a running `latchkey serve`: random hostile JSON bodies (deep nesting,
random bytes, truncated and mutated credentials with mutated CBOR inside, huge numbers, long strings,
invalid UTF-8, NULs, unpaired surrogates, duplicate keys, wrong types) on every route that reads a body,
and hostile requests of every other kind on every route (the page, `.well-known`, odd methods and paths,
oversized and malformed headers, garbage request lines, random bytes, bodies shorter than announced).
Used by Tests/System/Hostile/test_volume.py (in scripts/test) and by scripts/hostile-bodies (by hand).
Standard library only, except soft-webauthn to register the account the bodies start from."""
import collections
import http.client
import json
import multiprocessing
import pathlib
import random
import socket
import time
import urllib.parse
from base64 import urlsafe_b64encode

from soft_webauthn_client import b64url, login_response, register, registration_response, unb64url

BODY_LIMIT = 64 * 1024


# --- the account and the valid bodies the mutations start from ----------------------------------------

def set_up(server):
    """Registers one account; returns (token, passkey id, templates: valid bodies per route)."""
    try:
        from soft_webauthn import SoftWebauthnDevice
    except ImportError:
        raise SystemExit(
            "hostile traffic: the soft-webauthn package is needed to register the account. Run with the\n"
            "test venv:  .venv/soft_webauthn/bin/python ...\n"
            "(create it with: python3 -m venv .venv/soft_webauthn && "
            ".venv/soft_webauthn/bin/pip install -r Tests/System/Interop/soft_webauthn/requirements.txt)")

    device = SoftWebauthnDevice()
    status, body = register(server, device, "Fuzz")
    if status != 201:
        raise SystemExit(f"hostile traffic: registering the account failed: {status} {body}")
    token = body["token"]
    status, passkeys = server.call("GET", "/api/account/passkeys", token=token)
    if isinstance(passkeys, dict):
        passkeys = passkeys.get("passkeys", [])
    passkey_id = passkeys[0]["id"]

    # Valid bodies, never sent as they are: a registration for a second account (its challenge stays
    # pending) and a login of the registered one.
    _, registration = registration_response(server, SoftWebauthnDevice(), "Template")
    _, login = login_response(server, device)
    templates = {
        "registration": {"credential": registration},
        "login": {"credential": login},
        "options": {"displayName": "Ada Lovelace", "name": "laptop"},
        "account": {"displayName": "Grace", "credo": "line one\nline two"},
        "rename": {"name": "phone"},
    }
    return token, passkey_id, templates


# --- generators of hostile bodies ------------------------------------------------------------------

HUGE_NUMBERS = ["1e999", "-1e999", "1e-999", "-0", "-0.0", "0e0", "1E+308", "179769313486231570814527423731704356798070e300",
                "123456789012345678901234567890123456789", "-9223372036854775809", "18446744073709551616",
                "1" * 5000, "0." + "0" * 5000 + "1", "4.9e-324", "2.2250738585072011e-308",
                # Review 4, S4-2: Int.max, Int.min and 2^63 (which a Double holds and no Int does), 1e308.
                "9223372036854775807", "-9223372036854775808", "9223372036854775808", "1e308", "-1e308"]
BAD_NUMBERS = ["01", "1.", ".5", "+1", "1e", "--1", "NaN", "Infinity", "-Infinity", "0x10", "1_000"]
SURROGATES = ["\\ud800", "\\udc00", "\\ud800\\ud800", "\\udbff", "\\udfffx", "\\ud800\\u0041", "\\ud83d", "\\uDC00\\uD800"]
INVALID_UTF8 = [b"\xff", b"\xfe\xff", b"\xc0\x80", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\x80", b"\xe2\x82", b"\xf8\x88\x80\x80\x80",
                b"\xc3", b"\xef\xbb\xbf"]
FIELDS = ["displayName", "credo", "name", "credential"]
CREDENTIAL_PATHS = [
    ["credential"], ["credential", "id"], ["credential", "rawId"], ["credential", "type"], ["credential", "response"],
    ["credential", "response", "clientDataJSON"], ["credential", "response", "attestationObject"],
    ["credential", "response", "authenticatorData"], ["credential", "response", "signature"],
    ["credential", "response", "userHandle"], ["credential", "response", "transports"],
    ["credential", "clientExtensionResults"], ["credential", "authenticatorAttachment"],
]


class Generators:
    def __init__(self, rng: random.Random, templates):
        self.rng = rng
        self.templates = templates
        self.all = [
            (self.deep_nesting, 10), (self.random_bytes, 8), (self.truncated, 8), (self.huge_numbers, 6),
            (self.long_strings, 6), (self.invalid_utf8, 6), (self.nuls, 5), (self.surrogates, 6),
            (self.duplicate_keys, 5), (self.wrong_types, 12), (self.mutated_credential, 16),
            (self.mutated_inner, 8), (self.odd_json, 4),
        ]
        self.weights = [weight for _, weight in self.all]

    def body(self) -> (str, bytes):
        generator = self.rng.choices([g for g, _ in self.all], self.weights)[0]
        return generator.__name__, generator()

    # helpers
    def template(self):
        return json.loads(json.dumps(self.rng.choice(list(self.templates.values()))))

    def random_value(self, depth=0):
        r = self.rng
        kind = r.randrange(9 if depth < 4 else 6)
        if kind == 0: return None
        if kind == 1: return r.choice([True, False])
        if kind == 2: return r.randint(-2**70, 2**70)
        if kind == 3: return r.uniform(-1e308, 1e308)
        if kind == 4: return "".join(chr(r.randrange(0x20, 0x2FFF)) for _ in range(r.randrange(0, 40)))
        if kind == 5: return ""
        if kind == 6: return [self.random_value(depth + 1) for _ in range(r.randrange(0, 5))]
        if kind == 7: return {r.choice(FIELDS + ["x", "id", "type"]): self.random_value(depth + 1) for _ in range(r.randrange(0, 5))}
        return {"credential": self.random_value(depth + 1)}

    def dumps(self, value) -> bytes:
        return json.dumps(value, ensure_ascii=self.rng.random() < 0.5).encode()

    def into_field(self, raw_value: bytes) -> bytes:
        """A template body with one field's value replaced by raw JSON text (which may be invalid)."""
        field = self.rng.choice(FIELDS + ["credential.id", "credential.type", "credential.response.clientDataJSON"])
        marker = "\u0000MARK\u0000"
        body = self.template()
        if field.startswith("credential.") and isinstance(body.get("credential"), dict):
            node = body
            *parents, last = field.split(".")
            for part in parents:
                node = node.setdefault(part, {}) if isinstance(node.get(part, {}), dict) else {}
            node[last] = marker
        else:
            body[field.split(".")[0]] = marker
        text = json.dumps(body).encode()
        return text.replace(json.dumps(marker).encode(), raw_value, 1)

    # generators
    def deep_nesting(self):
        r = self.rng
        depth = int(r.choice([r.randrange(1, 100), r.randrange(60, 600), r.randrange(500, 20000), r.randrange(1, 200001)]))
        opener, closer = r.choice([(b"[", b"]"), (b'{"a":', b"}"), (b'{"credential":', b"}"), (b'{"displayName":', b"}"), (b"[{\"x\":", b"}]")])
        if r.random() < 0.3:
            openers = [r.choice([b"[", b'{"a":', b'{"credential":']) for _ in range(depth)]
            closers = [b"]" if o == b"[" else b"}" for o in reversed(openers)]
            head = b"".join(openers)
        else:
            head, closers = opener * depth, [closer] * depth
        style = r.randrange(4)
        if style == 0: return head
        if style == 1: return head + r.choice([b"1", b"null", b'"x"', b"[]", b"{}"]) + b"".join(closers)
        if style == 2: return head + b"1" + b"".join(closers[: r.randrange(0, depth + 1)])
        return head + b"".join(closers) + r.choice([b"", b"]", b"}", b",1", b" garbage"])

    def random_bytes(self):
        r = self.rng
        n = r.choice([0, 1, 2, r.randrange(0, 64), r.randrange(0, 4096), r.randrange(60000, 70000)])
        prefix = r.choice([b"", b"{", b"[", b'{"credential":', b'{"displayName":"'])
        return prefix + bytes(r.randrange(256) for _ in range(n))

    def truncated(self):
        text = self.dumps(self.template())
        return text[: self.rng.randrange(0, len(text))]

    def huge_numbers(self):
        number = self.rng.choice(HUGE_NUMBERS + BAD_NUMBERS).encode()
        if self.rng.random() < 0.3:
            return number
        return self.into_field(number)

    def long_strings(self):
        r = self.rng
        length = r.choice([255, 256, 1020, 1021, 4096, r.randrange(0, 70000)])
        piece = r.choice(["a", "é", "\u0301", "👨‍👩‍👧‍👦", "\\n", "\\\"", "\\u0301", "ǅ", "\U0010FFFF"])
        text = piece * max(1, length // max(1, len(piece.encode())))
        if r.random() < 0.3:
            text = "e" + text
        return self.into_field(json.dumps(text, ensure_ascii=False).encode() if "\\" not in piece else b'"' + text.encode() + b'"')

    def invalid_utf8(self):
        r = self.rng
        bad = b"".join(r.choice(INVALID_UTF8) for _ in range(r.randrange(1, 6)))
        if r.random() < 0.2:
            return bad + self.dumps(self.template())
        return self.into_field(b'"ok' + bad + b'end"')

    def nuls(self):
        r = self.rng
        choice = r.randrange(4)
        if choice == 0: return self.into_field(b'"before\x00after"')      # a raw NUL: invalid JSON
        if choice == 1: return self.into_field(b'"before\\u0000after"')   # an escaped one: valid JSON
        if choice == 2: return b"\x00" + self.dumps(self.template())
        text = bytearray(self.dumps(self.template()))
        text.insert(r.randrange(len(text) + 1), 0)
        return bytes(text)

    def surrogates(self):
        value = "".join(self.rng.choice(SURROGATES) for _ in range(self.rng.randrange(1, 4)))
        if self.rng.random() < 0.2:
            return ('{"%s": 1}' % value).encode()  # as a key
        return self.into_field(('"a%sb"' % value).encode())

    def duplicate_keys(self):
        r = self.rng
        field = r.choice(FIELDS)
        values = [json.dumps(self.random_value()) for _ in range(r.randrange(2, 5))]
        body = ",".join(f'"{field}":{v}' for v in values)
        template = self.dumps(self.template()).decode()
        if r.random() < 0.5 and template.startswith("{") and len(template) > 2:
            return ("{" + body + "," + template[1:]).encode()
        if r.random() < 0.3:  # many duplicates
            return ("{" + ",".join(f'"{field}":1' for _ in range(r.randrange(100, 5000))) + "}").encode()
        return ("{" + body + "}").encode()

    def wrong_types(self):
        r = self.rng
        body = self.template()
        path = r.choice(CREDENTIAL_PATHS + [[f] for f in FIELDS])
        node = body
        for part in path[:-1]:
            if not isinstance(node.get(part), dict):
                node[part] = {}
            node = node[part]
        replacement = r.choice([None, True, False, 0, -1, 1.5, 2**64, "", "!!!", "AAAA", [], [1, 2], {}, {"a": 1},
                                "=" * 10, "A" * r.randrange(1, 60000), self.random_value()])
        if r.random() < 0.2:
            node.pop(path[-1], None)  # missing instead
        else:
            node[path[-1]] = replacement
        return self.dumps(body)

    def mutated_credential(self):
        r = self.rng
        text = bytearray(self.dumps(self.templates[r.choice(["registration", "login"])]))
        for _ in range(r.randrange(1, 8)):
            op = r.randrange(5)
            at = r.randrange(len(text) + 1)
            if op == 0 and at < len(text): text[at] = r.randrange(256)
            elif op == 1 and at < len(text): text[at] ^= 1 << r.randrange(8)
            elif op == 2: text[at:at] = bytes(r.choice(b'{}[]",:0123456789eE+-.\\ntrufalsn\x00\xff') for _ in range(r.randrange(1, 4)))
            elif op == 3: del text[at: at + r.randrange(1, 16)]
            else:
                start = r.randrange(len(text) + 1)
                text[at:at] = text[start: start + r.randrange(1, 64)]
        return bytes(text)

    def mutated_inner(self):
        """A well-formed body whose base64url members carry mutated bytes: CBOR and clientDataJSON."""
        r = self.rng
        body = json.loads(json.dumps(self.templates[r.choice(["registration", "login"])]))
        response = body["credential"]["response"]
        name = r.choice(list(response))
        data = bytearray(unb64url(response[name]))
        choice = r.randrange(6)
        if choice == 0 and data:
            for _ in range(r.randrange(1, 6)):
                data[r.randrange(len(data))] = r.randrange(256)
        elif choice == 1:
            data = data[: r.randrange(len(data) + 1)]
        elif choice == 2:
            data += bytes(r.randrange(256) for _ in range(r.randrange(1, 200)))
        elif choice == 3:  # CBOR headers claiming huge containers and strings
            data = bytearray(r.choice([b"\xbf" * 100, b"\x9f" * 1000, b"\xbb" + b"\xff" * 8, b"\x5b" + b"\xff" * 8,
                                       b"\xa1\x63fmt" * 20, b"\xd9\xd9\xf7" * 200, b"\xfb\x7f\xf0\x00\x00\x00\x00\x00\x00",
                                       b"\xb9\x2a\xf8" + b"\x00\x00" * 11000]))
        elif choice == 4:  # clientDataJSON with hostile JSON
            data = bytearray(r.choice([b"[" * 513, b'{"type":"webauthn.create","challenge":1e999}', b'{"type":"\\ud800"}',
                                       b'{"type":"webauthn.get","type":"webauthn.create"}', b"\xff\xfe",
                                       b'{"origin":"' + b"a" * 40000 + b'"}']))
        else:
            data = bytearray(b"")
        response[name] = b64url(bytes(data)) if r.random() < 0.9 else urlsafe_b64encode(bytes(data)).decode()
        return self.dumps(body)

    def odd_json(self):
        return self.rng.choice([b"", b" ", b"null", b"true", b"0", b'""', b"[]", b"{}", b"\xef\xbb\xbf{}", b"{}{}", b"{} x",
                                b'{"credential":null}', b'{"displayName":null}', b"\t\n\r {}\n", b'{"":""}', b"/*x*/{}",
                                b"{'displayName':'x'}", b'{"displayName":"x",}', b"[1,]", b'{"a" 1}', b"\"\\x41\""])


# --- the run ------------------------------------------------------------------------------------------

class Connections:
    """A few keep-alive connections, reopened when the server closes one."""

    def __init__(self, port, count):
        self.port = port
        self.connections = [None] * count
        self.reopened = 0

    def send(self, index, method, path, body, headers):
        """The status, or None when the connection was closed without an answer."""
        for attempt in range(2):
            connection = self.connections[index]
            if connection is None:
                connection = self.connections[index] = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
            fresh = connection.sock is None
            try:
                try:
                    connection.request(method, path, body=body, headers=headers)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # answered (413) and closed before the whole body went out: read the answer
                response = connection.getresponse()
                response.read()
                if response.will_close:
                    self.close(index)
                return response.status
            except (http.client.HTTPException, OSError):
                self.close(index)
                if fresh:
                    return None  # a new connection closed without an answer
                # a kept-alive connection the server had closed in between: once more on a new one
        return None

    def close(self, index):
        if self.connections[index] is not None:
            self.connections[index].close()
            self.connections[index] = None
            self.reopened += 1


# --- hostile requests below the JSON: raw bytes on a fresh connection -----------------------------------

PAGE_ROUTES = [("GET", "/"), ("GET", "/app.js"), ("GET", "/style.css"), ("GET", "/ui.js"), ("GET", "/.well-known/webauthn"),
               ("GET", "/.well-known/apple-app-site-association"), ("GET", "/healthz"), ("GET", "/metrics"),
               ("HEAD", "/"), ("GET", "/api/account"), ("GET", "/api/account/passkeys"), ("DELETE", "/api/account"),
               ("POST", "/api/logout"), ("POST", "/api/logout/everywhere"), ("POST", "/api/login/options"),
               ("DELETE", "/api/account/passkeys/AAAA"), ("OPTIONS", "/api/account"), ("TRACE", "/"), ("GET", "/nothing/here")]
DESTRUCTIVE = {("DELETE", "/api/account"), ("POST", "/api/logout"), ("POST", "/api/logout/everywhere"),
               ("DELETE", "/api/account/passkeys/AAAA")}
ODD_PATHS = ["/" + "a" * 8000, "/%00", "/%ff%fe", "/../../etc/passwd", "/api/../api/account", "/api/account?x=" + "y" * 4000,
             "/.well-known/%2e%2e/webauthn", "/api/account/passkeys/" + "%41" * 3000, "//", "/\u202e", "/api/account#frag",
             "/api/account/passkeys/AAAA/more", "*", "/\x01"]


class RawAbuse:
    """Requests an HTTP client library would refuse to send. Each returns the bytes to write on a fresh
    connection; the server may answer (any status below 500) or close the connection."""

    def __init__(self, rng: random.Random, token: str):
        self.rng = rng
        self.token = token
        self.all = [self.oversized_header, self.many_headers, self.bad_header_bytes, self.garbage_request_line,
                    self.random_bytes, self.short_body, self.conflicting_lengths, self.bad_chunked, self.odd_path,
                    self.bad_version, self.pipelined]

    def request(self) -> (str, bytes):
        generator = self.rng.choice(self.all)
        return generator.__name__, generator()

    def head(self, method="GET", path="/api/account", extra=b""):
        # The account's token only on methods that cannot end the account or its session: an odd path
        # such as /api/../api/account or /api/account?x=… is the same route to the server.
        safe = method in ("GET", "HEAD", "PATCH", "OPTIONS", "TRACE")
        token = f"Authorization: Bearer {self.token}\r\n".encode() if safe and self.rng.random() < 0.5 else b""
        # Connection: close, so that the server ends the connection once it has answered.
        return f"{method} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n".encode() + token + extra

    def oversized_header(self):
        size = self.rng.choice([8 * 1024, 64 * 1024, 200 * 1024, 1024 * 1024])
        return self.head(extra=b"X-Big: " + b"a" * size + b"\r\n\r\n")

    def many_headers(self):
        count = self.rng.choice([100, 1000, 10000])
        return self.head(extra=b"".join(b"X-%d: v\r\n" % i for i in range(count)) + b"\r\n")

    def bad_header_bytes(self):
        value = self.rng.choice([b"\x00", b"\xff\xfe", b"a\rb", b"\x7f", b" leading", b"\tTab", b"\xc3\x28"])
        name = self.rng.choice([b"X-Bad", b"Bad Name", b"", b"\xff", b"Content-Type", b"Authorization", b"Cookie", b"Origin"])
        return self.head(method="PATCH", extra=name + b": " + value + b"\r\nContent-Length: 2\r\n\r\n{}")

    def garbage_request_line(self):
        return self.rng.choice([b"\r\n\r\n", b"GET\r\n\r\n", b"GET /\r\n\r\n", b"G\x00T / HTTP/1.1\r\n\r\n",
                                b"GET / HTTP/1.1 extra\r\nHost: x\r\n\r\n", b"POST /api/login/options HTTP/9.9\r\n\r\n",
                                b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03",  # a TLS ClientHello's start
                                b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", b"GET / HTTP/1.1\nHost: x\n\n",
                                b"BREW /coffee HTCPCP/1.0\r\n\r\n"])

    def random_bytes(self):
        return bytes(self.rng.randrange(256) for _ in range(self.rng.randrange(1, 3000)))

    def short_body(self):
        """Announces more body than it sends, then stops (the server waits at most the idle time-out)."""
        return self.head(method="PATCH", extra=b"Content-Type: application/json\r\nContent-Length: 5000\r\n\r\n{\"credo\":")

    def conflicting_lengths(self):
        return self.head(method="PATCH", extra=self.rng.choice([
            b"Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
            b"Content-Length: -1\r\n\r\n{}",
            b"Content-Length: 99999999999999999999999\r\n\r\n{}",
            b"Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
            b"Content-Length: 0x10\r\n\r\n{}",
        ]))

    def bad_chunked(self):
        return self.head(method="PATCH", extra=b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" + self.rng.choice([
            b"zz\r\n{}\r\n0\r\n\r\n", b"ffffffffffffffff\r\n{}", b"2\r\n{}\r\n", b"10000\r\n" + b"x" * 70000 + b"\r\n0\r\n\r\n",
            b"2;ext=" + b"e" * 5000 + b"\r\n{}\r\n0\r\n\r\n", b"-2\r\n{}\r\n0\r\n\r\n"]))

    def odd_path(self):
        method, _ = self.rng.choice(PAGE_ROUTES)
        return self.head(method=method, path=self.rng.choice(ODD_PATHS), extra=b"\r\n")

    def bad_version(self):
        return self.rng.choice([b"GET / HTTP/1.0\r\n\r\n", b"GET / HTTP/0.9\r\n\r\n", b"GET / HTTP/2\r\nHost: x\r\n\r\n",
                                b"GET / http/1.1\r\nHost: x\r\n\r\n"])

    def pipelined(self):
        return b"".join(self.head(method=m, path=p, extra=b"\r\n") for m, p in self.rng.sample(PAGE_ROUTES, 5))


def send_raw(port, data, timeout=10):
    """Writes `data` on a fresh connection and reads what comes back until the server closes or goes
    quiet. Returns the statuses of the answers (several when pipelined) and the bytes read."""
    received = b""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as connection:
        try:
            connection.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            pass
        # A request the server is still waiting to complete (a short body, a head without its blank
        # line) gets no answer before the idle time-out: give up on those quickly.
        connection.settimeout(1.0)
        while True:
            try:
                chunk = connection.recv(65536)
            except (ConnectionResetError, socket.timeout):
                break
            if not chunk:
                break
            received += chunk
    statuses = [int(line.split(b" ")[1]) for line in received.split(b"\r\n") if line.startswith(b"HTTP/1.") and len(line.split(b" ")) > 1
                and line.split(b" ")[1].isdigit()]
    return statuses, received


# --- the run ------------------------------------------------------------------------------------------

def rss_kib(pid):
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return -1


def hostile_tokens(rng: random.Random, real: str):
    """Tokens for `POST /api/introspect`: JWTs whose header, payload or signature is JSON nested around
    Foundation's limit (513 `[` crashed the server through JWTKit, review 3), random bytes in each segment,
    real segments recombined, and strings that are no JWT at all."""
    header, payload, signature = real.split(".")
    depth = rng.choice([64, 65, 512, 513, 514, 1000, 2500])
    deep = b64url(b"[" * depth)
    deep_object = b64url(b'{"a":' * depth + b"1" + b"}" * depth)
    noise = lambda: b64url(rng.randbytes(rng.randrange(0, 600)))  # noqa: E731
    return rng.choice([
        f"{deep}.e30.c2ln", f"{header}.{deep}.{signature}", f"{header}.{payload}.{deep}", f"{deep}.{deep}.{deep}",
        f"{deep_object}.{payload}.{signature}", f"{noise()}.{payload}.{signature}", f"{header}.{noise()}.{signature}",
        f"{header}.{payload}.{noise()}", f"{noise()}.{noise()}.{noise()}", f"{payload}.{header}.{signature}",
        b64url(b'{"alg":"none","kid":"' + b"\\" * 300 + b'"}') + f".{payload}.", "a.b.c", "..", ".", real[:-3],
        "".join(rng.choice("AB-_.=%+ ") for _ in range(rng.randrange(1, 200))),
    ])


def run(server, count, seed, connections=4, raw_share=0.02, keep=None, progress=None, introspection_secret=None, workers=1):
    """Sends `count` hostile requests to `server` (a latchkey_server.Server): JSON bodies on the routes
    that read one, plain requests on every other route, and a `raw_share` of raw-socket abuse; with
    `introspection_secret` (a server with --access-tokens and that secret) also hostile tokens to
    `POST /api/introspect`. Returns a summary: statuses, the requests that got a 5xx, whether the server
    is alive and still serves the account, and its RSS after the set-up and at the end.

    `workers` > 1 shares the requests among that many processes (request n goes to worker n % workers,
    each with its own generator seeded from `seed` and its number, and its own `connections`), so that
    the client's Python and the server work at the same time on a machine's cores: one process spends as
    long making a request as the debug server does answering it."""
    token, passkey_id, templates = set_up(server)
    real_token = None
    if introspection_secret:
        status, answer = server.call("POST", "/api/token", token=token)
        if status != 200:
            raise SystemExit(f"hostile traffic: POST /api/token failed: {status} {answer}")
        real_token = answer["access_token"]
    job = {"port": server.port, "pid": server.process.pid, "token": token, "passkey_id": passkey_id, "templates": templates,
           "real_token": real_token, "introspection_secret": introspection_secret, "count": count, "seed": seed,
           "connections": connections, "raw_share": raw_share, "keep": keep, "workers": workers}
    rss_start = rss_kib(server.process.pid)
    started = time.monotonic()
    if workers == 1:
        parts = [_send_share(job, 0, progress)]
    else:
        context = multiprocessing.get_context("fork")
        with context.Pool(workers) as pool:
            # A callable does not cross to another process: the workers print their progress themselves.
            waiting = [pool.apply_async(_send_share, (job, index, progress is not None)) for index in range(workers)]
            parts = [result.get() for result in waiting]
    statuses = collections.Counter()
    by_kind = collections.defaultdict(collections.Counter)
    failures = []
    for part in parts:
        statuses.update(part["statuses"])
        for kind, answers in part["by_kind"].items():
            by_kind[kind].update(answers)
        failures.extend(part["failures"])
    alive = server.process.poll() is None
    if not alive:
        failures.append(f"the server died (exit {server.process.returncode})")
    serving = False
    if alive:
        health, _ = server.call("GET", "/healthz")
        status, answer = server.call("GET", "/api/account", token=token)
        serving = health == 200 and status == 200
        if not serving:
            failures.append(f"at the end /healthz answered {health} and the account {status} {answer}")
    time.sleep(1)
    return {
        "sent": sum(statuses.values()), "statuses": dict(statuses), "by_kind": {k: dict(v) for k, v in by_kind.items()},
        "failures": failures, "alive": alive, "serving": serving, "seconds": time.monotonic() - started,
        "rss_start_kib": rss_start, "rss_end_kib": rss_kib(server.process.pid) if alive else -1,
    }


def _send_share(job, index, progress):
    """Worker `index`'s share of `run`'s requests (every n with n % workers == index); its statuses, kinds and
    failures. Runs in the calling process when there is one worker, else in a forked one. `progress`: a
    function of a line, True to print the lines, or None/False."""
    if progress is True:
        progress = lambda line: print(line, flush=True)  # noqa: E731
    workers, count, connections, raw_share, keep = job["workers"], job["count"], job["connections"], job["raw_share"], job["keep"]
    token, passkey_id, real_token, introspection_secret = job["token"], job["passkey_id"], job["real_token"], job["introspection_secret"]
    rng = random.Random(job["seed"] if workers == 1 else f"{job['seed']}-{index}")
    generators = Generators(rng, job["templates"])
    abuse = RawAbuse(rng, token)
    body_routes = [("POST", "/api/registration/options"), ("POST", "/api/registration/verify"), ("POST", "/api/login/verify"),
                   ("PATCH", "/api/account"), ("PATCH", f"/api/account/passkeys/{passkey_id}")]
    odd_routes = [("PUT", "/api/account"), ("POST", "/api/account"), ("PATCH", "/api/account/passkeys/AAAA"),
                  ("PATCH", "/api/account/passkeys/" + "A" * 2000), ("POST", "//api/login/verify"), ("POST", "/api/registration/verify/")]
    port, pid = job["port"], job["pid"]
    pool = Connections(port, connections)
    statuses = collections.Counter()
    by_kind = collections.defaultdict(collections.Counter)
    failures = []
    started = time.monotonic()
    for n in range(index + 1, count + 1, workers):
        roll = rng.random()
        if roll < raw_share:
            kind, data = abuse.request()
            try:
                answers, _ = send_raw(port, data)
            except OSError:
                answers = []
            key = ",".join(str(a) for a in answers) or "closed"
            if any(a >= 500 for a in answers):
                failures.append(f"#{n} raw {kind} ({len(data)} bytes) -> {answers}; first bytes {data[:120]!r}")
            statuses["raw " + ("5xx" if any(a >= 500 for a in answers) else "ok")] += 1
            by_kind["raw " + kind][key if len(key) < 12 else "several"] += 1
            continue
        headers = {}
        if real_token and roll < raw_share + 0.03:
            hostile = hostile_tokens(rng, real_token)
            body = ("token=" + urllib.parse.quote(hostile, safe="")).encode()
            headers = {"Content-Type": "application/x-www-form-urlencoded", "Authorization": f"Bearer {introspection_secret}"}
            status = pool.send(n % connections, "POST", "/api/introspect", body, headers)
            key = str(status) if status is not None else "dropped"
            statuses[key] += 1
            by_kind["introspect hostile token"][key] += 1
            if status != 200:
                failures.append(f"#{n} POST /api/introspect (hostile token {hostile[:60]!r}) -> {status}")
            continue
        if roll < 0.15:
            method, path = rng.choice(PAGE_ROUTES)
            body, kind = None, "plain " + path.split("/")[-1][:20]
            if rng.random() < 0.3:
                headers["If-None-Match"] = rng.choice(['"x"', "*", "W/\"" + "a" * 200 + "\""])
        else:
            kind, body = generators.body()
            method, path = rng.choice(body_routes) if rng.random() < 0.95 else rng.choice(odd_routes)
            headers["Content-Type"] = rng.choice(["application/json"] * 18 + ["text/plain", "application/json; charset=utf-8"])
        if (method, path) in DESTRUCTIVE:
            # Never with the account's own token: the run needs the account to the end.
            headers["Authorization"] = "Bearer " + "".join(rng.choice("AB-_") for _ in range(43))
        elif n % 2 == 0:
            headers["Authorization"] = f"Bearer {token}"
        elif rng.random() < 0.1:
            headers["Authorization"] = rng.choice(["Bearer", "Bearer " + "A" * 5000, "Basic eA==", "Bearer \u00e9", "bearer x y"])
        status = pool.send(n % connections, method, path, body, headers)
        key = str(status) if status is not None else "dropped"
        statuses[key] += 1
        by_kind[kind][key] += 1
        if status is not None and status >= 500:
            failures.append(f"#{n} {method} {path} ({kind}, {len(body or b'')} bytes) -> {status}")
            if keep:
                (pathlib.Path(keep) / f"{n:06d}-{status}-{kind}.body").write_bytes(body or b"")
        if (n - index - 1) // workers % 10000 == 9999:
            if not pathlib.Path(f"/proc/{pid}").exists():
                failures.append(f"the server died before request #{n}")
                break
            if progress:
                progress(f"  worker {index}: {(n - index - 1) // workers + 1} sent, {len(failures)} failures, "
                         f"{time.monotonic() - started:.0f} s, RSS {rss_kib(pid) // 1024} MiB")
    for number in range(connections):
        pool.close(number)
    return {"statuses": dict(statuses), "by_kind": {k: dict(v) for k, v in by_kind.items()}, "failures": failures}
