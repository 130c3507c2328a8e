"""The Debian package (issue 46, item 2), installed on this machine with apt-get as an operator would: the user
latchkey, /usr/bin/latchkey, the conffile, /var/lib/latchkey (0700), the units (systemd-analyze verify; enabled by
deb-systemd-helper), the installed binary serving a passkey as latchkey with the installed configuration; an
upgrade over data an older Latchkey left (the committed schema-9 fixture of Tests/System/Upgrade: the new binary
migrates it at start and its accounts sign in), a second upgrade that keeps the data, the key, the operator's
edit of the conffile and the same passkey; remove keeps configuration and data, purge leaves nothing. lintian
finds no error or warning that deploy/debian/lintian-overrides does not explain.

Both upgrades install the same binary under a higher version number (the package rebuilt with dpkg-deb): what
is tested is dpkg's and the maintainer scripts' part, the data the older release wrote, and the migration at start."""
import grp
import hashlib
import os
import pathlib
import pwd
import re
import shutil
import sqlite3
import subprocess
import sys

import pytest
from soft_webauthn import SoftWebauthnDevice

from package_support import ROOT, VERSION, Process, artifact, free_port, register_and_sign_in, sign_in

sys.path.insert(0, str(ROOT / "Tests" / "System" / "Upgrade"))
from accounts import ACCOUNTS, sign_in as cli_sign_in  # noqa: E402

FIXTURES = ROOT / "Tests" / "System" / "Upgrade" / "fixtures"
DATA = pathlib.Path("/var/lib/latchkey")
CONFIG = pathlib.Path("/etc/latchkey/latchkey.toml")
UNITS = ["latchkey.service", "latchkey-backup.service", "latchkey-backup.timer"]
SYSTEMD_RUNS = pathlib.Path("/run/systemd/system").is_dir()


def run(*command, check=True):
    result = subprocess.run(command, capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL,
                            env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))
    assert not check or result.returncode == 0, f"{' '.join(map(str, command))}: {result.returncode}\n{result.stdout}\n{result.stderr}"
    return result


def apt_get(*arguments):
    return run("apt-get", "-y", "-q", "--no-install-recommends", *arguments)


def installed_version():
    result = run("dpkg-query", "-W", "-f", "${Status} ${Version}", "latchkey", check=False)
    return result.stdout.strip() if result.returncode == 0 else None


def known_versions():
    """Every schema version the current source knows (`schema.declared_versions`, Tests/System/Support)."""
    sys.path.insert(0, str(ROOT / "Tests" / "System" / "Support"))
    from schema import declared_versions
    return declared_versions()


def schema_versions(path):
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        return [row[0] for row in db.execute("SELECT version FROM schema_migrations ORDER BY version")]


def renumbered(deb, version, directory):
    """The package as dpkg-deb rebuilds it with another Version: the same files, another number."""
    tree = directory / f"tree-{version}"
    run("dpkg-deb", "--raw-extract", str(deb), str(tree))
    control = tree / "DEBIAN" / "control"
    control.write_text(re.sub(r"^Version: .*$", f"Version: {version}", control.read_text(), flags=re.M))
    out = directory / f"latchkey_{version}.deb"
    run("dpkg-deb", "--root-owner-group", "-Znone", "--build", str(tree), str(out))  # no compression: seconds, not minutes
    return out


def leftovers():
    """What of the package is on this machine: files, the user, the group, deb-systemd-helper's state."""
    found = [str(path) for path in [DATA, pathlib.Path("/var/lib/private/latchkey"), CONFIG.parent, pathlib.Path("/usr/bin/latchkey"),
                                     pathlib.Path("/usr/lib/latchkey"), pathlib.Path("/usr/share/doc/latchkey")] if path.exists() or path.is_symlink()]
    for pattern in ["lib/systemd/system/latchkey*", "etc/systemd/system/*/latchkey*", "etc/systemd/system/latchkey*",
                    "var/lib/systemd/deb-systemd-helper-enabled/**/latchkey*", "var/lib/systemd/deb-systemd-helper-masked/latchkey*"]:
        found += [str(path) for path in pathlib.Path("/").glob(pattern)]
    for lookup, what in [(pwd.getpwnam, "user"), (grp.getgrnam, "group")]:
        try:
            lookup("latchkey")
            found.append(f"the {what} latchkey")
        except KeyError:
            pass
    return found


@pytest.fixture
def clean_machine():
    """No latchkey package before the test, and none after it, whatever happened in between."""
    if installed_version():
        apt_get("purge", "latchkey")
    assert leftovers() == [], "left by something else than this package: " + ", ".join(leftovers())
    try:
        yield
    finally:
        if installed_version():
            apt_get("purge", "latchkey")


def serve_installed(port):
    """The installed binary as the service runs it: as latchkey, in /var/lib/latchkey, with the installed
    configuration (ExecStart= of the installed unit), on a free port of 127.0.0.1 whose origin is its own."""
    unit = pathlib.Path("/lib/systemd/system/latchkey.service").read_text()
    command = re.search(r"^ExecStart=(.*)$", unit, re.M).group(1).split()
    assert command == ["/usr/bin/latchkey", "serve", "--config", str(CONFIG)], command
    # soft-webauthn asserts presence only, never UV: preferred, as a variable (it wins over the file).
    env = {"PATH": "/usr/bin:/bin", "LATCHKEY_PORT": str(port), "LATCHKEY_ORIGIN": f"http://localhost:{port}",
           "LATCHKEY_USER_VERIFICATION": "preferred"}
    return Process(command, port, env=env, cwd=str(DATA), user="latchkey", group="latchkey")


def stop_the_service_systemd_started():
    """Where systemd runs, postinst started latchkey.service on the configuration's port; the test's own
    server takes its place (the same binary, user, configuration and data)."""
    if SYSTEMD_RUNS:
        assert run("systemctl", "is-active", "latchkey.service", check=False).stdout.strip() == "active"
        run("systemctl", "stop", "latchkey.service")


def test_install_serve_upgrade_twice_remove_and_purge(clean_machine, tmp_path):
    deb = artifact(f"latchkey_{VERSION}_*.deb")
    older = renumbered(deb, f"{VERSION}~test1", tmp_path)
    newer = renumbered(deb, f"{VERSION}+test2", tmp_path)

    # Install (an "older" release): the user, the directories, the conffile, the units.
    apt_get("install", str(older))
    assert installed_version() == f"install ok installed {VERSION}~test1"
    user = pwd.getpwnam("latchkey")
    assert user.pw_uid < 1000 and user.pw_shell == "/usr/sbin/nologin" and user.pw_dir == str(DATA), user
    assert grp.getgrnam("latchkey").gr_gid == user.pw_gid
    assert DATA.is_dir() and DATA.stat().st_mode & 0o777 == 0o700 and DATA.stat().st_uid == user.pw_uid
    assert os.path.realpath("/usr/bin/latchkey") == "/usr/lib/latchkey/latchkey"
    version = run("/usr/bin/latchkey", "--version").stdout
    assert version.startswith(f"latchkey {VERSION} (commit "), version
    conffiles = run("dpkg-query", "-W", "-f", "${Conffiles}", "latchkey").stdout
    assert str(CONFIG) in conffiles and CONFIG.stat().st_mode & 0o777 == 0o644
    config = CONFIG.read_text()
    assert 'database = "sqlite:/var/lib/latchkey/latchkey.sqlite"' in config and 'key-file = "/var/lib/latchkey/latchkey.key"' in config
    for unit in UNITS:
        assert pathlib.Path("/lib/systemd/system", unit).is_file(), unit
    # Enabled, as deb-systemd-helper does it with or without a running systemd.
    assert pathlib.Path("/etc/systemd/system/multi-user.target.wants/latchkey.service").is_symlink()
    assert pathlib.Path("/etc/systemd/system/timers.target.wants/latchkey-backup.timer").is_symlink()
    if shutil.which("systemd-analyze"):
        verify = run("systemd-analyze", "verify", *(f"/lib/systemd/system/{unit}" for unit in UNITS), check=False)
        assert (verify.returncode, verify.stdout + verify.stderr) == (0, ""), verify.stdout + verify.stderr
    stop_the_service_systemd_started()

    # The data an older Latchkey left: the schema-9 database of Tests/System/Upgrade and its key file.
    for name, target in [("latchkey-v9.sqlite", "latchkey.sqlite"), ("latchkey.key", "latchkey.key")]:
        shutil.copyfile(FIXTURES / name, DATA / target)
        os.chown(DATA / target, user.pw_uid, user.pw_gid)
        os.chmod(DATA / target, 0o600)
    assert schema_versions(DATA / "latchkey.sqlite")[-1] == 9
    key = (DATA / "latchkey.key").read_bytes()

    # Upgrade to this release: the data stays as it was until the server starts, which migrates it.
    apt_get("install", str(deb))
    assert installed_version() == f"install ok installed {VERSION}"
    assert schema_versions(DATA / "latchkey.sqlite")[-1] == 9
    stop_the_service_systemd_started()
    stores = tmp_path / "stores"
    stores.mkdir()
    port = free_port()
    device = SoftWebauthnDevice()
    with serve_installed(port) as server:
        server.wait_healthy()
        status, ready = server.endpoint.call("GET", "/readyz")
        assert status == 200 and ready == {"status": "ready", "schemaVersion": known_versions()[-1]}, ready
        # The older release's accounts sign in with their passkeys (the CLI's software authenticator).
        for display_name, passkeys in ACCOUNTS:
            _, store, _ = passkeys[0]
            copy = stores / store
            shutil.copyfile(FIXTURES / store, copy)
            os.chmod(copy, 0o600)
            account = cli_sign_in("/usr/bin/latchkey", server.endpoint.origin, copy)
            assert account["displayName"] == display_name, account
        # A new passkey, over HTTP.
        registered = register_and_sign_in(server.endpoint, device, "Katherine Johnson")
        assert server.stop() == 0, server.text()
        log = server.text()
    assert schema_versions(DATA / "latchkey.sqlite") == known_versions()
    # The start-up line: origin, RP ID, database, what is on, the version.
    serving = next(line for line in log.splitlines() if "serving" in line)
    for part in ["rp_id=localhost", f"origins=http://localhost:{port}", "database=sqlite:/var/lib/latchkey/latchkey.sqlite",
                 f"config={CONFIG}", "on=none", f"version={VERSION}"]:
        assert part in serving, (part, serving)
    for made in DATA.iterdir():
        assert made.stat().st_uid == user.pw_uid and made.stat().st_mode & 0o077 == 0, (made, oct(made.stat().st_mode))

    # The operator edits the configuration; a second upgrade keeps the edit, the data and the key.
    edited = CONFIG.read_text() + "# edited by the operator\n"
    CONFIG.write_text(edited)
    apt_get("install", str(newer))
    assert installed_version() == f"install ok installed {VERSION}+test2"
    assert CONFIG.read_text() == edited
    assert (DATA / "latchkey.key").read_bytes() == key
    stop_the_service_systemd_started()
    port = free_port()
    with serve_installed(port) as server:
        server.wait_healthy()
        body = sign_in(server.endpoint, device)
        assert body["account"]["id"] == registered["account"]["id"], (body, registered)
        assert server.stop() == 0, server.text()

    # remove: the program goes, the configuration and the data stay.
    apt_get("remove", "latchkey")
    assert installed_version() == f"deinstall ok config-files {VERSION}+test2"
    assert not pathlib.Path("/usr/bin/latchkey").exists() and not pathlib.Path("/usr/lib/latchkey").exists()
    assert CONFIG.read_text() == edited
    assert (DATA / "latchkey.key").read_bytes() == key and (DATA / "latchkey.sqlite").exists()
    pwd.getpwnam("latchkey")

    # purge: nothing of it is left.
    apt_get("purge", "latchkey")
    assert installed_version() is None
    assert leftovers() == []


def test_lintian_finds_nothing_the_overrides_do_not_explain():
    """lintian --display-info: no error, warning or information tag but those deploy/debian/lintian-overrides explains."""
    deb = artifact(f"latchkey_{VERSION}_*.deb")
    # --show-overrides prints the overridden tags as O: lines (with --fail-on, an overridden error would fail it).
    result = run("lintian", "--fail-on", "none", "--display-info", "--show-overrides", "--tag-display-limit", "0", str(deb), check=False)
    print(result.stdout)  # what pytest -s shows, and the report quotes
    assert result.returncode == 0, result.stdout + result.stderr
    # Not even an information tag is left unexplained (O: is an override's).
    tags = [line for line in result.stdout.splitlines() if re.match(r"^[EWI]: ", line)]
    assert tags == [], tags
    # Each override gives its reason in a comment above it.
    overrides = (ROOT / "deploy/debian/lintian-overrides").read_text().splitlines()
    for number, line in enumerate(overrides):
        if line and not line.startswith("#"):
            assert number > 0 and overrides[number - 1].startswith("#"), f"override without a reason: {line}"
