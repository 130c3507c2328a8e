"""Start-up time and memory of latchkey binaries, side by side (issue 46's note; run by hand, not by scripts/test):
for each binary, `latchkey serve` on a new SQLite database in a temporary directory (127.0.0.1, a free port,
--rate-limit 0), the seconds from the process's start to its first answered GET /healthz, its RSS then, and its RSS
after one passkey registered and 1 000 sign-ins (soft-webauthn over HTTP, one after another), with their rate.

Usage: .venv/soft_webauthn/bin/python Tests/System/Package/figures.py [--sign-ins 1000] [--runs 3] NAME=BINARY...
e.g. packaged=.build/package/stage/latchkey debug=.build/debug/latchkey release=.build/release/latchkey
(the packaged binary finds its resources beside it only in the tarball or the .deb: run it from an unpacked tarball)"""
import argparse
import pathlib
import statistics
import sys
import tempfile
import time

from soft_webauthn import SoftWebauthnDevice

# Run as a script, outside pytest and Tests/System/pytest.ini's path setting.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "Support"))
from package_support import Process, free_port, register_and_sign_in, sign_in


def rss_kib(pid):
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def measure(binary, sign_ins):
    with tempfile.TemporaryDirectory() as directory:
        port = free_port()
        command = [binary, "serve", "--host", "127.0.0.1", "--port", str(port), "--rate-limit", "0", "--user-verification", "preferred",
                   "--database", f"sqlite:{directory}/latchkey.sqlite", "--key-file", f"{directory}/latchkey.key"]
        with Process(command, port, env={"PATH": "/usr/bin:/bin", "LOG_LEVEL": "warning"}) as server:
            start = server.wait_healthy()
            rss_start = rss_kib(server.process.pid)
            device = SoftWebauthnDevice()
            register_and_sign_in(server.endpoint, device)
            began = time.monotonic()
            for _ in range(sign_ins):
                sign_in(server.endpoint, device)
            seconds = time.monotonic() - began
            rss_end = rss_kib(server.process.pid)
            server.stop()
    return start, rss_start, rss_end, sign_ins / seconds


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sign-ins", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("binaries", nargs="+")
    arguments = parser.parse_args()
    named = [item.split("=", 1) for item in arguments.binaries]
    results = {name: [] for name, _ in named}
    for _ in range(arguments.runs):  # interleaved, so that a busy moment of the machine falls on each alike
        for name, binary in named:
            results[name].append(measure(binary, arguments.sign_ins))
    print(f"{'binary':<10} {'size MB':>8} {'first answer s':>15} {'RSS at start MiB':>17} "
          f"{'RSS after ' + str(arguments.sign_ins) + ' MiB':>17} {'sign-ins/s':>11}   (median of {arguments.runs}; min-max)")
    for name, binary in named:
        runs = results[name]
        size = pathlib.Path(binary).stat().st_size / 1e6

        def cell(index, scale=1.0, digits=2):
            values = [run[index] * scale for run in runs]
            return f"{statistics.median(values):.{digits}f} ({min(values):.{digits}f}-{max(values):.{digits}f})"
        print(f"{name:<10} {size:>8.1f} {cell(0):>15} {cell(1, 1 / 1024, 1):>17} {cell(2, 1 / 1024, 1):>17} {cell(3, 1, 0):>11}")


if __name__ == "__main__":
    main()
