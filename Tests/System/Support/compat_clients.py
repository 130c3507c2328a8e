"""Replays of the seed systems' own clients against `latchkey serve --compat …`, with a software
authenticator that does user verification, as a phone's passkey provider does.

`PKDClient` sends what PassKeysDemo's iOS client `PKD_Handler` sends (LittleGreenViper/PassKeysDemo,
Sources/PassKeysDemo/Shared/PKD_Handler/PKD_Handler.swift): the same methods, paths, query items and their
percent-encoding (`.urlQueryAllowed`, `.alphanumerics` for the credential id), headers, bodies (flat JSON
objects of standard-base64 strings) and the same reading of the answers (status 200 and
`[String: String]` bodies, the login token as the whole body, `removingPercentEncoding` on read).
One step is not the app's: that build of `login()` stops with `noAvailablePassKeys` when `allowedIDs` is
empty, and Latchkey always sends it empty (listing credential ids to anyone is PRIOR-ART weakness 2). The
replay goes on with a discoverable request, as issue 15 intends; `PKDClient.app_would_continue` says what
the unmodified app would do, and the tests pin it, so the gap stays visible.

`ShinyClient` sends what Hanko's iOS app "Shiny" sends (teamhanko/apple-wwdc21-ios-demo-shiny,
Shared/AccountManager.swift): Alamofire JSON with `"id": ""` and `"rawId": ""`, base64url; `WebPageClient`
what the demo's web page (apple-wwdc21-webauthn-example, assets/app.js) sends: `fetch` with a string body
and no content type (so `text/plain`), the browser's `Origin`, the credential's real id.
"""
import base64
import http.client
import json
import os
import struct
import urllib.parse
import uuid

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from fido2 import cbor
from fido2.cose import ES256
from fido2.utils import sha256

UP, UV, AT = 0x01, 0x04, 0x40
# Swift's CharacterSet.urlQueryAllowed: what URL(string:) leaves unencoded in a query.
URL_QUERY_ALLOWED = "!$&'()*+,-./:;=?@_~"


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Authenticator:
    """A platform passkey provider in software: one ES256 discoverable credential, `none` attestation,
    user verification on unless told otherwise, a signature counter that grows by one a use."""

    def __init__(self, user_verification=True):
        self.user_verification = user_verification
        self.credential_id = None
        self.key = None
        self.rp_id = None
        self.user_handle = None
        self.sign_count = 0

    def flags(self, extra=0):
        return UP | (UV if self.user_verification else 0) | extra

    def create(self, rp_id, challenge: bytes, user_handle: bytes, origin):
        """(clientDataJSON, attestationObject) bytes."""
        self.credential_id = os.urandom(32)
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.rp_id = rp_id
        self.user_handle = user_handle
        client_data = json.dumps({"type": "webauthn.create", "challenge": b64url(challenge), "origin": origin}).encode()
        cose_key = cbor.encode(ES256.from_cryptography_key(self.key.public_key()))
        auth_data = (sha256(rp_id.encode()) + bytes([self.flags(AT)]) + struct.pack(">I", self.sign_count) + b"\x00" * 16
                     + struct.pack(">H", len(self.credential_id)) + self.credential_id + cose_key)
        return client_data, cbor.encode({"fmt": "none", "attStmt": {}, "authData": auth_data})

    def get(self, rp_id, challenge: bytes, origin):
        """(clientDataJSON, authenticatorData, signature) bytes."""
        self.sign_count += 1
        client_data = json.dumps({"type": "webauthn.get", "challenge": b64url(challenge), "origin": origin}).encode()
        auth_data = sha256(rp_id.encode()) + bytes([self.flags()]) + struct.pack(">I", self.sign_count)
        signature = self.key.sign(auth_data + sha256(client_data), ec.ECDSA(hashes.SHA256()))
        return client_data, auth_data, signature


class HTTP:
    """One request on its own connection; the path goes out exactly as given."""

    def __init__(self, port):
        self.port = port

    def request(self, method, path, body=None, headers=None):
        """(status, body bytes, headers as a list of (name, value))."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            connection.request(method, path, body=body, headers=dict(headers or {}))
            response = connection.getresponse()
            return response.status, response.read(), response.getheaders()
        finally:
            connection.close()


def header(headers, name):
    values = [value for key, value in headers if key.lower() == name.lower()]
    return values[0] if values else None


def as_strings(body: bytes):
    """`(try? JSONSerialization.jsonObject(with:)) as? [String: String]`: the dictionary, or None."""
    try:
        value = json.loads(body)
    except ValueError:
        return None
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        return None
    return value


class PKDClient:
    """PKD_Handler's requests. `base` is the app's baseURIString path (the directory of index.php)."""

    def __init__(self, port, origin, rp_id="localhost", base="/pkd", authenticator=None):
        self.http = HTTP(port)
        self.origin = origin
        self.rp_id = rp_id
        self.base = base
        self.authenticator = authenticator or Authenticator()
        self.token = None
        self.last = None  # (status, body) of the last answer

    def url(self, query):
        return f"{self.base}/index.php?{query}"

    def get(self, query, token=None):
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        status, body, _ = self.http.request("GET", self.url(query), headers=headers)
        self.last = (status, body)
        return status, body

    def post(self, query, payload):
        data = json.dumps(payload).encode()
        status, body, _ = self.http.request(
            "POST", self.url(query), body=data, headers={"Content-Type": "application/json", "Content-Length": str(len(data))})
        self.last = (status, body)
        return status, body

    # create(passKeyName:)
    def create_challenge(self, pass_key_name, user_id=None, token=None):
        """Phase 1: (status, decoded JSON or None)."""
        user_id = user_id or str(uuid.uuid4()).upper()
        query = f"operation=create&userId={urllib.parse.quote(user_id, safe=URL_QUERY_ALLOWED)}"
        if pass_key_name:
            query += f"&displayName={urllib.parse.quote(pass_key_name, safe=URL_QUERY_ALLOWED)}"
        status, body = self.get(query, token=token)
        try:
            return status, json.loads(body)
        except ValueError:
            return status, None

    def create_payload(self, options, origin=None):
        public_key = options["publicKey"]
        client_data, attestation = self.authenticator.create(
            public_key["rp"]["id"], unb64url(public_key["challenge"]), unb64url(public_key["user"]["id"]), origin or self.origin)
        return {"clientDataJSON": b64(client_data), "attestationObject": b64(attestation)}

    def create_finish(self, payload):
        """Phase 2, read as `_postCreateResponse` does. Returns True when the app would be signed in."""
        status, body = self.post("operation=create", payload)
        values = as_strings(body)
        if status == 200 and values and values.get("bearerToken") and "displayName" in values and "credo" in values:
            self.token = values["bearerToken"]
            return True
        return False

    def create(self, pass_key_name):
        status, options = self.create_challenge(pass_key_name)
        if status != 200:
            return False
        return self.create_finish(self.create_payload(options))

    # login()
    def login_challenge(self):
        """Phase 1: (challenge, allowedIDs), as `_getLoginChallenge` reads them."""
        status, body = self.get("operation=login")
        value = json.loads(body)
        return value["challenge"], value["allowedIDs"]

    @staticmethod
    def app_would_continue(allowed_ids):
        """Whether that build of `PKD_Handler.login()` goes on to `performRequests()`: only with at least
        one id that decodes as base64 (`compactMap { Data(base64Encoded:) }.filter { !$0.isEmpty }`)."""
        decoded = []
        for text in allowed_ids:
            try:
                decoded.append(base64.b64decode(text, validate=True))
            except ValueError:
                pass
        return any(decoded)

    def login_payload(self, challenge, origin=None, credential_id=None):
        client_data, auth_data, signature = self.authenticator.get(self.rp_id, unb64url(challenge), origin or self.origin)
        id_string = b64(credential_id or self.authenticator.credential_id)
        return {"clientDataJSON": b64(client_data), "authenticatorData": b64(auth_data), "signature": b64(signature),
                "credentialId": id_string}

    def login_finish(self, payload):
        """Phase 2, read as `_postLoginResponse` does: 200 and a non-empty body is the token."""
        query = f"operation=login&credentialId={urllib.parse.quote(payload['credentialId'], safe='')}"
        status, body = self.post(query, payload)
        if status == 200 and body:
            self.token = body.decode()
            return True
        self.token = None
        return False

    def login(self):
        challenge, _allowed = self.login_challenge()
        return self.login_finish(self.login_payload(challenge))

    # read(), update(displayName:credo:), logout(), delete()
    def read(self):
        status, body = self.get("operation=read", token=self.token)
        values = as_strings(body)
        if status != 200 or not values or "displayName" not in values or "credo" not in values:
            return None
        return urllib.parse.unquote(values["displayName"]), urllib.parse.unquote(values["credo"])

    def update(self, display_name, credo):
        name = urllib.parse.quote(display_name, safe=URL_QUERY_ALLOWED)
        text = urllib.parse.quote(credo, safe=URL_QUERY_ALLOWED)
        status, _ = self.get(f"operation=update&displayName={name}&credo={text}", token=self.token)
        return status == 200

    def logout(self):
        status, _ = self.get("operation=logout", token=self.token)
        if status == 200:
            self.token = None
            return True
        return False

    def delete(self):
        status, _ = self.get("operation=delete", token=self.token)
        if status == 200:
            self.token = None
            return True
        return False


class HankoClient:
    """The Hanko demo's calls. `web=False`: Shiny (Alamofire JSON, empty ids); `web=True`: the page's
    `fetch` (a text/plain string body, the browser's Origin, the real ids)."""

    def __init__(self, port, origin, rp_id="localhost", web=False, authenticator=None):
        self.http = HTTP(port)
        self.origin = origin
        self.rp_id = rp_id
        self.web = web
        self.authenticator = authenticator or Authenticator()
        self.cookie = None  # the Cookie header value the client would send
        self.set_cookie = None  # the last Set-Cookie header

    def remember(self, headers):
        value = header(headers, "Set-Cookie")
        if value:
            self.set_cookie = value
            pair = value.split(";")[0]
            self.cookie = None if pair.endswith("=") else pair

    def get(self, path):
        headers = {"Cookie": self.cookie} if self.cookie else {}
        status, body, response_headers = self.http.request("GET", path, headers=headers)
        self.remember(response_headers)
        return status, body, response_headers

    def post(self, path, payload, origin=None):
        data = json.dumps(payload).encode()
        headers = {"Content-Length": str(len(data))}
        if self.web:
            headers["Content-Type"] = "text/plain;charset=UTF-8"
            headers["Origin"] = origin or self.origin
        else:
            headers["Content-Type"] = "application/json"
        if self.cookie:
            headers["Cookie"] = self.cookie
        status, body, response_headers = self.http.request("POST", path, body=data, headers=headers)
        self.remember(response_headers)
        return status, body, response_headers

    def registration_options(self, user_name):
        status, body, _ = self.get(f"/registration_initialize?user_name={urllib.parse.quote(user_name)}")
        return status, json.loads(body)

    def registration_payload(self, options, origin=None):
        public_key = options["publicKey"]
        client_data, attestation = self.authenticator.create(
            self.rp_id, unb64url(public_key["challenge"]),
            unb64url(public_key["user"]["id"]), origin or self.origin)
        credential_id = b64url(self.authenticator.credential_id) if self.web else ""
        return {"id": credential_id, "rawId": credential_id, "type": "public-key",
                "response": {"attestationObject": b64url(attestation), "clientDataJSON": b64url(client_data)}}

    def register(self, user_name):
        status, options = self.registration_options(user_name)
        if status != 200:
            return status
        status, _, _ = self.post("/registration_finalize", self.registration_payload(options))
        return status

    def authentication_options(self):
        status, body, _ = self.get("/authentication_initialize")
        return status, json.loads(body)

    def authentication_payload(self, options, origin=None):
        client_data, auth_data, signature = self.authenticator.get(
            self.rp_id, unb64url(options["publicKey"]["challenge"]), origin or self.origin)
        credential_id = b64url(self.authenticator.credential_id) if self.web else ""
        return {"id": credential_id, "rawId": credential_id, "type": "public-key",
                "response": {"authenticatorData": b64url(auth_data), "clientDataJSON": b64url(client_data),
                             "signature": b64url(signature), "userHandle": b64url(self.authenticator.user_handle)}}

    def sign_in(self):
        status, options = self.authentication_options()
        if status != 200:
            return status
        status, _, _ = self.post("/authentication_finalize", self.authentication_payload(options))
        return status
