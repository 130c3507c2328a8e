#!/usr/bin/env python3
"""A Latchkey cluster on this machine: a private PostgreSQL, N `latchkey serve` instances sharing it, and
nginx in front of them on one port — what `scripts/cluster` starts for a try-out, and what the
cross-instance tests (Tests/Cluster) start for themselves. Standard library only.

Everything lives in one directory (the state file `cluster.json`, PostgreSQL's data, the logs, nginx's
configuration), so `down` run from another process finds what `up` started.

What it protects, and what it cannot on one machine:
- PostgreSQL asks for a password (scram-sha-256, over TCP and its Unix socket alike): a random one per
  cluster, in `postgres-password` (mode 0600) in the cluster's directory. cluster.py gives it to psql,
  pg_ctl and createdb as PGPASSWORD in their environment, and to each instance inside the database URL in
  LATCHKEY_DATABASE in its environment: never on a command line, where `ps` would show it to every user.
  It is not in `cluster.json` either.
- The instances trust X-Forwarded-For (`--trust-forwarded-for`) because nginx sets it; here they listen on
  loopback ports, so any local process that talks to an instance directly, bypassing nginx, chooses the
  address Latchkey's rate limit counts. One host cannot close that (any local process can connect to any
  loopback port, from any 127.x source address): this cluster is a try-out for one trusted user. In
  production the instances listen on a private network that only the proxy reaches (a firewall or a
  private subnet), as in deploy/nginx/latchkey.conf.
- nginx's access log (`nginx/access.log`) records the path without its query string: PassKeysDemo's
  `?operation=update&displayName=…&credo=…` and Hanko's `?user_name=…` stay out of it. Its error log still
  names the whole request line of a request that failed upstream (nginx cannot leave it out).
"""
import json
import os
import pathlib
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parents[1]
PG_BIN = "/usr/lib/postgresql/15/bin"
NGINX = "/usr/sbin/nginx"
NGINX_TEMPLATE = pathlib.Path(__file__).resolve().parent / "nginx" / "cluster.conf.template"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def healthy(port, timeout=1.0):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=timeout) as response:
            return response.status == 200
    except OSError:
        return False


def wait_until(check, seconds, what):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if check():
            return
        time.sleep(0.1)
    raise RuntimeError(f"{what} did not happen within {seconds} s")


class Cluster:
    """`up()` starts PostgreSQL, the instances (all at the same moment: they race to migrate the empty
    database) and nginx; `down()` stops them all and removes the directory. `kill(i)` and `start(i)`
    end an instance with SIGKILL and bring it back on the same port."""

    def __init__(self, directory, port=8090, instances=3, binary=None, flags=(), env=None):
        self.directory = pathlib.Path(directory).resolve()
        self.port = port
        self.count = instances
        self.binary = binary or os.environ.get("LATCHKEY_BIN") or str(ROOT / ".build" / "debug" / "latchkey")
        self.flags = list(flags)
        self.env = dict(env or {})
        self.pg_port = None
        self.instance_ports = []
        self.pids = []
        self.nginx_pid = None
        self.as_postgres = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []

    # State shared between `scripts/cluster up` and a later `down` or `status`.

    @property
    def state_file(self):
        return self.directory / "cluster.json"

    def save(self):
        self.state_file.write_text(json.dumps({
            "port": self.port, "pg_port": self.pg_port, "instance_ports": self.instance_ports, "pids": self.pids,
            "nginx_pid": self.nginx_pid, "binary": self.binary, "flags": self.flags, "env": self.env,
        }, indent=2))

    @classmethod
    def load(cls, directory):
        directory = pathlib.Path(directory)
        state = json.loads((directory / "cluster.json").read_text())
        cluster = cls(directory, port=state["port"], instances=len(state["instance_ports"]), binary=state["binary"],
                      flags=state["flags"], env=state["env"])
        cluster.pg_port, cluster.instance_ports = state["pg_port"], state["instance_ports"]
        cluster.pids, cluster.nginx_pid = state["pids"], state["nginx_pid"]
        return cluster

    # Addresses.

    @property
    def origin(self):
        """The public origin: what a browser sees, and what every instance accepts."""
        return f"http://localhost:{self.port}"

    @property
    def database_url(self):
        """The database's URL without its password: for messages and logs."""
        return f"postgres://postgres@127.0.0.1:{self.pg_port}/latchkey?tlsmode=disable"

    def secret_database_url(self, database="latchkey"):
        """The URL with the password, for LATCHKEY_DATABASE in an instance's environment, never for argv."""
        password = urllib.parse.quote(self.pg_password(), safe="")
        return f"postgres://postgres:{password}@127.0.0.1:{self.pg_port}/{database}?tlsmode=disable"

    # PostgreSQL.

    @property
    def password_file(self):
        return self.directory / "postgres-password"

    def _create_password_file(self):
        """A random password in a file only its owner reads (created 0600, never wider for a moment):
        PostgreSQL's user owns it when cluster.py runs as root, so that initdb --pwfile can read it."""
        self.password_file.unlink(missing_ok=True)  # from an `up` that failed before initdb
        descriptor = os.open(self.password_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w") as file:
            file.write(secrets.token_urlsafe(32) + "\n")
        if self.as_postgres:
            shutil.chown(self.password_file, "postgres")

    def pg_password(self):
        return self.password_file.read_text().strip()

    def pg_environment(self):
        """This process's environment plus PGPASSWORD, for psql, createdb and pg_ctl."""
        environment = dict(os.environ)
        environment.pop("PGPASSFILE", None)
        if self.password_file.exists():
            environment["PGPASSWORD"] = self.pg_password()
        return environment

    def _pg(self, *command, check=True):
        return subprocess.run([*self.as_postgres, *command], check=check, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              env=self.pg_environment())

    def start_postgres(self):
        data = self.directory / "postgres"
        if not data.exists():
            data.mkdir()
            if self.as_postgres:
                shutil.chown(data, "postgres")
            self._create_password_file()
            # Password authentication for the Unix socket and TCP alike: no local user gets in without it.
            self._pg(f"{PG_BIN}/initdb", "-D", str(data / "data"), "--auth=scram-sha-256", f"--pwfile={self.password_file}",
                     "-U", "postgres", "-E", "UTF8")
        self._pg(f"{PG_BIN}/pg_ctl", "-D", str(data / "data"), "-l", str(data / "server.log"), "-w", "-o",
                 f"-p {self.pg_port} -k {data} -c listen_addresses=127.0.0.1 -c max_connections=200", "start")

    def stop_postgres(self, mode="fast"):
        """`fast` for a clean stop; `immediate` stops it as a crash would (it recovers from its log)."""
        self._pg(f"{PG_BIN}/pg_ctl", "-D", str(self.directory / "postgres" / "data"), "-m", mode, "-w", "stop", check=False)

    def psql(self, sql, database="latchkey"):
        """Rows of `sql`, as lists of strings."""
        output = subprocess.run(
            [*self.as_postgres, f"{PG_BIN}/psql", "-w", "-h", "127.0.0.1", "-p", str(self.pg_port), "-U", "postgres", "-d", database,
             "-At", "-F", "\t", "-c", sql], check=True, capture_output=True, text=True, env=self.pg_environment()).stdout
        return [line.split("\t") for line in output.splitlines() if line]

    # Instances.

    def instance_environment(self):
        """The environment of an instance: the key file every instance shares (it wraps the keys in the
        database), and the database URL, password and all, in LATCHKEY_DATABASE
        (a `--database` among the flags would still win, and show in `ps`)."""
        return {**os.environ, "LATCHKEY_KEY_FILE": str(self.directory / "latchkey.key"), **self.env,
                "LATCHKEY_DATABASE": self.secret_database_url()}

    def _spawn(self, index):
        log = open(self.directory / f"instance-{index}.log", "a")
        # --trust-forwarded-for: nginx sets X-Forwarded-For. A local process that bypasses nginx can set it
        # too; see the module's docstring.
        process = subprocess.Popen(
            [self.binary, "serve", "--host", "127.0.0.1", "--port", str(self.instance_ports[index]),
             "--origin", self.origin, "--trust-forwarded-for", *self.flags],
            stdout=log, stderr=log, stdin=subprocess.DEVNULL, env=self.instance_environment(), start_new_session=True)
        log.close()
        self.pids[index] = process.pid
        return process

    def start(self, index):
        """Starts instance `index` (again) and waits until it answers."""
        self._spawn(index)
        wait_until(lambda: healthy(self.instance_ports[index]), 60, f"instance {index} answering on {self.instance_ports[index]}")
        self.save()

    def kill(self, index, sig=signal.SIGKILL):
        """Ends instance `index` (SIGKILL: no shutdown, no flush — a crash)."""
        pid = self.pids[index]
        if pid:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
            _reap(pid)
            self.pids[index] = None
            self.save()

    def alive(self, index):
        return bool(self.pids[index]) and _running(self.pids[index])

    # nginx.

    def _nginx_conf(self):
        servers = "\n".join(f"        server 127.0.0.1:{port} max_fails=1 fail_timeout=5s;" for port in self.instance_ports)
        text = NGINX_TEMPLATE.read_text()
        for name, value in {"{{PREFIX}}": str(self.directory / "nginx"), "{{PORT}}": str(self.port), "{{SERVERS}}": servers}.items():
            text = text.replace(name, value)
        path = self.directory / "nginx" / "nginx.conf"
        path.write_text(text)
        return path

    def start_nginx(self):
        (self.directory / "nginx").mkdir(exist_ok=True)
        conf = self._nginx_conf()
        log = open(self.directory / "nginx" / "stderr.log", "a")
        process = subprocess.Popen([NGINX, "-p", str(self.directory / "nginx"), "-c", str(conf), "-e", str(self.directory / "nginx" / "error.log")],
                                   stdout=log, stderr=log, stdin=subprocess.DEVNULL, start_new_session=True)
        log.close()
        self.nginx_pid = process.pid
        wait_until(lambda: healthy(self.port) or not _running(process.pid), 30, f"nginx answering on {self.port}")
        if not _running(process.pid):
            raise RuntimeError(f"nginx did not start: see {self.directory / 'nginx' / 'error.log'}")

    # The whole cluster.

    def up(self):
        if not os.path.exists(f"{PG_BIN}/postgres"):
            raise RuntimeError("PostgreSQL 15 is not installed (apt-get install postgresql-15; scripts/test installs it)")
        if not os.path.exists(NGINX):
            raise RuntimeError("nginx is not installed (apt-get install nginx; scripts/test installs it)")
        if not os.path.exists(self.binary):
            raise RuntimeError(f"{self.binary} is missing: build it first (swift build --product latchkey)")
        self.directory.mkdir(parents=True, exist_ok=True)
        # PostgreSQL runs as its own user and nginx's workers as nobody: both must reach their files here.
        self.directory.chmod(0o755)
        self.pg_port = self.pg_port or free_port()
        self.instance_ports = self.instance_ports or [free_port() for _ in range(self.count)]
        self.pids = [None] * self.count
        self.save()
        try:
            self.start_postgres()
            self._pg(f"{PG_BIN}/createdb", "-h", "127.0.0.1", "-p", str(self.pg_port), "-U", "postgres", "latchkey", check=False)
            # All at once, on an empty database: the migrations' advisory lock decides who applies them.
            for index in range(self.count):
                self._spawn(index)
            for index, port in enumerate(self.instance_ports):
                wait_until(lambda port=port: healthy(port), 60, f"instance {index} answering on {port}")
            self.start_nginx()
            self.save()
        except BaseException:
            self.down()
            raise

    def down(self, keep=False):
        """Stops nginx, the instances (SIGTERM: they finish their requests) and PostgreSQL; removes the
        directory unless `keep`."""
        if self.nginx_pid and _running(self.nginx_pid):
            os.kill(self.nginx_pid, signal.SIGQUIT)
            _reap(self.nginx_pid)
        for pid in self.pids:
            if pid and _running(pid):
                os.kill(pid, signal.SIGTERM)
        for pid in self.pids:
            if pid:
                _reap(pid, seconds=30)
        self.stop_postgres()
        if not keep:
            shutil.rmtree(self.directory, ignore_errors=True)

    def status(self):
        lines = [f"nginx      {self.origin:28} pid {self.nginx_pid}  {'up' if healthy(self.port) else 'DOWN'}"]
        for index, port in enumerate(self.instance_ports):
            lines.append(f"instance {index} http://127.0.0.1:{port:<11} pid {self.pids[index]}  {'up' if healthy(port) else 'DOWN'}")
        lines.append(f"postgres   {self.database_url} (password in {self.password_file})")
        return "\n".join(lines)


def _running(pid):
    try:
        waited, _ = os.waitpid(pid, os.WNOHANG)
        if waited == pid:
            return False
    except ChildProcessError:
        pass  # not our child (started by an earlier `scripts/cluster up`)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return not _zombie(pid)


def _zombie(pid):
    try:
        return pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return False


def _reap(pid, seconds=10):
    deadline = time.time() + seconds
    while time.time() < deadline and _running(pid):
        time.sleep(0.05)
    if _running(pid):
        os.kill(pid, signal.SIGKILL)
        while _running(pid):
            time.sleep(0.05)


def main(argv):
    import argparse
    parser = argparse.ArgumentParser(prog="scripts/cluster", description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["up", "down", "status"])
    parser.add_argument("--dir", default=os.environ.get("LATCHKEY_CLUSTER_DIR", "/tmp/latchkey-cluster"),
                        help="where the cluster keeps its state (default /tmp/latchkey-cluster)")
    parser.add_argument("--port", type=int, default=8090, help="nginx's port: the cluster's public address (default 8090)")
    parser.add_argument("--instances", type=int, default=3, help="latchkey serve instances (default 3)")
    parser.epilog = "Flags after -- go to every `latchkey serve` (scripts/cluster up -- --rate-limit 0)."
    flags = argv[argv.index("--") + 1:] if "--" in argv else []
    args = parser.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    directory = pathlib.Path(args.dir)
    if args.command == "up":
        if (directory / "cluster.json").exists():
            sys.exit(f"scripts/cluster: a cluster is already up in {directory} (scripts/cluster down first)")
        cluster = Cluster(directory, port=args.port, instances=args.instances, flags=flags)
        cluster.up()
        print(cluster.status())
        print(f"\nOpen {cluster.origin} — logs in {directory}; stop with scripts/cluster down")
    elif not (directory / "cluster.json").exists():
        sys.exit(f"scripts/cluster: no cluster in {directory}")
    elif args.command == "status":
        print(Cluster.load(directory).status())
    else:
        Cluster.load(directory).down()
        print("scripts/cluster: stopped nginx, the instances and PostgreSQL")


if __name__ == "__main__":
    main(sys.argv[1:])
