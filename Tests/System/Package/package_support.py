"""What Tests/System/Package's suites share: the artifacts scripts/package left in dist/, a process started and stopped
with its log, and a passkey registered and signed in over HTTP with soft-webauthn (PyPI). Every server listens
on 127.0.0.1 and is stopped by the test that started it."""
import os
import pathlib
import signal
import subprocess
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
from latchkey_server import Endpoint
from processes import ROOT, free_port  # noqa: F401
from soft_webauthn_client import login, register

DIST = ROOT / "dist"
VERSION = (ROOT / "VERSION").read_text().strip()
# The glibc files and the two libraries of Debian's the binary may link (scripts/package's header says why).
ALLOWED_LIBRARIES = {"linux-vdso.so.1", "libc.so.6", "libm.so.6", "libsqlite3.so.0", "libcrypto.so.3"}
# What glibc itself loads at run time, which ldd cannot list: pthread_exit and pthread_cancel dlopen GCC's
# unwinder (a thread's end unwinds its stack), and Latchkey's threads end so. Every glibc system has it
# (Debian: libgcc-s1, priority required); a root file system of only what ldd lists does not, so the chroot and
# the image add it, and the binary fails at start without it ("libgcc_s.so.1 must be installed for pthread_exit").
LOADED_BY_GLIBC = {"libgcc_s.so.1"}


def loaded_by_glibc():
    """{name: path} of LOADED_BY_GLIBC on this machine (ldconfig's cache)."""
    found = {}
    for line in subprocess.run(["/sbin/ldconfig", "-p"], capture_output=True, text=True, check=True).stdout.splitlines():
        parts = line.split()
        if parts and parts[0] in LOADED_BY_GLIBC and "=>" in parts:
            found.setdefault(parts[0], parts[-1])  # the machine's own architecture comes first
    return found


def commit():
    """The commit scripts/package baked in: git's, "+modified" when tracked files differ from it."""
    head = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    return head + ("+modified" if dirty else "")


def artifact(pattern):
    """The one file of dist/ that matches `pattern` (scripts/package made it before the tests ran)."""
    found = sorted(DIST.glob(pattern))
    assert len(found) == 1, f"dist/{pattern}: {found} (run scripts/package first; scripts/test package does)"
    return found[0]


def ldd(binary):
    """{library: path or None} of `ldd binary`; the loader's name is its path."""
    output = subprocess.run(["ldd", str(binary)], capture_output=True, text=True, check=True).stdout
    found = {}
    for line in output.splitlines():
        parts = line.split()
        if "=>" in parts:
            found[parts[0]] = parts[2] if parts[2].startswith("/") else None
        elif parts and parts[0].startswith("/"):
            found[parts[0]] = parts[0]
        elif parts:
            found[parts[0]] = None
    return found


def unexpected_libraries(binary):
    return sorted(name for name in ldd(binary) if name not in ALLOWED_LIBRARIES and "ld-linux" not in name)


class Process:
    """A command started with its output in a log file; `wait_healthy` polls http://127.0.0.1:PORT/healthz;
    `stop` sends SIGTERM (SIGKILL after 30 s) and is safe to call twice."""

    def __init__(self, command, port, env=None, cwd=None, user=None, group=None):
        self.port = port
        self.log = tempfile.NamedTemporaryFile(prefix="latchkey-package-", suffix=".log", delete=False)
        self.started = time.monotonic()
        self.process = subprocess.Popen(command, env=env, cwd=cwd, user=user, group=group, extra_groups=[] if user else None,
                                        stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        self.endpoint = Endpoint(port, f"http://localhost:{port}")

    def wait_healthy(self, seconds=60):
        """Seconds from the start to the first answered request."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                status, _ = self.endpoint.call("GET", "/healthz")
                if status == 200:
                    return time.monotonic() - self.started
            except OSError:
                pass
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        self.stop()
        raise AssertionError(f"{self.process.args} did not answer /healthz: {self.text()}")

    def text(self):
        self.log.flush()
        return pathlib.Path(self.log.name).read_text(errors="replace")

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=30)
        return self.process.returncode

    def close(self):
        self.stop()
        self.log.close()
        os.unlink(self.log.name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def register_and_sign_in(endpoint, device, name="Ada"):
    status, body = register(endpoint, device, name)
    assert status == 201, (status, body)
    account = body
    sign_in(endpoint, device)
    return account


def sign_in(endpoint, device):
    status, body = login(endpoint, device)
    assert status == 200, (status, body)
    return body
