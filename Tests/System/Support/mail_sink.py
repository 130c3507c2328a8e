"""A real SMTP server for the tests of Latchkey's mail: aiosmtpd (PyPI, in the venvs that use this module:
soft_webauthn and browser) on a free port of 127.0.0.1, in a thread of the test's own process, keeping
every message it is given. Also: how many of the server's mail jobs are over (`latchkey_mail_jobs_total`
in /metrics), which the tests wait for before they say that no mail came."""
import email
import email.policy
import re
import threading
import time
import urllib.request

from processes import free_port


class MailSink:
    """`with MailSink() as smtp:` — aiosmtpd listening at `smtp.url` until the block ends. With `tls` (an
    `ssl.SSLContext` holding the server's certificate) it speaks TLS from the first byte (smtps); with
    `login` (user, password) it takes mail only after AUTH with them."""

    def __init__(self, tls=None, login=None):
        from aiosmtpd.controller import Controller  # imported here: only the venvs that run mail tests have it
        self.messages = []
        self.logins = []
        self.lock = threading.Lock()
        self.port = free_port()
        self.tls = tls
        options = {}
        if login:
            # aiosmtpd counts only STARTTLS as TLS for AUTH; with `tls` every byte is encrypted already.
            options = {"authenticator": self._authenticator(*login), "auth_required": True, "auth_require_tls": tls is None}
        self.controller = Controller(self, hostname="127.0.0.1", port=self.port, ssl_context=tls, **options)

    def _authenticator(self, user, password):
        from aiosmtpd.smtp import AuthResult, LoginPassword

        def check(server, session, envelope, mechanism, data):
            accepted = isinstance(data, LoginPassword) and data.login == user.encode() and data.password == password.encode()
            if accepted:
                with self.lock:
                    self.logins.append((mechanism, user))
            return AuthResult(success=accepted, handled=False)  # handled=False: aiosmtpd answers a refusal with 535
        return check

    @property
    def url(self):
        return f"{'smtps' if self.tls else 'smtp'}://127.0.0.1:{self.port}"

    def __enter__(self):
        self.controller.start()
        return self

    def __exit__(self, *exc):
        self.controller.stop()

    async def handle_DATA(self, server, session, envelope):
        """aiosmtpd's hook: the message as it came, with its envelope."""
        with self.lock:
            self.messages.append((envelope.mail_from, list(envelope.rcpt_tos), envelope.original_content or envelope.content))
        return "250 OK"

    def count(self):
        with self.lock:
            return len(self.messages)

    def wait(self, number, timeout=30):
        """The `number`th message (from 1) once it has come: (sender, recipients, raw bytes, parsed)."""
        deadline = time.time() + timeout
        while self.count() < number:
            assert time.time() < deadline, f"no mail number {number} within {timeout} s (have {self.count()})"
            time.sleep(0.05)
        with self.lock:
            sender, recipients, raw = self.messages[number - 1]
        return sender, recipients, raw, email.message_from_bytes(raw, policy=email.policy.default)


def body_text(message):
    """A parsed message's decoded text, its line ends as Python writes them."""
    return message.get_content().replace("\r\n", "\n")


def confirmation_token(message, origin):
    """The token of the confirmation link (`ORIGIN/verify-email#TOKEN`) in a mail."""
    match = re.search(re.escape(origin) + r"/verify-email#([A-Za-z0-9_-]{43})\b", body_text(message))
    assert match, body_text(message)
    return match.group(1)


def jobs_done(port):
    """`latchkey_mail_jobs_total` of the server on `port`: its mail jobs that are over, whatever came of them."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as response:
        text = response.read().decode()
    match = re.search(r"^latchkey_mail_jobs_total(?:\{[^}]*\})? (\d+)", text, re.MULTILINE)
    return int(match.group(1)) if match else 0


def wait_for_jobs(port, count, timeout=30):
    """Until `count` mail jobs of the server on `port` are over."""
    deadline = time.time() + timeout
    while jobs_done(port) < count:
        assert time.time() < deadline, f"the outbox did not finish {count} jobs within {timeout} s"
        time.sleep(0.05)
