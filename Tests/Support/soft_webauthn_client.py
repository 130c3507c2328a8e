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


def login(server, device):
    """(status, body) of the login's verify, or of its options call when that failed."""
    status, credential = login_response(server, device)
    if status != 200:
        return status, credential
    return server.call("POST", "/api/login/verify", {"credential": credential})
