#!/usr/bin/env python3
"""A Latchkey cluster on this machine: a private PostgreSQL, N `latchkey serve` instances sharing it, and
nginx in front of them on one port — what `scripts/cluster` starts for a try-out, and what the
cross-instance tests (Tests/System/Cluster) start for themselves. Standard library only; the processes
themselves (free ports, the private PostgreSQL, `latchkey serve`, nginx) come from the test suites' shared
Tests/System/Support/processes.py, so this needs the whole checkout (it runs the checkout's build too).

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
import shutil
import signal
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "Tests" / "System" / "Support"))
from processes import Nginx, PrivatePostgres, free_port, healthy, latchkey_binary, reap, running, start_latchkey, wait_until  # noqa: E402

NGINX_TEMPLATE = pathlib.Path(__file__).resolve().parent / "nginx" / "cluster.conf.template"


class Cluster:
    """`up()` starts PostgreSQL, the instances (all at the same moment: they race to migrate the empty
    database) and nginx; `down()` stops them all and removes the directory. `kill(i)` and `start(i)`
    end an instance with SIGKILL and bring it back on the same port."""

    def __init__(self, directory, port=8090, instances=3, binary=None, flags=(), env=None):
        self.directory = pathlib.Path(directory).resolve()
        self.port = port
        self.count = instances
        self.binary = binary or latchkey_binary()
        self.flags = list(flags)
        self.env = dict(env or {})
        self.instance_ports = []
        self.pids = []
        # PostgreSQL's data, log and Unix socket in `postgres/`, on a free port (`load` puts back the one `up`
        # used); its password in `postgres-password`.
        self.postgres = PrivatePostgres(self.directory / "postgres", password_file=self.directory / "postgres-password",
                                        settings={"max_connections": 200})
        self.nginx = Nginx(self.directory / "nginx", self.port)
        self.as_postgres = self.postgres.run_as

    @property
    def pg_port(self):
        return self.postgres.port

    @pg_port.setter
    def pg_port(self, port):
        self.postgres.port = port

    @property
    def nginx_pid(self):
        return self.nginx.pid

    @nginx_pid.setter
    def nginx_pid(self, pid):
        self.nginx.pid = pid

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
        return self.postgres.public_url()

    def secret_database_url(self, database="latchkey"):
        """The URL with the password, for LATCHKEY_DATABASE in an instance's environment, never for argv."""
        return self.postgres.secret_url(database)

    # PostgreSQL (processes.PrivatePostgres).

    @property
    def password_file(self):
        return self.postgres.password_file

    def pg_password(self):
        return self.postgres.password()

    def pg_environment(self):
        """This process's environment plus PGPASSWORD, for psql, createdb and pg_ctl."""
        return self.postgres.environment()

    def start_postgres(self):
        self.postgres.start()

    def stop_postgres(self, mode="fast"):
        """`fast` for a clean stop; `immediate` stops it as a crash would (it recovers from its log)."""
        self.postgres.stop(mode)

    def psql(self, sql, database="latchkey"):
        """Rows of `sql`, as lists of strings."""
        return self.postgres.query(sql, database)

    # Instances.

    @property
    def key_file(self):
        """The key file every instance shares (it wraps the keys in the database)."""
        return self.directory / "latchkey.key"

    def _spawn(self, index):
        # The database URL, password and all, goes in LATCHKEY_DATABASE (a `--database` among the flags would
        # still win, and show in `ps`). --trust-forwarded-for: nginx sets X-Forwarded-For. A local process
        # that bypasses nginx can set it too; see the module's docstring.
        with open(self.directory / f"instance-{index}.log", "a") as log:
            process = start_latchkey(self.instance_ports[index], ["--trust-forwarded-for", *self.flags], binary=self.binary,
                                     host="127.0.0.1", origin=self.origin, database=self.secret_database_url(),
                                     key_file=self.key_file, env=self.env, stdout=log, stderr=log, new_session=True)
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
            reap(pid)
            self.pids[index] = None
            self.save()

    def alive(self, index):
        return bool(self.pids[index]) and running(self.pids[index])

    # nginx (processes.Nginx).

    def _nginx_conf(self):
        servers = "\n".join(f"        server 127.0.0.1:{port} max_fails=1 fail_timeout=5s;" for port in self.instance_ports)
        text = NGINX_TEMPLATE.read_text()
        for name, value in {"{{PREFIX}}": str(self.nginx.prefix), "{{PORT}}": str(self.port), "{{SERVERS}}": servers}.items():
            text = text.replace(name, value)
        self.nginx.prefix.mkdir(exist_ok=True)
        path = self.nginx.prefix / "nginx.conf"
        path.write_text(text)
        return path

    def start_nginx(self):
        self.nginx.start(self._nginx_conf())

    # The whole cluster.

    def up(self):
        if not PrivatePostgres.installed():
            raise RuntimeError("PostgreSQL 15 is not installed (apt-get install postgresql-15; scripts/test installs it)")
        if not Nginx.installed():
            raise RuntimeError("nginx is not installed (apt-get install nginx; scripts/test installs it)")
        if not os.path.exists(self.binary):
            raise RuntimeError(f"{self.binary} is missing: build it first (swift build --product latchkey)")
        self.directory.mkdir(parents=True, exist_ok=True)
        # PostgreSQL runs as its own user and nginx's workers as nobody: both must reach their files here.
        self.directory.chmod(0o755)
        self.instance_ports = self.instance_ports or [free_port() for _ in range(self.count)]
        self.pids = [None] * self.count
        self.save()
        try:
            self.postgres.up()  # initdb with a new password when there is no data yet, start, createdb
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
        self.nginx.stop()
        for pid in self.pids:
            if pid and running(pid):
                os.kill(pid, signal.SIGTERM)
        for pid in self.pids:
            if pid:
                reap(pid, seconds=30)
        self.stop_postgres()
        if not keep:
            shutil.rmtree(self.directory, ignore_errors=True)

    def status(self):
        lines = [f"nginx      {self.origin:28} pid {self.nginx_pid}  {'up' if healthy(self.port) else 'DOWN'}"]
        for index, port in enumerate(self.instance_ports):
            lines.append(f"instance {index} http://127.0.0.1:{port:<11} pid {self.pids[index]}  {'up' if healthy(port) else 'DOWN'}")
        lines.append(f"postgres   {self.database_url} (password in {self.password_file})")
        return "\n".join(lines)


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
