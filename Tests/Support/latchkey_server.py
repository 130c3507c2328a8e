"""A real `latchkey serve` on a free port with a temporary SQLite database, for the Python test peers.
Standard library only, so every test venv can import it."""
import json
import os
import pathlib
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, *flags):
        self.port = free_port()
        self.url = f"http://localhost:{self.port}"
        self.origin = self.url
        self.directory = tempfile.TemporaryDirectory()
        binary = os.environ.get("LATCHKEY_BIN", str(ROOT / ".build" / "debug" / "latchkey"))
        self.log = open(os.path.join(self.directory.name, "server.log"), "w")
        self.process = subprocess.Popen(
            [binary, "serve", "--port", str(self.port), "--database", f"sqlite:{self.directory.name}/db.sqlite", *flags],
            stdout=self.log, stderr=self.log,
        )
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                self.call("GET", "/healthz")
                return
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError("latchkey serve did not start")

    def call(self, method, path, body=None, token=None):
        """One API call; returns (status, decoded JSON body or None)."""
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=data, method=method)
        if data is not None:
            request.add_header("Content-Type", "application/json")
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                text = response.read()
                return response.status, json.loads(text) if text else None
        except urllib.error.HTTPError as error:
            text = error.read()
            return error.code, json.loads(text) if text else None

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=30)
        self.log.close()
        self.directory.cleanup()
