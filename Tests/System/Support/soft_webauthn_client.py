"""The two ceremonies against a running `latchkey serve`, with a soft-webauthn device (PyPI) as the
authenticator: its bytes turned into WebAuthn L3 JSON and back. Standard library only: the caller brings
the device, so every test venv can import this."""
from base64 import urlsafe_b64decode, urlsafe_b64encode


def b64url(data: bytes) -> str:
    return urlsafe_b64encode(data).decode().rstrip("=")


def unb64url(text: str) -> bytes:
    return urlsafe_b64decode(text + "=" * (-len(text) % 4))


def as_json(made):
    """soft-webauthn's PublicKeyCredential (bytes) as WebAuthn L3 JSON (base64url)."""
    return {
        "id": b64url(made["rawId"]),
        "rawId": b64url(made["rawId"]),
        "type": "public-key",
        "response": {name: b64url(value) for name, value in made["response"].items() if value is not None},
        "clientExtensionResults": {},
    }


def registration_response(server, device, display_name):
    """(status, the registration response as JSON) — or (status, the refusal) when the options call failed."""
    status, options = server.call("POST", "/api/registration/options", {"displayName": display_name})
    if status != 200:
        return status, options
    public_key = options["publicKey"]
    public_key["challenge"] = unb64url(public_key["challenge"])
    public_key["user"]["id"] = unb64url(public_key["user"]["id"])
    return status, as_json(device.create(options, server.origin))


def login_response(server, device):
    """(status, the assertion as JSON) — or (status, the refusal) when the options call failed."""
    status, options = server.call("POST", "/api/login/options")
    if status != 200:
        return status, options
    options["publicKey"]["challenge"] = unb64url(options["publicKey"]["challenge"])
    return status, as_json(device.get(options, server.origin))


def register(server, device, display_name):
    """(status, body) of the registration's verify, or of its options call when that failed."""
    status, credential = registration_response(server, device, display_name)
    if status != 200:
        return status, credential
    return server.call("POST", "/api/registration/verify", {"credential": credential})


def person(server, name="Ada"):
    """A new account, signed up with a passkey of a fresh soft-webauthn device: (account id, session token,
    the device, which signs in again). Only in the venvs that have soft-webauthn (imported here, not above)."""
    from soft_webauthn import SoftWebauthnDevice
    device = SoftWebauthnDevice()
    status, body = register(server, device, name)
    assert status == 201, body
    return body["account"]["id"], body["token"], device


def login(server, device):
    """(status, body) of the login's verify, or of its options call when that failed."""
    status, credential = login_response(server, device)
    if status != 200:
        return status, credential
    return server.call("POST", "/api/login/verify", {"credential": credential})


def add_passkey(server, token, device):
    """The add-passkey ceremony with a (restricted) session's bearer token: (status, body) of verify, or of
    options when that failed."""
    status, options = server.call("POST", "/api/registration/options", {}, token=token)
    if status != 200:
        return status, options
    options["publicKey"]["challenge"] = unb64url(options["publicKey"]["challenge"])
    options["publicKey"]["user"]["id"] = unb64url(options["publicKey"]["user"]["id"])
    credential = as_json(device.create(options, server.origin))
    return server.call("POST", "/api/registration/verify", {"credential": credential}, token=token)


def refused_everywhere_but_registration(server, token):
    """Tries a restricted session's token on every route of the served openapi.json: each must answer 403
    `recovery_session_restricted` but the add-passkey ceremony's two. Returns how many routes were tried."""
    import re
    _, document, _ = server.raw("GET", "/openapi.json")
    tried = 0
    for path, item in document["paths"].items():
        for method in [m for m in item if m in ("get", "post", "put", "patch", "delete")]:
            concrete = re.sub(r"\{[^}]+\}", "AAAA", path)
            status, body, _ = server.raw(method.upper(), concrete, body=b"{}" if method != "get" else b"", token=token)
            if (method, path) in (("post", "/api/registration/options"), ("post", "/api/registration/verify")):
                assert status != 403, (method, path, body)
            else:
                assert status == 403 and body["error"]["code"] == "recovery_session_restricted", (method, path, status, body)
            tried += 1
    return tried
