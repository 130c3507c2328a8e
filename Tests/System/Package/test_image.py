"""The container image (issue 46, item 3), built by scripts/package with buildah FROM scratch into the storage
under .build/package/containers: its configuration (entrypoint, user, volume, LATCHKEY_* variables), that it
holds the binary and exactly the libraries ldd lists (with the loader; and libgcc_s, which glibc loads itself: see
package_support.LOADED_BY_GLIBC), CA certificates, time zones and a non-root user and nothing else; and a passkey signs in against it. It runs with podman where podman can run a
container here (root, vfs storage, runc and cgroupfs: this machine's kernel has cgroups in hybrid mode, which
crun refuses); elsewhere its root file system, mounted by buildah, is run in a chroot as its user."""
import json
import os
import pathlib
import shutil
import subprocess
import uuid

import pytest
from soft_webauthn import SoftWebauthnDevice

from package_support import ALLOWED_LIBRARIES, LOADED_BY_GLIBC, ROOT, VERSION, Process, artifact, commit, free_port, register_and_sign_in, sign_in

CONTAINERS = ROOT / ".build" / "package" / "containers"
STORAGE = ["--root", str(CONTAINERS / "root"), "--runroot", str(CONTAINERS / "run"), "--storage-driver", "vfs"]
IMAGE = f"localhost/latchkey:{VERSION}"
# podman's defaults that this machine refuses: crun (hybrid cgroups), systemd's cgroup manager (no systemd),
# and raising the open-file and process limits above the hard limits the session has.
PODMAN = ["podman", *STORAGE, "--runtime", "runc", "--cgroup-manager", "cgroupfs", "--events-backend", "file"]
LIMITS = ["--ulimit", "nofile=4096:4096", "--ulimit", "nproc=4096:4096"]


def run(*command, check=True, timeout=300):
    result = subprocess.run(command, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    assert not check or result.returncode == 0, f"{' '.join(command)}: {result.returncode}\n{result.stdout}\n{result.stderr}"
    return result


def inspect():
    return json.loads(run("buildah", *STORAGE, "inspect", "--type", "image", IMAGE).stdout)


@pytest.fixture
def rootfs():
    """The image's files, mounted read-only through a buildah working container (removed afterwards)."""
    container = run("buildah", *STORAGE, "from", "--pull-never", IMAGE).stdout.strip().splitlines()[-1]
    try:
        yield pathlib.Path(run("buildah", *STORAGE, "mount", container).stdout.strip())
    finally:
        run("buildah", *STORAGE, "rm", container, check=False)


def test_the_image_is_configured_to_serve_as_a_non_root_user_with_a_data_volume():
    image = inspect()
    config = image["OCIv1"]["config"]
    assert config["Entrypoint"] == ["/usr/bin/latchkey", "serve"]
    assert config["User"] == "10001:10001"
    assert list(config["Volumes"]) == ["/var/lib/latchkey"]
    assert config["WorkingDir"] == "/var/lib/latchkey"
    env = dict(item.split("=", 1) for item in config["Env"])
    assert env["LATCHKEY_DATABASE"] == "sqlite:/var/lib/latchkey/latchkey.sqlite"
    assert env["LATCHKEY_KEY_FILE"] == "/var/lib/latchkey/latchkey.key"
    assert env["LATCHKEY_HOST"] == "0.0.0.0"
    assert image["OCIv1"]["config"]["Labels"]["org.opencontainers.image.revision"] == commit()
    assert len(image["OCIv1"]["rootfs"]["diff_ids"]) == 1  # FROM scratch: one layer, ours
    assert artifact(f"latchkey-{VERSION}-linux-*.oci.tar").stat().st_size > 0
    size = int(run("buildah", *STORAGE, "images", "--noheading", "--format", "{{.Size}}", IMAGE).stdout.split()[0].split(".")[0] or 0)
    print(f"image {IMAGE}: {run('buildah', *STORAGE, 'images', '--noheading', '--format', '{{.Size}}', IMAGE).stdout.strip()}")
    assert size > 0


def test_the_image_holds_the_binary_the_libraries_ldd_lists_certificates_time_zones_and_its_user(rootfs):
    files = sorted(str(path.relative_to(rootfs)) for path in rootfs.rglob("*") if path.is_file() or path.is_symlink())
    libraries = {pathlib.Path(name).name for name in files if name.startswith(("lib/", "lib64/", "usr/lib/x86_64", "usr/lib/aarch64"))}
    assert {name for name in libraries if "ld-linux" not in name} == ALLOWED_LIBRARIES - {"linux-vdso.so.1"} | LOADED_BY_GLIBC, libraries
    assert "usr/bin/latchkey" in files and "usr/lib/latchkey/latchkey" in files
    assert os.readlink(rootfs / "usr/bin/latchkey") == "../lib/latchkey/latchkey"
    assert "usr/lib/latchkey/Latchkey_LatchkeyServer.resources/Public/index.html" in files
    assert "etc/ssl/certs/ca-certificates.crt" in files and "usr/share/zoneinfo/Europe/Berlin" in files
    assert "usr/lib/latchkey/licences/swift/LICENSE.txt" in files and "usr/share/doc/libssl3/copyright" in files
    passwd = (rootfs / "etc/passwd").read_text()
    assert "latchkey:x:10001:10001:" in passwd
    data = rootfs / "var/lib/latchkey"
    assert data.stat().st_uid == 10001 and data.stat().st_mode & 0o777 == 0o700
    # Nothing else: no shell, no package manager, no other program.
    top = sorted(path.name for path in rootfs.iterdir())
    assert set(top) <= {"etc", "lib", "lib64", "tmp", "usr", "var", "dev", "proc", "sys", "run"}, top
    assert not (rootfs / "bin").exists() and not (rootfs / "usr/bin/sh").exists()
    programs = sorted(name for name in files if name.startswith(("usr/bin/", "usr/sbin/", "bin/", "sbin/")))
    assert programs == ["usr/bin/latchkey"], programs


def podman_runs():
    """Whether podman can run a container on this machine (the minimal one: the image's own --version).
    LATCHKEY_TEST_IMAGE_WITH=chroot takes the other way where podman works too (to test that way)."""
    if os.environ.get("LATCHKEY_TEST_IMAGE_WITH") == "chroot" or not shutil.which("podman") or not shutil.which("runc"):
        return False
    probe = subprocess.run([*PODMAN, "run", "--rm", "--network", "host", *LIMITS, "--entrypoint", "/usr/bin/latchkey", IMAGE, "--version"],
                           capture_output=True, text=True, timeout=300)
    return probe.returncode == 0 and probe.stdout.startswith(f"latchkey {VERSION}")


def test_a_passkey_signs_in_against_the_image(tmp_path, rootfs):
    port = free_port()
    # soft-webauthn asserts presence only, never UV: preferred.
    settings = {"LATCHKEY_HOST": "127.0.0.1", "LATCHKEY_PORT": str(port), "LATCHKEY_ORIGIN": f"http://localhost:{port}",
                "LATCHKEY_USER_VERIFICATION": "preferred"}
    if podman_runs():
        name = f"latchkey-test-{uuid.uuid4().hex[:8]}"
        volume = run(*PODMAN, "volume", "create", name).stdout.strip()
        command = [*PODMAN, "run", "--rm", "--name", name, "--network", "host", *LIMITS, "--volume", f"{volume}:/var/lib/latchkey",
                   *(f"--env={key}={value}" for key, value in settings.items()), IMAGE]
        how = "podman"
        env = None
    else:
        # Its root file system in a chroot, as the image's user, with the image's variables and ours.
        volume = None
        config = inspect()["OCIv1"]["config"]
        env = dict(item.split("=", 1) for item in config["Env"]) | settings
        command = ["unshare", "--mount", "--propagation", "private", "--", "sh", "-c",
                   'mount -t proc proc "$0/proc" && cd "$0/var/lib/latchkey" && exec /usr/sbin/chroot --userspec=10001:10001 "$0" "$@"',
                   str(rootfs), *config["Entrypoint"]]
        (rootfs / "proc").mkdir(exist_ok=True)
        how = "chroot"
    print(f"the image runs with {how}")
    try:
        with Process(command, port, env=env) as server:
            seconds = server.wait_healthy(seconds=120)
            device = SoftWebauthnDevice()
            register_and_sign_in(server.endpoint, device)
            sign_in(server.endpoint, device)
            print(f"first answer after {seconds:.2f} s ({how})")
            assert server.stop() in (0, 143), server.text()
            assert "serving" in server.text()
    finally:
        if volume:
            run(*PODMAN, "rm", "--force", "--ignore", name, check=False)
            run(*PODMAN, "volume", "rm", "--force", volume, check=False)
