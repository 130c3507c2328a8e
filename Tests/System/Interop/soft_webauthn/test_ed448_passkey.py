"""An Ed448 passkey against the real `latchkey serve`: soft-webauthn's device with its key swapped for
Python cryptography's Ed448, answering the server's EdDSA (-8) offer with a curve-7 key and a packed self
attestation, as an authenticator with Ed448 would. The server verifies it through OpenSSL's libcrypto
(WebAuthn's Ed448PublicKey): the sign-up, a sign-in, and a sign-in whose signature was changed.
"""
import json
import os
from struct import pack

import pytest
from cryptography.hazmat.primitives.asymmetric.ed448 import Ed448PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from fido2 import cbor
from fido2.utils import sha256
from soft_webauthn import SoftWebauthnDevice

from soft_webauthn_client import b64url, login, login_response, register, unb64url


class Ed448Device(SoftWebauthnDevice):
    """One Ed448 credential (COSE kty OKP, alg -8, crv 7), packed self attestation, UP and UV set."""

    def _client_data(self, kind, options, origin):
        challenge = b64url(options["publicKey"]["challenge"])
        return json.dumps({"type": kind, "challenge": challenge, "origin": origin}).encode()

    def create(self, options, origin):
        offered = [entry["alg"] for entry in options["publicKey"]["pubKeyCredParams"]]
        assert -8 in offered, offered
        self.credential_id = os.urandom(32)
        self.private_key = Ed448PrivateKey.generate()
        self.rp_id = options["publicKey"]["rp"]["id"]
        self.user_handle = options["publicKey"]["user"]["id"]
        x = self.private_key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        cose_key = cbor.encode({1: 1, 3: -8, -1: 7, -2: x})
        auth_data = (sha256(self.rp_id.encode()) + b"\x45" + pack(">I", self.sign_count) + self.aaguid
                     + pack(">H", len(self.credential_id)) + self.credential_id + cose_key)
        client_data = self._client_data("webauthn.create", options, origin)
        signature = self.private_key.sign(auth_data + sha256(client_data))
        attestation = {"fmt": "packed", "attStmt": {"alg": -8, "sig": signature}, "authData": auth_data}
        return {"rawId": self.credential_id, "type": "public-key",
                "response": {"clientDataJSON": client_data, "attestationObject": cbor.encode(attestation)}}

    def get(self, options, origin):
        self.sign_count += 1
        auth_data = sha256(self.rp_id.encode()) + b"\x05" + pack(">I", self.sign_count)
        client_data = self._client_data("webauthn.get", options, origin)
        return {"rawId": self.credential_id, "type": "public-key",
                "response": {"authenticatorData": auth_data, "clientDataJSON": client_data,
                             "signature": self.private_key.sign(auth_data + sha256(client_data)),
                             "userHandle": self.user_handle}}


def test_ed448_passkey_signs_up_and_in(server):
    device = Ed448Device()
    status, body = register(server, device, "Ada")
    assert status == 201, body
    token = body["token"]
    status, passkeys = server.call("GET", "/api/account/passkeys", token=token)
    assert status == 200 and len(passkeys) == 1, passkeys

    status, body = login(server, device)
    assert status == 200, body
    assert body["account"]["displayName"] == "Ada"

    # An assertion with one bit of its 114-byte signature changed is refused; the passkey still signs in after.
    status, credential = login_response(server, device)
    assert status == 200
    signature = bytearray(unb64url(credential["response"]["signature"]))
    assert len(signature) == 114
    signature[0] ^= 0x01
    credential["response"]["signature"] = b64url(bytes(signature))
    status, body = server.call("POST", "/api/login/verify", {"credential": credential})
    assert status == 401, body
    assert body["error"]["code"] == "signature_invalid"

    status, body = login(server, device)
    assert status == 200, body

