#!/usr/bin/python3
"""Runs a command under what a unit's hardening does to the process itself, as far as that can be done
without systemd as PID 1 (this machine, a container, has none), then execs it:

- DynamicUser=yes (run as root): the process runs as a uid of systemd's dynamic range, with no groups, and
  UMask= is set;
- NoNewPrivileges=yes: prctl(PR_SET_NO_NEW_PRIVS);
- MemoryDenyWriteExecute=yes: both ways systemd does it — the kernel's prctl(PR_SET_MDWE) (systemd 254 and
  later, where the kernel has it) and the seccomp rules of older systemd (Debian 12 has 252): mmap() asking for
  write and execute at once, mprotect()/pkey_mprotect() asking for execute, shmat() with SHM_EXEC fail (EPERM);
- RestrictAddressFamilies=: socket() of any other family fails with EAFNOSUPPORT;
- SystemCallFilter=: the unit's own lines, each group expanded by `systemd-analyze syscall-filter`, as a
  seccomp allow-list (with @default, which systemd always adds to an allow-list); any other call kills the
  process (SIGSYS), systemd's default action. SystemCallArchitectures=native: the filter knows only this
  architecture, so a call through another ABI is killed too.

The file system and namespace settings (ProtectSystem=, StateDirectory=, PrivateTmp=, …) need systemd and
are left to `systemd-analyze verify`. System python3 only (python3-seccomp, installed by scripts/provision).

Usage: sandbox.py UNIT_FILE COMMAND [ARGUMENT...]
"""
import ctypes
import errno
import os
import re
import socket
import subprocess
import sys

import seccomp

PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN = 65, 1
DYNAMIC_UID = 61184  # the first of systemd's dynamic users (61184-65519)
PROT_WRITE, PROT_EXEC, SHM_EXEC = 0x2, 0x4, 0o100000


def directives(unit_text, name):
    """The values of every `name=` line of the unit, in order."""
    return [line.split("=", 1)[1].strip() for line in unit_text.splitlines() if line.startswith(name + "=")]


def expand(group, seen=None):
    """The system calls of a `@group`, nested groups included, as `systemd-analyze syscall-filter` lists them."""
    seen = seen if seen is not None else set()
    if group in seen:
        return set()
    seen.add(group)
    listing = subprocess.run(["systemd-analyze", "syscall-filter", group], check=True, capture_output=True, text=True).stdout
    calls = set()
    for line in listing.splitlines()[1:]:
        item = line.strip()
        if not item or item.startswith("#"):
            continue
        calls |= expand(item, seen) if item.startswith("@") else {item}
    return calls


def names(items):
    calls = set()
    for item in items:
        calls |= expand(item) if item.startswith("@") else {item}
    return calls


def allowed_calls(unit_text):
    """What the unit's SystemCallFilter= lines allow: the first line without `~` starts an allow-list (with
    @default); a `~` line takes its calls out of it. None when the unit has no allow-list."""
    allowed = None
    for value in directives(unit_text, "SystemCallFilter"):
        deny = value.startswith("~")
        items = value.lstrip("~").split()
        if deny:
            if allowed is not None:
                allowed -= names(items)
        else:
            allowed = (allowed or names(["@default"])) | names(items)
    return allowed


def resolvable(call):
    """libseccomp knows the call (one newer than it, or another architecture's only, it cannot filter)."""
    try:
        return seccomp.resolve_syscall(seccomp.Arch.NATIVE, call) != -1
    except (ValueError, RuntimeError):
        return False


def apply(unit_text):
    if "DynamicUser=yes" in unit_text and os.geteuid() == 0:
        # Not root, as under systemd (SQLite, for one, calls fchown only as root): a uid of systemd's dynamic
        # range with no groups. The caller makes the state directory that uid's.
        uid = int(os.environ.get("LATCHKEY_SANDBOX_UID", DYNAMIC_UID))
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)
    for umask in directives(unit_text, "UMask"):
        os.umask(int(umask, 8))
    if "NoNewPrivileges=yes" in unit_text:
        ctypes.CDLL(None, use_errno=True).prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS
    if "MemoryDenyWriteExecute=yes" in unit_text:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN, 0, 0, 0) != 0:
            print(f"sandbox.py: PR_SET_MDWE not available (errno {ctypes.get_errno()}); the seccomp rules stand alone",
                  file=sys.stderr)
        rules = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
        refuse = seccomp.ERRNO(errno.EPERM)
        rules.add_rule(refuse, "mmap", seccomp.Arg(2, seccomp.MASKED_EQ, PROT_WRITE | PROT_EXEC, PROT_WRITE | PROT_EXEC))
        rules.add_rule(refuse, "mprotect", seccomp.Arg(2, seccomp.MASKED_EQ, PROT_EXEC, PROT_EXEC))
        rules.add_rule(refuse, "pkey_mprotect", seccomp.Arg(2, seccomp.MASKED_EQ, PROT_EXEC, PROT_EXEC))
        rules.add_rule(refuse, "shmat", seccomp.Arg(2, seccomp.MASKED_EQ, SHM_EXEC, SHM_EXEC))
        rules.load()
    families = directives(unit_text, "RestrictAddressFamilies")
    if families:
        allowed = {getattr(socket, name) for value in families for name in value.split()}
        rules = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
        for family in range(0, 64):
            if family not in allowed:
                rules.add_rule(seccomp.ERRNO(errno.EAFNOSUPPORT), "socket", seccomp.Arg(0, seccomp.EQ, family))
        rules.add_rule(seccomp.ERRNO(errno.EAFNOSUPPORT), "socket", seccomp.Arg(0, seccomp.GE, 64))
        rules.load()
    calls = allowed_calls(unit_text)
    if calls is not None:  # last: it must still allow loading the filters above
        rules = seccomp.SyscallFilter(defaction=seccomp.KILL_PROCESS)
        for call in sorted(filter(resolvable, calls)):
            rules.add_rule(seccomp.ALLOW, call)
        rules.load()


def main(arguments):
    if len(arguments) < 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    with open(arguments[0]) as file:
        unit_text = file.read()
    if not re.search(r"^\[Service\]", unit_text, re.M):
        print(f"sandbox.py: {arguments[0]} has no [Service] section", file=sys.stderr)
        return 2
    apply(unit_text)
    os.execv(arguments[1], arguments[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
