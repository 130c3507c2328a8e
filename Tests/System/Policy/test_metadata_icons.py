"""Provider icons from the FIDO metadata (issue 32, items 2 and 6): a model's `icon` (a `data:` URL in the
BLOB) is served as a file of this origin at /provider-icons/{aaguid}/metadata — only a PNG, WebP or SVG of
at most 64 KiB whose bytes are of its type, with its exact Content-Type, `nosniff` and a sandboxing CSP —
and a passkey of that model says so (`provider.metadataIcon`) where the community list has no icon.
Anything else is refused: another image type, bytes that are not what the URL says, an icon too large
(dropped when the BLOB is read), a `data:` URL that is not an image. The BLOBs are test_mds.py's."""
import base64
import struct
import urllib.error
import urllib.request
import zlib

from soft_webauthn import SoftWebauthnDevice

from test_mds import BASE, SOFT_AAGUID, attestation_root, register_packed, write
# Tests/System/Support, on the path through test_mds:
from latchkey_server import Server
from metadata_blob import PKI, entry, payload
from soft_webauthn_client import as_json, unb64url

SVG_AAGUID = "cb69481e-8ff7-4039-93ec-0a2729a154a8"
WEBP_AAGUID = "2fc0579f-8113-47ea-b116-bb5a8db9202a"
GIF_AAGUID = "ee882879-721c-4913-9775-3dfcce97072a"
FAKE_PNG_AAGUID = "fa2b99dc-9e39-4257-8f92-4a30d23c4118"
HUGE_AAGUID = "149a2021-8ef6-4133-96b8-81f8d5b7f1f5"
HTML_AAGUID = "0bb43545-fd2c-4185-87dd-feb0b2916ace"
PLAIN_AAGUID = "d8522d9f-575b-4866-88a9-ba99fa02f35b"
CSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox"


def png():
    """A real 1×1 PNG."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 6, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\x00\x00\x80\xff\xff")) + chunk(b"IEND", b""))


SVG = b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><circle cx="12" cy="12" r="10"/></svg>'
WEBP = b"RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00\x2f\x00\x00\x00\x10\x07\x10\x11\x11\x88\x88\xfe\x07\x00"


def data_url(media_type, data):
    return f"data:{media_type};base64,{base64.b64encode(data).decode()}"


def fetch(server, path):
    """GET `path`: (status, headers, body bytes)."""
    try:
        with urllib.request.urlopen(f"{server.base}{path}", timeout=30) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def register_model(server, aaguid, name):
    """A passkey of the model `aaguid` (soft-webauthn with that AAGUID, attestation none): its session token."""
    device = SoftWebauthnDevice()
    device.aaguid = bytes.fromhex(aaguid.replace("-", ""))
    status, options = server.call("POST", "/api/registration/options", {"displayName": name})
    assert status == 200, options
    options["publicKey"]["challenge"] = unb64url(options["publicKey"]["challenge"])
    options["publicKey"]["user"]["id"] = unb64url(options["publicKey"]["user"]["id"])
    options["publicKey"]["attestation"] = "none"
    status, body = server.call("POST", "/api/registration/verify", {"credential": as_json(device.create(options, server.origin))})
    assert status == 201, body
    return body["token"]


def only_provider(server, token):
    status, passkeys = server.call("GET", "/api/account/passkeys", token=token)
    assert status == 200 and len(passkeys) == 1, passkeys
    return passkeys[0]["provider"]


def test_metadata_icons_are_served_checked_and_with_their_own_headers(tmp_path):
    pki = PKI()
    store = tmp_path / "authenticator.json"
    entries = [
        entry(SOFT_AAGUID, "Latchkey SoftAuthenticator", [attestation_root(store)], icon=data_url("image/png", png())),
        entry(SVG_AAGUID, "An SVG Key", icon=data_url("image/svg+xml", SVG)),
        entry(WEBP_AAGUID, "A WebP Key", icon=data_url("image/webp", WEBP)),
        entry(GIF_AAGUID, "A GIF Key", icon=data_url("image/gif", b"GIF89a\x01\x00\x01\x00\x00\x00\x00;")),
        # Says PNG, is a page: the bytes are not what the URL claims.
        entry(FAKE_PNG_AAGUID, "A Lying Key", icon=data_url("image/png", b"<html><script>alert(1)</script></html>")),
        # Over 64 KiB: dropped when the BLOB is read, never stored.
        entry(HUGE_AAGUID, "A Huge Key", icon=data_url("image/png", png() + bytes(70 * 1024))),
        entry(HTML_AAGUID, "A Page Key", icon=data_url("text/html", b"<script>alert(1)</script>")),
        entry(PLAIN_AAGUID, "A Key Without Icon"),
    ]
    files = (write(tmp_path, "blob.jwt", pki.blob(payload(9, entries))), write(tmp_path, "root.pem", pki.root_pem()))
    with Server(*BASE, "--user-verification", "preferred", "--mds-blob", files[0], "--mds-root", files[1]) as server:
        # A model the community list does not know: the metadata's name, and its PNG at …/metadata.
        status, body = register_packed(server, store, "Ada")
        assert status == 201, body
        provider = only_provider(server, body["token"])
        assert provider == {"name": "Latchkey SoftAuthenticator", "iconLight": None, "iconDark": None, "metadataIcon": True}, provider

        status, headers, image = fetch(server, f"/provider-icons/{SOFT_AAGUID}/metadata")
        assert status == 200
        assert headers["Content-Type"] == "image/png"
        assert headers["X-Content-Type-Options"] == "nosniff"
        assert headers["Content-Security-Policy"] == CSP
        assert image == png()

        # SVG and WebP are served as themselves, SVG under the same sandboxing policy; any case in the AAGUID.
        status, headers, image = fetch(server, f"/provider-icons/{SVG_AAGUID.upper()}/metadata")
        assert (status, headers["Content-Type"], headers["Content-Security-Policy"], headers["X-Content-Type-Options"], image) == (
            200, "image/svg+xml", CSP, "nosniff", SVG)
        status, headers, image = fetch(server, f"/provider-icons/{WEBP_AAGUID}/metadata")
        assert (status, headers["Content-Type"], image) == (200, "image/webp", WEBP)

        # Refused: another type, bytes that are not a PNG, too large, not an image, none at all.
        for aaguid in (GIF_AAGUID, FAKE_PNG_AAGUID, HUGE_AAGUID, HTML_AAGUID, PLAIN_AAGUID):
            status, headers, answer = fetch(server, f"/provider-icons/{aaguid}/metadata")
            assert status == 404, aaguid
            assert headers["Content-Type"].startswith("application/json")
            assert b'"no_icon"' in answer, (aaguid, answer)
        # And passkeys of those models name the model but claim no icon.
        for aaguid, name in ((GIF_AAGUID, "A GIF Key"), (FAKE_PNG_AAGUID, "A Lying Key"), (HUGE_AAGUID, "A Huge Key")):
            provider = only_provider(server, register_model(server, aaguid, f"Owner of {name}"))
            assert provider == {"name": name, "iconLight": None, "iconDark": None, "metadataIcon": False}, provider
        provider = only_provider(server, register_model(server, SVG_AAGUID, "Owner of the SVG key"))
        assert provider["metadataIcon"] is True

        # Not in the metadata; not an AAGUID; the table's own variants stay as they were.
        status, _, answer = fetch(server, "/provider-icons/00000000-0000-0000-0000-000000000001/metadata")
        assert status == 404 and b'"unknown_provider"' in answer
        status, _, answer = fetch(server, "/provider-icons/not-a-uuid/metadata")
        assert status == 400 and b'"invalid_aaguid"' in answer
        status, _, answer = fetch(server, f"/provider-icons/{SOFT_AAGUID}/icon.png")
        assert status == 404 and b'"unknown_icon"' in answer
