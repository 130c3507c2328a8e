"""The release tarball (issue 46, item 1): what it holds, what its binary links, what `--version` says, and that
the binary serves a passkey sign-in in a chroot that holds nothing but it, its resources and the libraries ldd
lists — no Swift toolchain, no /usr, no shell."""
import os
import pathlib
import re
import shutil
import subprocess
import tarfile

from soft_webauthn import SoftWebauthnDevice

from package_support import (ALLOWED_LIBRARIES, LOADED_BY_GLIBC, ROOT, VERSION, Process, artifact, commit, free_port, ldd, loaded_by_glibc, register_and_sign_in,
                             sign_in, unexpected_libraries)

NOBODY = 65534


def unpacked(tmp_path):
    tarball = artifact(f"latchkey-{VERSION}-linux-*.tar.gz")
    with tarfile.open(tarball) as archive:
        names = archive.getnames()
        archive.extractall(tmp_path, filter="tar")
    top = {name.split("/")[0] for name in names}
    assert top == {tarball.name.removesuffix(".tar.gz")}, top
    return tmp_path / top.pop()


def test_the_tarball_holds_the_binary_its_resources_the_example_the_units_the_licences_and_their_checksums(tmp_path):
    tree = unpacked(tmp_path)
    files = sorted(str(path.relative_to(tree)) for path in tree.rglob("*") if path.is_file())
    for expected in ["latchkey", "latchkey.example.toml", "INSTALL", "SHA256SUMS", "systemd/latchkey.service",
                     "systemd/latchkey-backup.service", "systemd/latchkey-backup.timer", "licences/README", "licences/swift/LICENSE.txt",
                     "Latchkey_LatchkeyServer.resources/Public/index.html", "Latchkey_LatchkeyServer.resources/ProviderData/aaguid.json"]:
        assert expected in files, expected
    assert (tree / "latchkey.example.toml").read_bytes() == (ROOT / "latchkey.example.toml").read_bytes()
    for unit in ["latchkey.service", "latchkey-backup.service", "latchkey-backup.timer"]:
        assert (tree / "systemd" / unit).read_bytes() == (ROOT / "deploy/systemd" / unit).read_bytes()
    # A licence for each package linked in: the ones every build of latchkey links, at least.
    licensed = {path.parts[1] for path in (pathlib.Path(name) for name in files) if path.parts[0] == "licences" and len(path.parts) > 2}
    for package in ["swift", "swift-nio", "swift-crypto", "hummingbird", "swift-argument-parser", "TOMLKit", "postgres-kit", "swift-nio-ssl"]:
        assert package in licensed, (package, sorted(licensed))
    for package in licensed:  # each directory holds a licence text, not only a NOTICE
        texts = list((tree / "licences" / package).rglob("*"))
        assert any(re.match(r"(?i)(licen[cs]e|copying|copyright)", path.name) for path in texts), (package, texts)
    assert "swift-docc-plugin" not in licensed and "sqlite-kit" not in licensed  # build- and test-only packages are not linked
    # SHA256SUMS lists every other file, and each sum is right.
    listed = [line.split("  ", 1)[1] for line in (tree / "SHA256SUMS").read_text().splitlines()]
    assert sorted(listed) == [name for name in files if name != "SHA256SUMS"]
    check = subprocess.run(["sha256sum", "--check", "--quiet", "SHA256SUMS"], cwd=tree, capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    assert os.access(tree / "latchkey", os.X_OK)


def test_the_binary_links_only_glibc_sqlite_and_libcrypto_and_names_its_version_and_commit(tmp_path):
    binary = unpacked(tmp_path) / "latchkey"
    assert unexpected_libraries(binary) == [], ldd(binary)
    assert "libsqlite3.so.0" in ldd(binary) and "libcrypto.so.3" in ldd(binary)
    assert not any("swift" in (path or "") for path in ldd(binary).values())
    version = subprocess.run([str(binary), "--version"], capture_output=True, text=True, timeout=30)
    assert version.returncode == 0, version.stderr
    assert version.stdout.strip() == f"latchkey {VERSION} (commit {commit()})"
    # Stripped: no symbol table, no debug sections (the size an operator downloads).
    sections = subprocess.run(["readelf", "-S", "-W", str(binary)], capture_output=True, text=True, check=True).stdout
    assert ".symtab" not in sections and ".debug_info" not in sections


def chroot_with_only(tree, root):
    """`root` holding the tarball's binary and resources under /latchkey, the libraries ldd lists at the paths
    it lists them and the one glibc loads itself (LOADED_BY_GLIBC), and the empty directories the run needs:
    /proc (mounted in the test's own mount namespace), /tmp and /data (the database's, owned by nobody)."""
    (root / "latchkey").mkdir(parents=True)
    shutil.copy2(tree / "latchkey", root / "latchkey" / "latchkey")
    shutil.copytree(tree / "Latchkey_LatchkeyServer.resources", root / "latchkey" / "Latchkey_LatchkeyServer.resources")
    copied = []
    for name, path in ldd(tree / "latchkey").items():
        if path:
            target = root / path.lstrip("/")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(os.path.realpath(path), target)
            target.chmod(0o755)
            copied.append(path)
    for name, path in loaded_by_glibc().items():
        target = root / path.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(os.path.realpath(path), target)
        copied.append(path)
    for directory in ["proc", "tmp", "data"]:
        (root / directory).mkdir()
    (root / "tmp").chmod(0o1777)
    os.chown(root / "data", NOBODY, NOBODY)
    (root / "data").chmod(0o700)
    return copied


def test_the_binary_serves_a_passkey_sign_in_in_a_chroot_with_only_what_ldd_lists(tmp_path):
    tree = unpacked(tmp_path / "tarball")
    root = tmp_path / "root"
    copied = chroot_with_only(tree, root)
    names = {pathlib.Path(path).name for path in copied}
    assert names <= ALLOWED_LIBRARIES | LOADED_BY_GLIBC | {pathlib.Path(path).name for path in copied if "ld-linux" in path}, names
    everything = sorted(str(path.relative_to(root)) for path in root.rglob("*") if path.is_file())
    assert not any("swift" in name.lower() for name in everything if not name.startswith("latchkey/")), everything
    assert not (root / "usr" / "share").exists() and not (root / "bin").exists() and not (root / "etc").exists()

    port = free_port()
    # A mount namespace of its own for /proc (Foundation finds the resources beside /proc/self/exe), then chroot
    # as nobody: unshare and chroot exec, so the pid is latchkey's and SIGTERM reaches it.
    command = ["unshare", "--mount", "--propagation", "private", "--", "sh", "-c",
               'mount -t proc proc "$0/proc" && exec /usr/sbin/chroot --userspec=65534:65534 "$0" /latchkey/latchkey serve "$@"', str(root),
               "--host", "127.0.0.1", "--port", str(port), "--database", "sqlite:/data/latchkey.sqlite", "--key-file", "/data/latchkey.key",
               "--user-verification", "preferred"]  # soft-webauthn asserts presence only, never UV
    with Process(command, port, env={"PATH": "/usr/bin:/bin"}) as server:
        server.wait_healthy()
        device = SoftWebauthnDevice()
        register_and_sign_in(server.endpoint, device)
        sign_in(server.endpoint, device)
        status, _, _ = server.endpoint.raw("GET", "/")
        assert status == 200  # the page, read from the resources beside the binary
        assert server.stop() == 0, server.text()
    made = sorted(path.name for path in (root / "data").iterdir())
    assert "latchkey.sqlite" in made and "latchkey.key" in made, made
    assert (root / "data" / "latchkey.key").stat().st_uid == NOBODY
