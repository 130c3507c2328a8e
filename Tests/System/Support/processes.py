"""The processes Latchkey's Python suites, scripts/ and deploy/cluster.py start, in one place: a free port, a
private PostgreSQL, `latchkey serve` and nginx. Standard library only, so every test venv and the plain
python3 that runs deploy/cluster.py can import it (each puts Tests/System/Support on sys.path).

- `free_port()`: a port on 127.0.0.1 that was free a moment ago (the only definition in the project's Python).
- `PrivatePostgres`: PostgreSQL 15 in a directory of its own — its own port, its Unix socket in that
  directory (`-k`), TCP on 127.0.0.1 only, run as the `postgres` OS user when we are root (PostgreSQL refuses
  to run as root). Password authentication (scram-sha-256) on TCP and the socket alike, with a random
  password in a file only its owner reads (0600). The password reaches psql, createdb and pg_ctl as
  PGPASSWORD in their environment and `latchkey serve` inside the URL in LATCHKEY_DATABASE: never argv.
- `start_latchkey(...)`: `latchkey serve` as a child process (latchkey_server.Server and deploy/cluster.py
  build on it); `healthy(port)` and `wait_until(...)` to wait for it.
- `Nginx`: nginx with a given configuration, started and stopped by pid (a later process can stop it).
- `running(pid)` and `reap(pid)`: whether a process still runs, and waiting for it to end (SIGKILL after a
  while).
"""
import os
import pathlib
import secrets
import shutil
import signal
import sys
import socket
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parents[3]
PG_BIN = "/usr/lib/postgresql/15/bin"
NGINX = "/usr/sbin/nginx"


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listened on a moment ago (the kernel's choice)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def healthy(port, timeout=1.0):
    """GET http://127.0.0.1:PORT/healthz answers 200."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=timeout) as response:
            return response.status == 200
    except OSError:
        return False


def wait_until(check, seconds, what):
    """Polls `check()` until it is true; RuntimeError naming `what` after `seconds`."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        if check():
            return
        time.sleep(0.1)
    raise RuntimeError(f"{what} did not happen within {seconds} s")


# Processes by pid (they may have been started by another process, as `scripts/cluster down` finds them).

def running(pid):
    """The process runs (a child of ours that ended is reaped; a zombie does not count)."""
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


def reap(pid, seconds=10):
    """Waits up to `seconds` for the process to end, then ends it with SIGKILL."""
    deadline = time.time() + seconds
    while time.time() < deadline and running(pid):
        time.sleep(0.05)
    if running(pid):
        os.kill(pid, signal.SIGKILL)
        while running(pid):
            time.sleep(0.05)


# PostgreSQL.

class PrivatePostgres:
    """PostgreSQL 15 in `directory` (a new temporary one by default, removed by `down()`): data in
    `directory/data`, its log in `directory/server.log`, its Unix socket in `directory`, listening on
    127.0.0.1:`port` (a free port by default). The password is in `password_file` (default
    `directory/password`). Nothing runs until `up()` (initdb when there is no data yet, start, createdb) or
    `start()` (an existing data directory)."""

    def __init__(self, directory=None, *, port=None, database="latchkey", password_file=None, settings=None):
        if directory is None:
            directory = tempfile.mkdtemp(prefix="latchkey-pg.")
        self.directory = pathlib.Path(directory)
        self.port = port or free_port()
        self.database = database
        self.password_file = pathlib.Path(password_file) if password_file else self.directory / "password"
        self.settings = dict(settings or {})  # more `-c name=value` for the server, e.g. max_connections
        self.run_as = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []

    @staticmethod
    def installed():
        return os.path.exists(f"{PG_BIN}/postgres")

    @property
    def data(self):
        return self.directory / "data"

    # The password and the addresses.

    def password(self):
        return self.password_file.read_text().strip()

    def environment(self):
        """This process's environment plus PGPASSWORD (and no PGPASSFILE), for psql, createdb and pg_ctl."""
        environment = dict(os.environ)
        environment.pop("PGPASSFILE", None)
        if self.password_file.exists():
            environment["PGPASSWORD"] = self.password()
        return environment

    def public_url(self, database=None):
        """The database's URL without its password: for messages and logs."""
        return f"postgres://postgres@127.0.0.1:{self.port}/{database or self.database}?tlsmode=disable"

    def secret_url(self, database=None):
        """The URL with the password: for LATCHKEY_DATABASE in a server's environment, never for argv."""
        password = urllib.parse.quote(self.password(), safe="")
        return f"postgres://postgres:{password}@127.0.0.1:{self.port}/{database or self.database}?tlsmode=disable"

    @property
    def url(self):
        """`secret_url()` of the default database (latchkey_server.Server puts it in LATCHKEY_DATABASE)."""
        return self.secret_url()

    # Running it.

    def _run(self, *command, check=True):
        return subprocess.run([*self.run_as, *command], check=check, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              env=self.environment())

    def _create_password_file(self):
        """A random password in a file only its owner reads (created 0600, never wider for a moment):
        PostgreSQL's user owns it when we are root, so that initdb --pwfile can read it."""
        self.password_file.unlink(missing_ok=True)  # from an `up` that failed before initdb
        descriptor = os.open(self.password_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w") as file:
            file.write(secrets.token_urlsafe(32) + "\n")
        if self.run_as:
            shutil.chown(self.password_file, "postgres")

    def init(self):
        """initdb with password authentication for the Unix socket and TCP alike: no local user gets in
        without the password."""
        self.directory.mkdir(parents=True, exist_ok=True)
        if self.run_as:
            shutil.chown(self.directory, "postgres")
        self._create_password_file()
        self._run(f"{PG_BIN}/initdb", "-D", str(self.data), "--auth=scram-sha-256", f"--pwfile={self.password_file}",
                  "-U", "postgres", "-E", "UTF8")

    def start(self):
        """Starts the server on the existing data directory and waits until it accepts connections."""
        options = f"-p {self.port} -k {self.directory} -c listen_addresses=127.0.0.1"
        options += "".join(f" -c {name}={value}" for name, value in self.settings.items())
        self._run(f"{PG_BIN}/pg_ctl", "-D", str(self.data), "-l", str(self.directory / "server.log"), "-w", "-o", options, "start")

    def up(self):
        """initdb (when there is no data directory yet), start, and create the database; returns self."""
        if not self.installed():
            raise RuntimeError("PostgreSQL 15 is not installed (apt-get install postgresql-15; scripts/test installs it)")
        fresh = not self.data.exists()
        if fresh:
            self.init()
        self.start()
        self._run(f"{PG_BIN}/createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", self.database, check=fresh)
        return self

    def stop(self, mode="fast"):
        """`fast` for a clean stop; `immediate` stops it as a crash would (it recovers from its log at the
        next start). Quiet when it is not running."""
        self._run(f"{PG_BIN}/pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop", check=False)

    def crash(self):
        """Stops the server at once, without a checkpoint (`-m immediate`), as a crash would."""
        self._run(f"{PG_BIN}/pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")

    def down(self):
        """Stops the server and removes its directory (and the password file)."""
        self.stop()
        shutil.rmtree(self.directory, ignore_errors=True)
        self.password_file.unlink(missing_ok=True)

    def query(self, sql, database=None):
        """Rows of `sql` through psql (never prompting: -w), as lists of strings."""
        output = subprocess.run(
            [*self.run_as, f"{PG_BIN}/psql", "-w", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres",
             "-d", database or self.database, "-At", "-F", "\t", "-c", sql],
            check=True, capture_output=True, text=True, env=self.environment()).stdout
        return [line.split("\t") for line in output.splitlines() if line]

    def restore(self, sql, database=None):
        """Runs the SQL text `sql` (a plain `pg_dump`, say) through psql on its standard input, stopping at
        the first error."""
        subprocess.run(
            [*self.run_as, f"{PG_BIN}/psql", "-w", "-q", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres",
             "-d", database or self.database, "-v", "ON_ERROR_STOP=1", "-f", "-"],
            input=sql, check=True, capture_output=True, text=True, env=self.environment())

    def dump(self, database=None):
        """The database as plain SQL (`pg_dump`, without owners or privileges, so it restores anywhere)."""
        return subprocess.run(
            [*self.run_as, f"{PG_BIN}/pg_dump", "-w", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres",
             "--no-owner", "--no-privileges", database or self.database],
            check=True, capture_output=True, text=True, env=self.environment()).stdout

    def __enter__(self):
        return self.up()

    def __exit__(self, *exc):
        self.down()


# latchkey serve.

def latchkey_binary():
    """$LATCHKEY_BIN, or the debug build in this checkout."""
    return os.environ.get("LATCHKEY_BIN") or str(ROOT / ".build" / "debug" / "latchkey")


def has_password(url):
    """The database URL carries a password (postgres://user:password@…)."""
    try:
        return urllib.parse.urlsplit(url).password is not None
    except ValueError:
        return False


def start_latchkey(port, flags=(), *, binary=None, host=None, origin=None, database=None, key_file=None, env=None,
                   stdout=None, stderr=None, new_session=False):
    """`latchkey serve --port PORT` as a child process (not waited for: see `healthy`), with `--host` and
    `--origin` when given, then `flags`. `database`: a URL with a password goes in LATCHKEY_DATABASE in its
    environment (never argv, where `ps` shows it to every user); any other (sqlite:PATH) in `--database`.
    `key_file` is LATCHKEY_KEY_FILE: every server on one database must share one key file (it wraps the
    keys kept in the database). `env` adds to this process's environment (it may override the key file;
    a database URL with a password wins over it). stdin is /dev/null; stdout and stderr as given."""
    command = [binary or latchkey_binary(), "serve"]
    if host:
        command += ["--host", host]
    command += ["--port", str(port)]
    if origin:
        command += ["--origin", origin]
    environment = dict(os.environ)
    if key_file:
        environment["LATCHKEY_KEY_FILE"] = str(key_file)
    environment.update(env or {})
    if database and has_password(database):
        environment["LATCHKEY_DATABASE"] = database
    elif database:
        command += ["--database", database]
    return subprocess.Popen([*command, *flags], stdout=stdout, stderr=stderr, stdin=subprocess.DEVNULL, env=environment,
                            start_new_session=new_session)


# nginx.

class Nginx:
    """nginx with its prefix (and logs: `error.log`, `stderr.log`) in `prefix`, answering on `port`. Stopped
    by pid, so a process other than the one that started it can stop it."""

    def __init__(self, prefix, port, pid=None):
        self.prefix = pathlib.Path(prefix)
        self.port = port
        self.pid = pid

    @staticmethod
    def installed():
        return os.path.exists(NGINX)

    def start(self, conf, ready=None, seconds=30):
        """Starts nginx with the configuration file `conf` in a session of its own and waits until `ready()`
        (default: /healthz answers 200 on its port, through nginx)."""
        self.prefix.mkdir(parents=True, exist_ok=True)
        ready = ready or (lambda: healthy(self.port))
        with open(self.prefix / "stderr.log", "a") as log:
            process = subprocess.Popen([NGINX, "-p", str(self.prefix), "-c", str(conf), "-e", str(self.prefix / "error.log")],
                                       stdout=log, stderr=log, stdin=subprocess.DEVNULL, start_new_session=True)
        self.pid = process.pid
        wait_until(lambda: ready() or not running(process.pid), seconds, f"nginx answering on {self.port}")
        if not running(process.pid):
            raise RuntimeError(f"nginx did not start: see {self.prefix / 'error.log'}")

    def stop(self):
        """SIGQUIT (a graceful stop: it finishes its requests), then waits for it."""
        if self.pid and running(self.pid):
            os.kill(self.pid, signal.SIGQUIT)
            reap(self.pid)


# From the shell: scripts/postgres.sh starts the PostgreSQL of scripts/test's Swift tests this way, so
# that every private PostgreSQL of the project is made by PrivatePostgres (password authentication).

def main(arguments):
    """`processes.py postgres-up DIR DATABASE [name=value …]` starts a PostgreSQL in DIR with DATABASE and
    prints its URL (password included, for LATCHKEY_TEST_POSTGRES_URL); `processes.py postgres-down DIR`
    stops it and removes DIR. The port is remembered in DIR/port between the two."""
    if len(arguments) >= 3 and arguments[0] == "postgres-up":
        directory, database = arguments[1], arguments[2]
        settings = dict(setting.split("=", 1) for setting in arguments[3:])
        postgres = PrivatePostgres(directory, database=database, settings=settings).up()
        (pathlib.Path(directory) / "port").write_text(str(postgres.port))
        print(postgres.secret_url())
        return 0
    if len(arguments) == 2 and arguments[0] == "postgres-down":
        directory = pathlib.Path(arguments[1])
        port = int((directory / "port").read_text()) if (directory / "port").exists() else None
        PrivatePostgres(directory, port=port).down()
        return 0
    print("usage: processes.py postgres-up DIR DATABASE [name=value ...] | postgres-down DIR", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
