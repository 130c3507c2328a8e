"""A real `latchkey serve` on a free port with a temporary SQLite database (or a given one), for the Python
test peers. Standard library only, so every test venv can import it; the processes themselves (the free
port, the start) come from processes.py."""
import http.client
import json
import os
import socket
import ssl
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

from processes import ROOT, free_port, latchkey_binary, start_latchkey  # noqa: F401 (ROOT: for Tests/System/Browser)


def _json(text):
    """A body decoded as JSON; None when it is empty or not JSON (a proxy's own error page)."""
    try:
        return json.loads(text) if text else None
    except ValueError:
        return None


class Endpoint:
    """Somewhere `latchkey serve` answers: a port on 127.0.0.1, and the origin its passkeys belong to
    (the server's own address, or — behind a proxy — the proxy's). With `ca` (the path of a test CA's
    certificate, Tests/System/Support/certificates.py) it speaks HTTPS to https://localhost:PORT, trusting that CA
    only, and checks the certificate's name as a browser would."""

    def __init__(self, port, origin, ca=None):
        self.port = port
        self.origin = origin
        self.ca = ca

    @property
    def base(self):
        """Where requests go: http://127.0.0.1:PORT, or https://localhost:PORT with a CA."""
        return f"https://localhost:{self.port}" if self.ca else f"http://127.0.0.1:{self.port}"

    def tls_context(self):
        """An SSL context that trusts the test CA alone (None without one)."""
        return ssl.create_default_context(cafile=str(self.ca)) if self.ca else None

    def call(self, method, path, body=None, token=None):
        """One API call; returns (status, decoded JSON body or None)."""
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(f"{self.base}{path}", data=data, method=method)
        if data is not None:
            request.add_header("Content-Type", "application/json")
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(request, timeout=30, context=self.tls_context()) as response:
                return response.status, _json(response.read())
        except urllib.error.HTTPError as error:
            return error.code, _json(error.read())

    def raw(self, method, path, body=b"", token=None, content_type="application/json", headers=None, timeout=30):
        """One request with the bytes and the path exactly as given (no JSON encoding, no URL
        normalisation: `//api/x` goes out as is), on its own connection. Returns (status, decoded JSON
        body or None, response headers). A server that answers before the whole body is sent (413) and
        closes may break the upload; the answer is still read when it arrived."""
        if self.ca:
            connection = http.client.HTTPSConnection("localhost", self.port, timeout=timeout, context=self.tls_context())
        else:
            connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            connection.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
            connection.putheader("Host", f"localhost:{self.port}")
            if body is not None and (body or method not in ("GET", "HEAD")):
                connection.putheader("Content-Length", str(len(body)))
                if content_type:
                    connection.putheader("Content-Type", content_type)
            if token:
                connection.putheader("Authorization", f"Bearer {token}")
            for name, value in (headers or {}).items():
                connection.putheader(name, value)
            try:
                connection.endheaders(body if body else None)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the answer may already be on its way; read it below
            response = connection.getresponse()
            return response.status, _json(response.read()), dict(response.getheaders())
        finally:
            connection.close()


class Server(Endpoint):
    def __init__(self, *flags, database=None, env=None, binary=None, tls=None):
        """`latchkey serve` with `flags`, on a temporary SQLite database unless `database` (a URL or
        `sqlite:PATH`) names one; `env` adds environment variables. A URL with a password (a
        processes.PrivatePostgres's `url`) goes in LATCHKEY_DATABASE, not on the command line. `binary`:
        another latchkey than $LATCHKEY_BIN (an older release, for Tests/System/Upgrade). `tls`: (certificate
        chain, key, CA certificate) paths: it serves HTTPS itself (--tls-cert, --tls-key), its origin is
        https://localhost:PORT, and every call trusts that CA."""
        self.binary = binary or latchkey_binary()
        port = free_port()
        if tls:
            certificate, key, ca = tls
            super().__init__(port, f"https://localhost:{port}", ca=ca)
            flags = ("--tls-cert", str(certificate), "--tls-key", str(key), "--origin", self.origin, *flags)
        else:
            super().__init__(port, f"http://localhost:{port}")
        self.url = self.origin
        self.directory = tempfile.TemporaryDirectory()
        self.database = database or f"sqlite:{self.directory.name}/db.sqlite"
        self.flags = flags
        self.env = env
        self.log = open(os.path.join(self.directory.name, "server.log"), "a")
        self.start()

    def start(self):
        """Starts the process (again, after `kill`) on the same port and database, and waits until it
        answers."""
        # The key file that wraps the database's keys, kept with this server's own files (the default for a
        # PostgreSQL database would be ./latchkey.key in the working directory).
        self.process = start_latchkey(self.port, self.flags, binary=self.binary, database=self.database,
                                      key_file=os.path.join(self.directory.name, "latchkey.key"), env=self.env,
                                      stdout=self.log, stderr=self.log)
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                self.call("GET", "/healthz")
                return
            except OSError:
                if self.process.poll() is not None:
                    break
                time.sleep(0.1)
        self.stop()
        raise RuntimeError("latchkey serve did not start")

    def kill(self):
        """SIGKILL: no shutdown, no flush, as a crash or an out-of-memory kill would end it."""
        self.process.kill()
        self.process.wait(timeout=30)

    def connect(self, timeout=10):
        """A raw TCP connection to the server (the caller closes it)."""
        return socket.create_connection(("127.0.0.1", self.port), timeout=timeout)

    def alive(self):
        """The process is still running."""
        return self.process.poll() is None

    def log_text(self):
        """What the server has written so far (standard output and error, one file)."""
        self.log.flush()
        with open(self.log.name) as log:
            return log.read()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        """`with Server(...) as server:` stops it however the block ends."""
        self.stop()

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=30)
        self.log.close()
        self.directory.cleanup()


def admin(database, *arguments, expect=0, env=None):
    """`latchkey admin ARGUMENTS` as the operator runs it, on `database` (a Server, whose database it takes, or a
    database URL), given as LATCHKEY_DATABASE: a PostgreSQL URL holds a password, which a command line would show
    to every user of the machine. The finished process (its `stdout` the answer); its exit status must be
    `expect` (None: any, for a test of the refusal itself). `env` adds variables."""
    database = getattr(database, "database", database)
    result = subprocess.run([latchkey_binary(), "admin", *arguments], capture_output=True, text=True, timeout=60,
                            env={**os.environ, "LATCHKEY_DATABASE": database, **(env or {})})
    if expect is not None:
        assert result.returncode == expect, (arguments, result.returncode, result.stdout, result.stderr)
    return result
