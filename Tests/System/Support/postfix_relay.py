"""Debian's Postfix as a private relay for the mail tests (issue 51): its own configuration, queue, log and
mailbox in a temporary directory (`postfix -c DIR`), never the system's. It listens on 127.0.0.1 only, as
every server in the tests (Latchkey is given smtp+starttls://, which asks for STARTTLS even on loopback),
offers STARTTLS with a certificate a test CA signed for 127.0.0.1 and takes no mail without it
(`smtpd_tls_security_level = encrypt`), and delivers mail for @latchkey.test to one mbox file on this
machine (virtual(8)); `mynetworks` is loopback, the only client there is. Postfix's
master runs as root, so these tests do too (scripts/test runs as root: scripts/provision installs Postfix).
Standard library only."""
import mailbox
import os
import pathlib
import shutil
import socket
import subprocess
import tempfile
import time

from certificates import CertificateAuthority
from processes import free_port, running

POSTFIX = "/usr/sbin/postfix"
POSTCONF = "/usr/sbin/postconf"
DOMAIN = "latchkey.test"
ADDRESS = "127.0.0.1"  # loopback only, as every server in the tests


class PostfixRelay:
    """`with PostfixRelay() as relay:` — Postfix at `relay.url` (smtp+starttls://127.0.0.1:PORT) until the block ends,
    then stopped. `relay.ca` is the CA file to give Latchkey (--smtp-ca-file); `relay.messages()` the mail
    delivered so far; `relay.log()` Postfix's own log."""

    def __init__(self):
        if os.geteuid() != 0:
            raise AssertionError("Postfix's master runs as root: run this test as root (scripts/test does)")
        if not os.access(POSTFIX, os.X_OK):
            raise AssertionError(f"{POSTFIX} is missing: scripts/provision installs Debian's postfix")
        self.address = ADDRESS
        self.port = free_port()
        self.directory = pathlib.Path(tempfile.mkdtemp(prefix="latchkey-postfix-"))
        self.directory.chmod(0o755)  # Postfix's daemons, running as the postfix user, go through it
        self.config = self.directory / "etc"
        self.mail = self.directory / "mail"
        self.ca_authority = CertificateAuthority(self.directory / "tls", name="Latchkey test relay CA")
        self.ca = str(self.ca_authority.certificate)
        self.master_pid = None

    @property
    def url(self):
        return f"smtp+starttls://{self.address}:{self.port}"

    def _postconf(self, *arguments):
        subprocess.run([POSTCONF, "-c", str(self.config), *arguments], check=True, capture_output=True, text=True)

    def _configure(self):
        chain, key = self.ca_authority.issue("relay", 2, hosts=(), addresses=(self.address,))
        (self.directory / "tls").chmod(0o755)
        self.config.mkdir()
        shutil.copy("/etc/postfix/master.cf", self.config / "master.cf")
        (self.config / "main.cf").write_text("")
        for name in ("queue", "data", "mail"):
            (self.directory / name).mkdir()
        shutil.chown(self.directory / "data", user="postfix")
        shutil.chown(self.mail, user="nobody", group="nogroup")
        nobody = pathlib.Path(self.mail).stat()
        self._postconf(
            "-e", "compatibility_level=3.6", f"queue_directory={self.directory / 'queue'}",
            f"data_directory={self.directory / 'data'}", "mail_owner=postfix", "setgid_group=postdrop",
            f"myhostname=relay.{DOMAIN}", f"mydomain={DOMAIN}", "mydestination=", f"inet_interfaces={self.address}",
            "inet_protocols=ipv4", f"mynetworks={self.address}/32", "relayhost=", "alias_maps=", "alias_database=",
            "smtpd_peername_lookup=no", "smtputf8_enable=no",
            # Every address @latchkey.test goes to the one mbox file mail/mailbox.
            f"virtual_mailbox_domains={DOMAIN}", f"virtual_mailbox_base={self.mail}", "virtual_mailbox_maps=static:mailbox",
            f"virtual_uid_maps=static:{nobody.st_uid}", f"virtual_gid_maps=static:{nobody.st_gid}",
            # STARTTLS offered and required, as the relay of issue 51.
            f"smtpd_tls_cert_file={chain}", f"smtpd_tls_key_file={key}", "smtpd_tls_security_level=encrypt", "smtpd_tls_loglevel=1",
            f"maillog_file={self.directory / 'maillog'}", f"maillog_file_prefixes=/var,/dev/stdout,{self.directory}")
        # Its own listener instead of port 25, and no daemon chrooted (the queue directory holds no copy of /etc).
        self._postconf("-M", "-e", f"{self.address}:{self.port}/inet={self.address}:{self.port} inet n - n - - smtpd")
        self._postconf("-M", "-X", "smtp/inet")
        self._postconf("-F", "*/*/chroot=n")

    def __enter__(self):
        try:
            self._configure()
            subprocess.run([POSTFIX, "-c", str(self.config), "check"], check=True, capture_output=True, text=True)
            started = subprocess.run([POSTFIX, "-c", str(self.config), "start"], capture_output=True, text=True)
            assert started.returncode == 0, f"postfix start: {started.stderr}\n{self.log()}"
            self._wait_for_greeting()
            pid_file = self.directory / "queue" / "pid" / "master.pid"
            self.master_pid = int(pid_file.read_text().split()[0])
        except BaseException:
            self.__exit__()
            raise
        return self

    def _wait_for_greeting(self, seconds=30):
        deadline = time.time() + seconds
        while True:
            try:
                with socket.create_connection((self.address, self.port), timeout=2) as connection:
                    if connection.recv(512).startswith(b"220 "):
                        return
            except OSError:
                pass
            assert time.time() < deadline, f"Postfix did not greet on {self.url} within {seconds} s:\n{self.log()}"
            time.sleep(0.1)

    def __exit__(self, *exc):
        if self.config.exists():
            subprocess.run([POSTFIX, "-c", str(self.config), "stop"], capture_output=True, text=True)
        if self.master_pid:
            deadline = time.time() + 30
            while running(self.master_pid):
                assert time.time() < deadline, f"Postfix's master ({self.master_pid}) did not stop"
                time.sleep(0.1)
        shutil.rmtree(self.directory, ignore_errors=True)

    def log(self):
        path = self.directory / "maillog"
        return path.read_text(errors="replace") if path.exists() else ""

    def messages(self):
        """The messages delivered to the mailbox so far, oldest first (email.message.Message)."""
        path = self.mail / "mailbox"
        if not path.exists():
            return []
        return list(mailbox.mbox(str(path), create=False))

    def wait(self, count, timeout=30):
        """The first `count` delivered messages, once there are that many."""
        deadline = time.time() + timeout
        while len(self.messages()) < count:
            assert time.time() < deadline, f"{count} mails not delivered within {timeout} s:\n{self.log()}"
            time.sleep(0.1)
        return self.messages()[:count]
