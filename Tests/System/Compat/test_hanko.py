"""Hanko's WWDC21 passkey demo clients against `latchkey serve --compat hanko` (issue 15.2).

Two replays (see Support/compat_clients.py): the iOS app "Shiny" (Alamofire JSON, `"id": ""`, `"rawId": ""`,
base64url, the user handle) and the demo's web page (`fetch` with a text/plain string body, the browser's
Origin, the real credential id). Each goes through the whole journey — registration_initialize,
registration_finalize (session cookie), content, logout, authentication_initialize,
authentication_finalize, content — and the cookie's flags, the Origin check, single-use challenges, UV,
HTML escaping and the app-site association are checked. Real processes on free ports, stopped by the test.
"""
import json

from latchkey_server import Server
from compat_clients import Authenticator, HTTP, HankoClient, header

import pytest

COMPAT = ("--compat", "hanko", "--rate-limit", "0")


@pytest.fixture(scope="module")
def server():
    with Server(*COMPAT, "--apple-app-id", "ABCDE12345.io.hanko.shiny") as instance:
        yield instance


def cookie_attributes(set_cookie):
    return {part.strip().split("=")[0].lower() for part in set_cookie.split(";")[1:]}


@pytest.mark.parametrize("web", [False, True], ids=["shiny-ios", "web-page"])
def test_the_whole_journey(server, web):
    app = HankoClient(server.port, server.origin, web=web)
    status, options = app.registration_options("alice")
    assert status == 200
    public_key = options["publicKey"]
    # What Shiny's models decode, and what the demo asked Hanko for.
    assert public_key["user"]["username"] == public_key["user"]["name"] == public_key["user"]["displayName"] == "alice"
    assert public_key["authenticatorSelection"]["authenticatorAttachment"] == "platform"
    assert public_key["authenticatorSelection"]["userVerification"] == "required"
    assert public_key["authenticatorSelection"]["requireResidentKey"] is True
    assert public_key["attestation"] == "none"
    status, body, _ = app.post("/registration_finalize", app.registration_payload(options))
    assert status == 200, body
    assert json.loads(body)["credential"]["user"]["name"] == "alice"
    assert app.cookie and cookie_attributes(app.set_cookie) >= {"httponly", "samesite", "path", "max-age"}
    assert "samesite=strict" in app.set_cookie.lower().replace(" ", "") and "secure" not in cookie_attributes(app.set_cookie)
    status, page, _ = app.get("/content")
    assert status == 200 and b"alice" in page
    status, _, headers = app.get("/logout")
    assert status == 307 and header(headers, "Location") == "/" and app.cookie is None
    status, _, headers = app.get("/content")
    assert status == 307 and header(headers, "Location") == "/"
    status, options = app.authentication_options()
    assert status == 200
    assert options["publicKey"]["allowCredentials"] == [] and options["publicKey"]["userVerification"] == "required"
    status, body, _ = app.post("/authentication_finalize", app.authentication_payload(options))
    assert status == 200, body
    status, page, _ = app.get("/content")
    assert status == 200 and b"alice" in page


def test_the_logged_out_cookie_no_longer_works(server):
    app = HankoClient(server.port, server.origin)
    assert app.register("bob") == 200
    stolen = app.cookie
    app.get("/logout")
    status, _, _ = HTTP(server.port).request("GET", "/content", headers={"Cookie": stolen})
    assert status == 307


def test_the_same_name_twice_reveals_nothing(server):
    assert HankoClient(server.port, server.origin).register("carol") == 200
    assert HankoClient(server.port, server.origin).register("carol") == 200


def test_a_user_with_several_passkeys_signs_in_from_shiny(server):
    first = HankoClient(server.port, server.origin)
    assert first.register("dave") == 200
    # A second passkey on the same account, added through Latchkey's own API with the session cookie.
    token = first.cookie.split("=", 1)[1]
    status, options = server.call("POST", "/api/registration/options", {}, token=token)
    assert status == 200
    second = Authenticator()
    public_key = options["publicKey"]
    from compat_clients import b64url, unb64url
    client_data, attestation = second.create("localhost", unb64url(public_key["challenge"]), unb64url(public_key["user"]["id"]), server.origin)
    credential = {"id": b64url(second.credential_id), "rawId": b64url(second.credential_id), "type": "public-key",
                  "response": {"clientDataJSON": b64url(client_data), "attestationObject": b64url(attestation)}}
    assert server.call("POST", "/api/registration/verify", {"credential": credential}, token=token)[0] == 201
    app = HankoClient(server.port, server.origin, authenticator=second)
    assert app.sign_in() == 200
    assert b"dave" in app.get("/content")[1]


def test_a_post_from_another_site_is_refused(server):
    app = HankoClient(server.port, server.origin, web=True)
    status, options = app.registration_options("eve")
    status, body, _ = app.post("/registration_finalize", app.registration_payload(options), origin="https://evil.example")
    assert status == 403 and json.loads(body)["code"] == "origin_not_allowed"


def test_challenges_are_single_use_and_uv_is_required(server):
    app = HankoClient(server.port, server.origin)
    assert app.register("frank") == 200
    status, options = app.authentication_options()
    payload = app.authentication_payload(options)
    assert app.post("/authentication_finalize", payload)[0] == 200
    status, body, _ = app.post("/authentication_finalize", payload)
    assert status == 401 and json.loads(body)["code"] == "unknown_challenge"
    no_uv = HankoClient(server.port, server.origin, authenticator=Authenticator(user_verification=False))
    status, options = no_uv.registration_options("grace")
    status, body, _ = no_uv.post("/registration_finalize", no_uv.registration_payload(options))
    assert status == 401 and json.loads(body)["code"] == "user_not_verified"


def test_unknown_user_handle_is_404_and_garbage_is_4xx(server):
    app = HankoClient(server.port, server.origin)
    assert app.register("heidi") == 200
    stranger = HankoClient(server.port, server.origin, authenticator=app.authenticator)
    app.authenticator.user_handle = b"\x01" * 64
    assert stranger.sign_in() == 404
    http_client = HTTP(server.port)
    for path, body in [("/registration_finalize", b"{}"), ("/authentication_finalize", b"[" * 600),
                       ("/registration_finalize", b'{"id":"","rawId":"","type":"public-key","response":{"clientDataJSON":"","attestationObject":""}}')]:
        status, answer, _ = http_client.request("POST", path, body=body, headers={"Content-Type": "application/json"})
        assert 400 <= status < 500, (path, status)
        assert isinstance(json.loads(answer)["error"], str)
    assert http_client.request("GET", "/registration_initialize")[0] == 400
    assert http_client.request("GET", "/registration_initialize?user_name=" + "x" * 256)[0] == 422


def test_content_escapes_the_name(server):
    app = HankoClient(server.port, server.origin)
    assert app.register("<script>alert(1)</script>") == 200
    status, page, headers = app.get("/content")
    assert status == 200 and b"<script>alert" not in page and b"&lt;script&gt;" in page
    assert "default-src" in (header(headers, "Content-Security-Policy") or "")


def test_apple_app_site_association(server):
    status = server.call("GET", "/.well-known/apple-app-site-association")
    assert status == (200, {"webcredentials": {"apps": ["ABCDE12345.io.hanko.shiny"]}})


def test_secure_host_cookie_over_https():
    with Server(*COMPAT, "--origin", "https://localhost") as server:
        app = HankoClient(server.port, "https://localhost")
        assert app.register("ivan") == 200
        assert app.set_cookie.startswith("__Host-latchkey_session=")
        assert {"secure", "httponly", "samesite"} <= cookie_attributes(app.set_cookie)


def test_off_by_default():
    with Server("--rate-limit", "0") as server:
        for path in ("/registration_initialize?user_name=x", "/authentication_initialize", "/content", "/logout"):
            assert HTTP(server.port).request("GET", path)[0] == 404
