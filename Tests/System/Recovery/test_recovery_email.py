"""Email for recovery (issue 30, item 4) against a real `latchkey serve` and a real SMTP server, aiosmtpd, run
by the test on 127.0.0.1: the person gives an address; the confirmation mail is read as it arrived and its
link's token confirms the address; "email me a recovery link" mails a link and code that are exchanged, a
passkey is added with a second soft authenticator and signs in. An unknown or unconfirmed address gets the
same answer and no mail; the per-address and per-account limits hold; the token and the code are nowhere
in the database file in clear; without --smtp-url or --recovery-email the routes say not_enabled.

The mail is sent after the answer (the server's outbox): the tests wait for `latchkey_mail_jobs_total` in
/metrics, which counts every job once it is over, whatever came of it, before they say no mail came."""
import json
import os
import pathlib
import re
import socket
import subprocess
import time
import urllib.request

import pytest
from soft_webauthn import SoftWebauthnDevice

import mail_sink
from latchkey_server import Server
from mail_sink import MailSink as SMTP, body_text
from soft_webauthn_client import login
from test_recovery import BINARY, add_passkey, admin, person

SENT = {"status": "sent-if-known"}


def mail_server(smtp, *flags):
    return Server("--rate-limit", "0", "--user-verification", "preferred", "--smtp-url", smtp.url,
                  "--smtp-from", "Latchkey Test <noreply@example.com>", *flags)


def wait_for_jobs(server, count):
    mail_sink.wait_for_jobs(server.port, count)


def set_email(server, token, address):
    return server.call("PUT", "/api/account/email", {"email": address}, token=token)


def confirmation_token(message, server):
    return mail_sink.confirmation_token(message, server.origin)


def database_bytes(server):
    path = server.database.removeprefix("sqlite:")
    data = b""
    for suffix in ("", "-wal"):
        if os.path.exists(path + suffix):
            data += pathlib.Path(path + suffix).read_bytes()
    return data


def test_a_confirmed_address_gets_a_recovery_link_that_adds_a_passkey():
    with SMTP() as smtp, mail_server(smtp, "--recovery-email") as server:
        account, token, old_device = person(server, "Ada Lovelace")
        assert server.call("GET", "/api/account/email", token=token) == (
            200, {"email": None, "verified": False, "mail": True, "recovery": True})
        assert server.call("GET", "/api/recovery/email") == (200, {"enabled": True})

        # The address, stored unconfirmed with its domain in lower case; the confirmation mail as it arrived.
        status, body = set_email(server, token, "  Ada@Example.COM ")
        assert (status, body) == (200, {"email": "Ada@example.com", "verified": False, "mail": True, "recovery": True})
        sender, recipients, raw, message = smtp.wait(1)
        assert sender == "noreply@example.com" and recipients == ["Ada@example.com"]
        assert message["To"] == "Ada@example.com" and message["From"].addresses[0].display_name == "Latchkey Test"
        assert message["Subject"] == "Confirm your email address for Latchkey" and message["Message-ID"].endswith("@example.com>")
        assert message["Auto-Submitted"] == "auto-generated" and message.get_content_type() == "text/plain"
        assert b"\r\n\r\n" in raw and b"\n" not in raw.replace(b"\r\n", b"")  # CRLF line ends only
        assert "Hello Ada Lovelace," in body_text(message)
        verification = confirmation_token(message, server)

        # Not confirmed yet: a recovery request for it sends nothing.
        assert server.call("POST", "/api/recovery/email", {"email": "ada@example.com"}) == (202, SENT)
        wait_for_jobs(server, 2)
        assert smtp.count() == 1

        # The token works for its own account only, once.
        _, other, _ = person(server, "Charles Babbage")
        assert server.call("POST", "/api/account/email/verify", {"token": verification}, token=other)[1]["error"]["code"] == "unknown_email_token"
        assert server.call("POST", "/api/account/email/verify", {"token": verification})[0] == 401
        status, body = server.call("POST", "/api/account/email/verify", {"token": verification}, token=token)
        assert (status, body) == (200, {"email": "Ada@example.com", "verified": True, "mail": True, "recovery": True})
        assert server.call("POST", "/api/account/email/verify", {"token": verification}, token=token)[0] == 404
        # The same address again (in any case) changes nothing and sends nothing.
        assert set_email(server, token, "ada@example.com")[1] == {"email": "Ada@example.com", "verified": True, "mail": True, "recovery": True}

        # The recovery link: asked for in any case of the address, mailed to it as the account has it.
        assert server.call("POST", "/api/recovery/email", {"email": "ADA@example.com"}) == (202, SENT)
        _, recipients, raw, message = smtp.wait(2)
        assert recipients == ["Ada@example.com"] and message["Subject"] == "Your recovery link for Latchkey"
        text = body_text(message)
        link = re.search(re.escape(server.origin) + r"/recover#([A-Z2-7]{5}(?:-[A-Z2-7]{5}){4})", text)
        assert link, text
        code = link.group(1)
        assert f"\n{code}\n" in text and f"type this recovery code at {server.origin}/recover" in text

        # The code gives a restricted session; a new device adds its passkey and signs in with it.
        status, session = server.call("POST", "/api/recovery/exchange", {"code": code})
        assert status == 201 and session["account"]["id"] == account, session
        new_device = SoftWebauthnDevice()
        status, added = add_passkey(server, session["token"], new_device)
        assert status == 201, added
        status, signed_in = login(server, new_device)
        assert status == 200 and signed_in["account"]["id"] == account
        assert server.call("GET", "/api/account", token=token)[0] == 401, "recovery ended the old session"

        # The trail: the grant issued by email, the mail sent (no address in any event), the confirmation.
        trail = json.loads(admin(server, "audit", "--account", account, "--json").stdout)["events"]
        kinds = [event["event"] for event in trail]
        for kind in ("account.email_verified", "recovery.issued", "recovery.email_sent", "recovery.exchanged", "recovery.completed"):
            assert kind in kinds, kinds
        issued = next(event for event in trail if event["event"] == "recovery.issued")
        assert issued["actor"] == "email" and issued["detail"]["by"] == "email"
        sent = next(event for event in trail if event["event"] == "recovery.email_sent")
        assert sent["detail"] == {"grantId": issued["detail"]["grantId"]}
        assert not any("ada@example.com" in json.dumps(event["detail"]).lower() for event in trail)
        grants = json.loads(admin(server, "recovery", "list", "--account", account, "--json").stdout)
        assert grants["grants"][0]["issuedBy"] == "email" if isinstance(grants, dict) else grants[0]["issuedBy"] == "email"

        # The person's own history says it in words the page shows (the kinds are there).
        status, events = server.call("GET", "/api/account/events", token=signed_in["token"])
        assert {"recovery.email_sent", "account.email_verified"} <= {event["event"] for event in events["events"]}

        # Neither the confirmation token nor the code is in the database file in clear.
        data = database_bytes(server)
        assert verification.encode() not in data
        assert code.encode() not in data and code.replace("-", "").encode() not in data


def test_an_unknown_or_unconfirmed_address_gets_the_same_answer_and_no_mail():
    with SMTP() as smtp, mail_server(smtp, "--recovery-email") as server:
        _, token, _ = person(server)
        assert set_email(server, token, "grace@example.com")[0] == 200
        smtp.wait(1)
        answers = [server.raw("POST", "/api/recovery/email", json.dumps({"email": address}).encode())
                   for address in ("nobody@example.com", "grace@example.com", "nobody@example.org")]
        for status, body, headers in answers:
            assert (status, body) == (202, SENT)
            assert headers.get("Content-Length") == answers[0][2].get("Content-Length")
        wait_for_jobs(server, 4)
        assert smtp.count() == 1, "only the confirmation mail"

        # A malformed address is a 422 naming the field; a missing one a 400.
        status, body = server.call("POST", "/api/recovery/email", {"email": "not an address"})
        assert status == 422 and body["error"]["code"] == "email_invalid" and body["error"]["message"].startswith("email ")
        assert server.call("POST", "/api/recovery/email", {"address": "x@example.com"})[0] == 400
        for bad in ("a@b.com\r\nBcc: victim@example.com", "<a@example.com>", "a@example.com, b@example.com", "a@-example.com", "ünï@example.com"):
            status, body = set_email(server, token, bad)
            assert status == 422 and body["error"]["code"] == "email_invalid", (bad, body)


def test_the_limits_per_address_and_per_account_hold():
    with SMTP() as smtp, mail_server(smtp, "--recovery-email") as server:
        account, token, _ = person(server)
        assert set_email(server, token, "ada@example.com")[0] == 200
        verification = confirmation_token(smtp.wait(1)[3], server)
        assert server.call("POST", "/api/account/email/verify", {"token": verification}, token=token)[0] == 200
        # Three mails an address an hour, the confirmation included: four requests, two recovery mails.
        for _ in range(4):
            assert server.call("POST", "/api/recovery/email", {"email": "ada@example.com"}) == (202, SENT)
        wait_for_jobs(server, 5)
        assert smtp.count() == 3
        assert [recipients for _, recipients, _ in smtp.messages] == [["ada@example.com"]] * 3
        # Each mailed grant replaced the one before: only the newest code is outstanding.
        grants = json.loads(admin(server, "recovery", "list", "--account", account, "--json").stdout)
        grants = grants["grants"] if isinstance(grants, dict) else grants
        assert sorted(grant["state"] for grant in grants) == ["issued", "revoked"]

        # Five mails an account an hour: two more addresses, then the account's share is spent (429).
        assert set_email(server, token, "ada2@example.com")[0] == 200
        assert set_email(server, token, "ada3@example.com")[0] == 200
        status, body = set_email(server, token, "ada4@example.com")
        assert status == 429 and body["error"]["code"] == "too_many_emails", body
        assert server.call("GET", "/api/account/email", token=token)[1]["email"] == "ada3@example.com"
        wait_for_jobs(server, 7)
        assert smtp.count() == 5

        # Removing the address: nothing is left to mail to.
        assert server.call("DELETE", "/api/account/email", token=token)[0] == 204
        assert server.call("GET", "/api/account/email", token=token)[1] == {"email": None, "verified": False, "mail": True, "recovery": True}


def test_without_smtp_or_recovery_email_the_routes_say_not_enabled():
    with SMTP() as smtp, mail_server(smtp) as server:
        _, token, _ = person(server)
        assert server.call("GET", "/api/recovery/email") == (200, {"enabled": False})
        status, body = server.call("POST", "/api/recovery/email", {"email": "ada@example.com"})
        assert status == 404 and body["error"]["code"] == "not_enabled"
        assert set_email(server, token, "ada@example.com")[0] == 200, "an address can still be confirmed"
    with Server("--rate-limit", "0", "--user-verification", "preferred") as server:
        _, token, _ = person(server)
        assert server.call("GET", "/api/account/email", token=token)[1] == {"email": None, "verified": False, "mail": False, "recovery": False}
        status, body = set_email(server, token, "ada@example.com")
        assert status == 404 and body["error"]["code"] == "not_enabled"
    result = subprocess.run([BINARY, "serve", "--recovery-email", "--port", "0", "--origin", "http://localhost:1"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and "--recovery-email needs --smtp-url" in result.stderr, result.stderr


def test_a_silent_smtp_server_does_not_hold_the_answer():
    """A server that accepts the connection and never greets: the person's request is answered (the mail
    waits in the outbox for its deadline, off the request path), and the server keeps answering."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    try:
        port = listener.getsockname()[1]
        with Server("--rate-limit", "0", "--user-verification", "preferred", "--smtp-url", f"smtp://127.0.0.1:{port}",
                    "--recovery-email") as server:
            _, token, _ = person(server)
            assert set_email(server, token, "ada@example.com")[0] == 200
            assert server.call("POST", "/api/recovery/email", {"email": "ada@example.com"}) == (202, SENT)
            assert server.call("GET", "/healthz")[0] == 200
    finally:
        listener.close()


def certificate_authority(directory):
    """A CA and a certificate it signed for 127.0.0.1 (and localhost): (CA file, server context)."""
    import datetime
    import ipaddress
    import ssl

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Latchkey test mail CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
          .not_valid_after(now + datetime.timedelta(days=1))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True, content_commitment=False,
                                       key_encipherment=False, data_encipherment=False, key_agreement=False,
                                       encipher_only=False, decipher_only=False), critical=True)
          .sign(ca_key, hashes.SHA256()))
    leaf = (x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")]))
            .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                           critical=False)
            .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .sign(ca_key, hashes.SHA256()))
    ca_file, cert_file, key_file = (pathlib.Path(directory) / name for name in ("ca.pem", "server.pem", "server.key"))
    ca_file.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    cert_file.write_bytes(leaf.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert_file, key_file)
    return str(ca_file), context


def failures(server):
    text = urllib.request.urlopen(f"http://127.0.0.1:{server.port}/metrics", timeout=10).read().decode()
    match = re.search(r"^latchkey_mail_failures_total(?:\{[^}]*\})? (\d+)", text, re.MULTILINE)
    return int(match.group(1)) if match else 0


@pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")  # aiosmtpd's, about STARTTLS: this is smtps
def test_smtps_with_a_password_and_a_private_ca(tmp_path):
    """smtps:// with a user and password (given in LATCHKEY_SMTP_URL, not on the command line) to a server
    whose certificate a private CA signed (--smtp-ca-file): the mail goes over TLS after AUTH PLAIN. A
    wrong password, and a CA the server's certificate does not chain to, are failures counted at once (not
    retried) and no mail."""
    ca_file, context = certificate_authority(tmp_path)
    with SMTP(tls=context, login=("mailer", "s3cr:et@")) as smtp:
        url = f"smtps://mailer:s3cr%3Aet%40@127.0.0.1:{smtp.port}"
        with Server("--rate-limit", "0", "--user-verification", "preferred", "--smtp-ca-file", ca_file,
                    env={"LATCHKEY_SMTP_URL": url}) as server:
            _, token, _ = person(server)
            assert set_email(server, token, "ada@example.com")[0] == 200
            _, recipients, _, message = smtp.wait(1)
            assert recipients == ["ada@example.com"] and smtp.logins == [("PLAIN", "mailer")]
            assert message["From"].addresses[0].addr_spec == "noreply@localhost"
            log = pathlib.Path(server.directory.name, "server.log").read_text()
            assert "s3cr" not in log, "the password is in no log line"
        wrong = f"smtps://mailer:wrong@127.0.0.1:{smtp.port}"
        for env, flags in (({"LATCHKEY_SMTP_URL": wrong}, ("--smtp-ca-file", ca_file)), ({"LATCHKEY_SMTP_URL": url}, ())):
            with Server("--rate-limit", "0", "--user-verification", "preferred", *flags, env=env) as server:
                _, token, _ = person(server)
                assert set_email(server, token, "ada@example.com")[0] == 200
                wait_for_jobs(server, 1)
                assert failures(server) == 1
        assert smtp.count() == 1


def test_giving_or_confirming_an_address_needs_a_recent_sign_in():
    """A verified address can add a passkey, so it is changed and confirmed only with a session as recent as
    adding a passkey needs (--add-passkey-window, here its least, 10 s): a leaked older session token cannot
    plant a way back in."""
    with SMTP() as smtp, mail_server(smtp, "--recovery-email", "--add-passkey-window", "10") as server:
        _, token, device = person(server)
        assert set_email(server, token, "ada@example.com")[0] == 200
        verification = confirmation_token(smtp.wait(1)[3], server)
        time.sleep(11)  # the session is now older than the window (this waits; it measures nothing)
        status, body = server.call("POST", "/api/account/email/verify", {"token": verification}, token=token)
        assert status == 403 and body["error"]["code"] == "recent_sign_in_required", body
        status, body = set_email(server, token, "mallory@example.com")
        assert status == 403 and body["error"]["code"] == "recent_sign_in_required", body
        assert server.call("GET", "/api/account/email", token=token)[1]["email"] == "ada@example.com", "nothing changed"
        # A fresh sign-in with the passkey, and the same link works.
        status, fresh = login(server, device)
        assert status == 200
        status, body = server.call("POST", "/api/account/email/verify", {"token": verification}, token=fresh["token"])
        assert (status, body["verified"]) == (200, True), body
        # Removing it needs no fresh sign-in: it only takes a way in away.
        assert server.call("DELETE", "/api/account/email", token=token)[0] == 204
