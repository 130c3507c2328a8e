"""deploy/systemd's units (issue 33): `systemd-analyze verify` finds nothing in them, both services carry the
same hardening, and `latchkey serve` and `latchkey backup` do their work under what that hardening does to
the process (sandbox.py: NoNewPrivileges, MemoryDenyWriteExecute, RestrictAddressFamilies, the system-call
filter) — a call the filter forbids would kill them with SIGSYS, as systemd would.

`systemd-analyze verify` refuses a unit whose ExecStart binary does not exist, and /usr/local/bin/latchkey is
not installed here: it checks copies in a temporary directory whose one change is that path, rewritten to
the built binary (the test asserts that nothing else differs). scripts/test skips this suite, saying so,
where systemd-analyze is absent."""
import os
import pathlib
import re
import shutil
import signal
import subprocess
import tempfile
import time

import pytest

from soft_webauthn import SoftWebauthnDevice

HERE = pathlib.Path(__file__).resolve().parent
from latchkey_server import Server
from processes import ROOT, latchkey_binary
from soft_webauthn_client import login, register

UNITS = ROOT / "deploy" / "systemd"
INSTALLED = "/usr/local/bin/latchkey"
SERVICES = ["latchkey.service", "latchkey-backup.service"]
DYNAMIC_UID = 61184  # the uid sandbox.py runs the service as when we are root
# The hardening both services carry (docs/operating.md says what each buys).
HARDENING = {
    "DynamicUser": "yes", "User": "latchkey", "StateDirectory": "latchkey", "UMask": "0077",
    "ProtectSystem": "strict", "ProtectHome": "yes", "PrivateTmp": "yes", "PrivateDevices": "yes", "ProtectKernelTunables": "yes",
    "ProtectKernelModules": "yes", "ProtectControlGroups": "yes", "ProtectKernelLogs": "yes", "ProtectClock": "yes",
    "ProtectHostname": "yes", "RestrictNamespaces": "yes", "RestrictRealtime": "yes",
    "NoNewPrivileges": "yes", "CapabilityBoundingSet": "", "LockPersonality": "yes", "MemoryDenyWriteExecute": "yes",
    "SystemCallArchitectures": "native",
}


def settings(name):
    """The unit's `Key=value` lines as {key: [values]} (comments and sections left out)."""
    found = {}
    for line in (UNITS / name).read_text().splitlines():
        if "=" in line and not line.startswith(("#", ";", "[")):
            key, value = line.split("=", 1)
            found.setdefault(key.strip(), []).append(value.strip())
    return found


def verify(directory, *names):
    result = subprocess.run(["systemd-analyze", "verify", *names], cwd=directory, capture_output=True, text=True, timeout=120)
    return result.returncode, (result.stdout + result.stderr).strip()


def test_the_units_pass_systemd_analyze_verify_with_the_binary_path_pointed_at_the_build(tmp_path):
    binary = str(pathlib.Path(latchkey_binary()).resolve())
    names = sorted(path.name for path in UNITS.iterdir())
    assert names == ["latchkey-backup.service", "latchkey-backup.timer", "latchkey.service"]
    for name in names:
        original = (UNITS / name).read_text()
        copy = original.replace(INSTALLED, binary)
        assert copy.replace(binary, INSTALLED) == original  # the path is the one change
        (tmp_path / name).write_text(copy)
    status, output = verify(tmp_path, *names)
    assert (status, output) == (0, ""), output

    # systemd's own score of the hardening (0 best, 10 worst; 1.7 and 1.4 when this was written): no line may
    # quietly go. `--offline` reads the unit files without a running systemd (systemd 250 and later).
    for service in SERVICES:
        result = subprocess.run(["systemd-analyze", "security", "--offline=true", "--no-pager", service], cwd=tmp_path,
                                capture_output=True, text=True, timeout=120)
        exposure = re.search(r"Overall exposure level for \S+: ([0-9.]+)", result.stdout)
        assert exposure, result.stdout + result.stderr
        assert float(exposure.group(1)) <= 2.0, result.stdout

    # Its warnings do not change its exit status, so the empty output is the check; a misspelt key shows.
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "latchkey.service").write_text((tmp_path / "latchkey.service").read_text().replace("ProtectSystem=", "ProtectSytem="))
    status, output = verify(broken, "latchkey.service")
    assert "Unknown key" in output and "ProtectSytem" in output, output


def test_both_services_carry_the_same_hardening():
    for name in SERVICES:
        found = settings(name)
        for key, value in HARDENING.items():
            assert value in found.get(key, []), f"{name}: {key}={value} missing"
        assert found["SystemCallFilter"] == ["@system-service", "~@privileged @resources", "setpriority"], name
        assert found["ExecStart"][0].startswith(INSTALLED + " "), name
    assert settings("latchkey.service")["RestrictAddressFamilies"] == ["AF_INET AF_INET6 AF_UNIX"]
    assert settings("latchkey.service")["ExecStart"] == [f"{INSTALLED} serve --config /etc/latchkey/latchkey.toml"]
    assert settings("latchkey.service")["Restart"] == ["on-failure"]
    assert settings("latchkey-backup.timer")["OnCalendar"] == ["daily"]
    backup = settings("latchkey-backup.service")["ExecStart"][0]
    assert f"{INSTALLED} backup /var/lib/latchkey/backups --keep 7 " in backup


def sandboxed(tmp_path, unit):
    """An executable that runs the built latchkey under `unit`'s process hardening (sandbox.py)."""
    check = subprocess.run(["/usr/bin/python3", "-c", "import seccomp"], capture_output=True, text=True)
    assert check.returncode == 0, "python3-seccomp is missing (scripts/provision installs it): " + check.stderr
    wrapper = tmp_path / f"latchkey-in-{unit}"
    wrapper.write_text(f'#!/bin/sh\nLATCHKEY_SANDBOX_UID={DYNAMIC_UID} exec /usr/bin/python3 {HERE / "sandbox.py"} {UNITS / unit} '
                       f'{latchkey_binary()} "$@"\n')
    wrapper.chmod(0o755)
    return str(wrapper)


@pytest.fixture
def state_directory():
    """What StateDirectory= gives the service: a directory of its own user's only (sandbox.py's dynamic uid
    when we are root), outside pytest's root-only tmp_path so that user can reach it."""
    directory = pathlib.Path(tempfile.mkdtemp(prefix="latchkey-state."))
    if os.geteuid() == 0:
        os.chown(directory, DYNAMIC_UID, DYNAMIC_UID)
    try:
        yield directory
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def test_serve_and_backup_run_under_the_units_seccomp_filter_and_memory_deny_write_execute(tmp_path, state_directory):
    database = state_directory / "latchkey.sqlite"
    with Server("--user-verification", "preferred", database=f"sqlite:{database}", binary=sandboxed(tmp_path, "latchkey.service"),
                env={"LATCHKEY_KEY_FILE": str(state_directory / "latchkey.key")}) as server:
        device = SoftWebauthnDevice()
        status, body = register(server, device, "Ada")
        assert status == 201, body
        status, body = login(server, device)
        assert status == 200, body
        status, ready = server.call("GET", "/readyz")
        assert status == 200 and ready["status"] == "ready", ready
        time.sleep(1)  # a second of the housekeeping's and event loops' own calls
        assert server.alive(), "latchkey serve died under the filter (SIGSYS?): " + pathlib.Path(server.directory.name, "server.log").read_text()

        # As latchkey-backup.service runs it (its ExecStartPre made the directory).
        backups = state_directory / "backups"
        backups.mkdir()
        if os.geteuid() == 0:
            os.chown(backups, DYNAMIC_UID, DYNAMIC_UID)
        backup = subprocess.run([sandboxed(tmp_path, "latchkey-backup.service"), "backup", str(backups), "--keep", "7",
                                 "--database", f"sqlite:{database}"], capture_output=True, text=True, timeout=120)
        assert backup.returncode == 0, (backup.returncode, backup.stderr)
        assert "integrity_check ok" in backup.stdout, backup.stdout
        assert len(os.listdir(backups)) == 1
        assert server.alive()
    # The files they made (database, key file, the backup) are their user's only (UMask=0077).
    made = [path for path in state_directory.rglob("*") if path.is_file()]
    assert len(made) >= 3, made
    for path in made:
        assert path.stat().st_mode & 0o077 == 0, (path, oct(path.stat().st_mode))


def test_the_sandbox_is_on_a_forbidden_call_kills_and_write_execute_memory_is_refused():
    """So that the test above means something: under latchkey.service's hardening, setuid (in @privileged) kills
    the process with SIGSYS, memory both writable and executable is refused, and a netlink socket too."""
    script = ("import mmap, os, socket\n"
              "try:\n    mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)\nexcept PermissionError:\n    print('no wx')\n"
              "try:\n    socket.socket(socket.AF_NETLINK, socket.SOCK_RAW)\nexcept OSError:\n    print('no netlink')\n"
              "print('setuid', flush=True)\nos.setuid(os.getuid())\nprint('still alive')\n")
    probe = subprocess.run(["/usr/bin/python3", str(HERE / "sandbox.py"), str(UNITS / "latchkey.service"), "/usr/bin/python3", "-c", script],
                           capture_output=True, text=True, timeout=60)
    assert probe.stdout.split() == ["no", "wx", "no", "netlink", "setuid"], (probe.stdout, probe.stderr)
    assert probe.returncode == -signal.SIGSYS, probe
