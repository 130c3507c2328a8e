"""Latchkey's mail through a real relay (issue 51): Debian's Postfix, run privately by the test
(Tests/System/Support/postfix_relay.py) on 127.0.0.1 only, given to Latchkey as smtp+starttls:// (STARTTLS asked even
on loopback), offering and requiring STARTTLS with a certificate a test CA signed. With that CA (--smtp-ca-file) the confirmation and recovery mails go
over TLS and are delivered to Postfix's mailbox, where the test reads them and follows their links. Without
it, the certificate is the permanent failure it is: one attempt, one log line naming the certificate check
and the relay, counted — not "I/O on closed channel" tried three times — and Postfix saw the client refuse
its CA.

The in-process counterpart, with a relay whose handshake breaks, is
Tests/LatchkeyServerTests/Mail/SMTPStartTLSTests.swift."""
import pathlib
import re
import sys

import mail_sink  # noqa: E402
from latchkey_server import Server  # noqa: E402
from postfix_relay import PostfixRelay  # noqa: E402
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "Recovery"))
from test_recovery import person  # noqa: E402
from test_recovery_email import SENT, failures, set_email  # noqa: E402


def mail_server(relay, *flags):
    return Server("--rate-limit", "0", "--user-verification", "preferred", "--smtp-url", relay.url,
                  "--smtp-from", "Latchkey Test <noreply@example.com>", "--recovery-email", *flags)


def text_of(message):
    """A delivered message's decoded text (quoted-printable undone), as the person reads it."""
    return message.get_payload(decode=True).decode().replace("\r\n", "\n")


def mail_lines(server):
    return [line for line in server.log_text().splitlines() if "mail sent" in line or "mail not sent" in line]


def test_confirmation_and_recovery_mails_through_postfix_over_starttls():
    with PostfixRelay() as relay, mail_server(relay, "--smtp-ca-file", relay.ca) as server:
        account, token, _ = person(server, "Ada Lovelace")
        assert set_email(server, token, "ada@latchkey.test")[0] == 200
        (confirmation,) = relay.wait(1)
        assert confirmation["To"] == "ada@latchkey.test" and confirmation["Subject"] == "Confirm your email address for Latchkey"
        # Postfix's own trace: it took the message over TLS (ESMTPS), from Latchkey's EHLO name.
        assert re.search(r"with ESMTPS id", confirmation["Received"]), confirmation["Received"]
        verification = re.search(re.escape(server.origin) + r"/verify-email#([A-Za-z0-9_-]{43})\b", text_of(confirmation))
        assert verification, text_of(confirmation)
        status, body = server.call("POST", "/api/account/email/verify", {"token": verification.group(1)}, token=token)
        assert (status, body["verified"]) == (200, True), body

        assert server.call("POST", "/api/recovery/email", {"email": "ada@latchkey.test"}) == (202, SENT)
        _, recovery = relay.wait(2)
        assert recovery["Subject"] == "Your recovery link for Latchkey"
        code = re.search(re.escape(server.origin) + r"/recover#([A-Z2-7]{5}(?:-[A-Z2-7]{5}){4})", text_of(recovery))
        assert code, text_of(recovery)
        status, session = server.call("POST", "/api/recovery/exchange", {"code": code.group(1)})
        assert status == 201 and session["account"]["id"] == account, session

        lines = mail_lines(server)
        assert len(lines) == 2 and all("mail sent" in line for line in lines), lines
        assert failures(server) == 0
        tls = re.findall(r"TLS connection established from \S+: (TLSv[\d.]+)", relay.log())
        assert len(tls) == 2, relay.log()
        assert "Must issue a STARTTLS command first" not in relay.log()


def test_a_certificate_latchkey_does_not_trust_after_starttls_is_one_permanent_failure():
    with PostfixRelay() as relay, mail_server(relay) as server:  # no --smtp-ca-file: the system's CAs only
        _, token, _ = person(server)
        assert set_email(server, token, "ada@latchkey.test")[0] == 200
        mail_sink.wait_for_jobs(server.port, 1)
        assert failures(server) == 1
        lines = mail_lines(server)
        print("\n".join(lines))  # the log line, for the record (pytest -s shows it)
        assert len(lines) == 1, lines
        (line,) = lines
        assert "mail not sent" in line and "trying again" not in line and "closed channel" not in line, line
        assert "CERTIFICATE_VERIFY_FAILED" in line and f"SMTP server {relay.address} after STARTTLS" in line, line
        assert "--smtp-ca-file" in line, line
        assert relay.messages() == []
        # Postfix's side: the client refused its CA during the handshake, once.
        assert relay.log().count("alert unknown ca") == 1, relay.log()
