"""A private PostgreSQL 15 for one test: its own data directory, port and socket directory, listening on
127.0.0.1 only, run as the `postgres` user when we are root (PostgreSQL refuses to run as root). The test
can stop it hard (as a crash would) and start it again. Standard library only."""
import os
import shutil
import socket
import subprocess
import tempfile
import time

BIN = "/usr/lib/postgresql/15/bin"


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PrivatePostgres:
    def __init__(self, database="latchkey"):
        if not os.path.exists(f"{BIN}/postgres"):
            raise RuntimeError("PostgreSQL 15 is not installed (scripts/test installs it)")
        self.directory = tempfile.mkdtemp(prefix="latchkey-crash-pg.")
        self.port = _free_port()
        self.run_as = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        if os.geteuid() == 0:
            shutil.chown(self.directory, "postgres")
        self._run(f"{BIN}/initdb", "-D", f"{self.directory}/data", "-A", "trust", "-U", "postgres", "-E", "UTF8")
        self.start()
        self._run(f"{BIN}/createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", database)
        self.url = f"postgres://postgres@127.0.0.1:{self.port}/{database}?tlsmode=disable"
        self.database = database

    def _run(self, *command):
        subprocess.run([*self.run_as, *command], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def start(self):
        self._run(f"{BIN}/pg_ctl", "-D", f"{self.directory}/data", "-l", f"{self.directory}/server.log", "-w",
                  "-o", f"-p {self.port} -k {self.directory} -c listen_addresses=127.0.0.1", "start")

    def crash(self):
        """Stops the server at once, without a checkpoint (`-m immediate`): it recovers from its log at
        the next start, as after a crash."""
        self._run(f"{BIN}/pg_ctl", "-D", f"{self.directory}/data", "-m", "immediate", "-w", "stop")

    def query(self, sql):
        """Rows of `sql` through psql, as lists of strings."""
        output = subprocess.run(
            [*self.run_as, f"{BIN}/psql", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "-d", self.database, "-At", "-F", "\t", "-c", sql],
            check=True, capture_output=True, text=True).stdout
        return [line.split("\t") for line in output.splitlines() if line]

    def stop(self):
        try:
            self._run(f"{BIN}/pg_ctl", "-D", f"{self.directory}/data", "-m", "fast", "-w", "stop")
        except subprocess.CalledProcessError:
            pass
        shutil.rmtree(self.directory, ignore_errors=True)

    def wait_until_up(self, seconds=30):
        deadline = time.time() + seconds
        while time.time() < deadline:
            try:
                self.query("SELECT 1")
                return
            except subprocess.CalledProcessError:
                time.sleep(0.2)
        raise RuntimeError("PostgreSQL did not come back")
