"""The device authorization grant (RFC 8628) against `latchkey serve --oidc`, from two clients we did not
write into the server: a hand-written RFC 8628 client here (requests; the wire exactly as the RFC's §3.1–3.5
puts it, with authlib's JOSE code verifying the id_token), and `latchkey login --device`, the CLI, end to end.
The person's part — the verification page's JSON API — goes through a soft-webauthn session
(oidc_support.Person), as the browser stage does it in Chromium (Tests/System/Browser/test_oidc_device_page.py)."""
import json
import re
import subprocess
import time
import warnings

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from authlib.jose import JsonWebKey, JsonWebToken

import zxingcpp
from PIL import Image

from processes import latchkey_binary

DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"


def add_device_client(provider, name, *extra):
    """`latchkey admin clients add NAME --public --grant device_code`: the client id."""
    made = json.loads(provider.admin("clients", "add", name, "--public", "--grant", "device_code",
                                     "--scope", "openid profile offline_access", *extra, "--json").stdout)
    assert made["client"]["grantTypes"] == [DEVICE_GRANT], made
    return made["client"]["id"]


class DeviceClient:
    """RFC 8628 from the client's side, by hand."""

    def __init__(self, provider, client_id):
        self.provider = provider
        self.client_id = client_id

    def start(self, scope="openid profile offline_access"):
        response = self.provider.http.post(self.provider.endpoint("device_authorization_endpoint"),
                                           data={"client_id": self.client_id, "scope": scope}, timeout=10)
        assert response.status_code == 200, response.text
        assert response.headers["Cache-Control"] == "no-store"
        return response.json()

    def poll(self, device_code):
        response = self.provider.http.post(self.provider.endpoint("token_endpoint"),
                                           data={"grant_type": DEVICE_GRANT, "device_code": device_code, "client_id": self.client_id},
                                           timeout=10)
        return response.status_code, response.json()


def decide(provider, person, user_code, allow=None):
    body = {"userCode": user_code}
    if allow is not None:
        body["allow"] = allow
    response = provider.http.post(provider.url("/api/oidc/device"), json=body,
                                  headers={"Authorization": f"Bearer {person.token}"}, timeout=10)
    return response.status_code, response.json()


def test_a_hand_written_client_polls_while_the_person_allows(provider):
    discovery = provider.discovery
    assert discovery["device_authorization_endpoint"] == discovery["issuer"] + "/oidc/device"
    assert DEVICE_GRANT in discovery["grant_types_supported"]
    client_id = add_device_client(provider, "Build server CLI")
    client = DeviceClient(provider, client_id)
    started = client.start()
    assert started["verification_uri"] == discovery["issuer"] + "/device"
    assert started["verification_uri_complete"].endswith("?user_code=" + started["user_code"])
    assert started["expires_in"] == 600 and started["interval"] == 5

    assert client.poll(started["device_code"]) == (400, {"error": "authorization_pending", "error_description": "The person has not answered yet."})
    status, fast = client.poll(started["device_code"])
    assert (status, fast["error"]) == (400, "slow_down"), fast  # polled sooner than the interval

    person = provider.person("Device Person")
    status, shown = decide(provider, person, started["user_code"].lower())
    assert status == 200 and shown["client"]["name"] == "Build server CLI" and shown["scopes"] == ["openid", "profile", "offline_access"], shown
    status, answered = decide(provider, person, started["user_code"], allow=True)
    assert status == 200 and answered["approved"] is True, answered

    time.sleep(10.2)  # the interval, widened by the slow_down
    status, tokens = client.poll(started["device_code"])
    assert status == 200, tokens
    claims = JsonWebToken(["ES256", "RS256"]).decode(tokens["id_token"], JsonWebKey.import_key_set(provider.jwks()))
    claims.validate()
    assert claims["iss"] == discovery["issuer"] and claims["aud"] == client_id and claims["sub"] == person.account_id
    assert tokens["refresh_token"] and provider.introspect(tokens["access_token"])["active"] is True
    assert provider.userinfo(tokens["access_token"]).status_code == 200
    time.sleep(5.2)
    status, again = client.poll(started["device_code"])
    assert (status, again["error"]) == (400, "invalid_grant"), again  # once

    events = json.loads(provider.admin("audit", "--event", "oidc.device_approved", "--json").stdout)["events"]
    assert [event["accountId"] for event in events if event["detail"].get("client") == client_id] == [person.account_id]


def modules_of(lines):
    """The QR code the CLI drew (upper and lower half blocks, ANSI black on white) as rows of modules."""
    rows = []
    for line in lines:
        text = re.sub(r"\x1b\[[0-9;]*m", "", line.rstrip("\n"))
        rows.append([character in "█▀" for character in text])
        rows.append([character in "█▄" for character in text])
    return rows


def decoded(rows, scale=8):
    """What zxing-cpp, a decoder we did not write, reads from the modules drawn as an image."""
    image = Image.new("L", (len(rows[0]) * scale, len(rows) * scale), 255)
    for y, row in enumerate(rows):
        for x, dark in enumerate(row):
            if dark:
                image.paste(0, (x * scale, y * scale, (x + 1) * scale, (y + 1) * scale))
    return [barcode.text for barcode in zxingcpp.read_barcodes(image)]


def test_latchkey_login_device_end_to_end(provider):
    """With --qr the address is drawn as a QR code too, which zxing-cpp reads back."""
    client_id = add_device_client(provider, "latchkey CLI")
    person = provider.person("CLI Person")
    process = subprocess.Popen([latchkey_binary(), "login", "--device", "--qr", "--client-id", client_id, "--server", provider.base],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines = []
        while not any("Waiting for you" in line for line in lines):
            line = process.stdout.readline()
            assert line, (lines, process.stderr.read())
            lines.append(line)
        user_code = next(line for line in lines if "type the code" in line).rsplit(" ", 1)[1].rstrip(".\n")
        address = next(line for line in lines if line.startswith("To sign in, open ")).split(" ")[4]
        assert address.endswith("/device?user_code=" + user_code), lines
        start = next(i for i, line in enumerate(lines) if "scan this" in line) + 1
        drawn = lines[start:next(i for i, line in enumerate(lines) if "Waiting for you" in line)]
        assert decoded(modules_of(drawn)) == [address]
        status, answered = decide(provider, person, user_code, allow=True)
        assert status == 200 and answered["approved"] is True, answered
        output, errors = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, (output, errors)
    assert f"Signed in as CLI Person (account {person.account_id})." in output, output


def test_latchkey_login_device_refused(provider):
    client_id = add_device_client(provider, "latchkey CLI refused")
    person = provider.person("Refusing CLI Person")
    process = subprocess.Popen([latchkey_binary(), "login", "--device", "--client-id", client_id, "--server", provider.base, "--json"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = ""
        while "type the code" not in line:
            line = process.stderr.readline()  # with --json the instructions go to stderr
            assert line
        user_code = line.rsplit(" ", 1)[1].rstrip(".\n")
        assert decide(provider, person, user_code, allow=False)[0] == 200
        output, errors = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 1 and "access_denied" in errors, (output, errors)
    assert "scan this" not in errors, "no QR code where the output is no terminal, unless --qr asks"


def test_refused_and_bounded(provider):
    client_id = add_device_client(provider, "Kiosk")
    client = DeviceClient(provider, client_id)
    started = client.start()
    person = provider.person("Refusing Person")
    assert decide(provider, person, started["user_code"], allow=False)[1]["approved"] is False
    status, denied = client.poll(started["device_code"])
    assert (status, denied["error"]) == (400, "access_denied"), denied
    # A client not allowed the grant.
    web_id, _, _ = provider.add_client("Web only", ["https://web.example.test/cb"], public=True)
    response = provider.http.post(provider.endpoint("device_authorization_endpoint"), data={"client_id": web_id, "scope": "openid"}, timeout=10)
    assert (response.status_code, response.json()["error"]) == (400, "unauthorized_client"), response.text
    # One address holds 20 live codes (the refused one is gone; this test runs last in the module, whose
    # server is shared); then 429 slow_down, nothing stored.
    answers = [provider.http.post(provider.endpoint("device_authorization_endpoint"), data={"client_id": client_id, "scope": "openid"},
                                  timeout=10).status_code for _ in range(25)]
    assert answers == [200] * 20 + [429] * 5, answers
