"""pyoidc (`oic` on PyPI), a second OpenID Connect client library we did not write, against `latchkey serve
--oidc`: `oic.oic.Client` reads the provider's configuration from discovery (and its keys from jwks_uri into
its own key jar), is given the client registration the operator made (`store_registration_info`: Latchkey has
no dynamic registration), builds the authorization request with its own PKCE S256 (`add_code_challenge`)
and nonce, parses the authorization response (state checked against the one it sent), exchanges the code
(`do_access_token_request`), which verifies the id_token with pyoidc's code — signature from its key jar,
iss, aud, azp, exp, iat, and the nonce it stored for that state — and asks for userinfo with it. at_hash is
checked with pyoidc's (pyjwkest's) `left_hash`, since its token response does not check it.

The person's part (what a browser does) goes through the page's JSON API with a soft-webauthn session.
"""
import pytest
from jwkest import BadSignature, jws
from oic.exception import NotForMe
from oic.oic import Client
from oic.oic.message import (AccessTokenResponse, AuthorizationResponse, IdToken, OpenIDSchema, RegistrationResponse,
                             TokenErrorResponse)
from oic.utils.authn.client import CLIENT_AUTHN_METHOD

from oidc_support import query_of, tampered_token, without_query

REDIRECT = "https://app.example.test/pyoidc/callback"


def pyoidc_client(provider, client_id, client_secret=None, alg="ES256"):
    client = Client(client_authn_method=CLIENT_AUTHN_METHOD)
    configuration = client.provider_config(provider.issuer)
    assert configuration["issuer"] == provider.issuer
    assert client.authorization_endpoint == provider.discovery["authorization_endpoint"]
    registration = {"client_id": client_id, "redirect_uris": [REDIRECT], "id_token_signed_response_alg": alg,
                    "token_endpoint_auth_method": "client_secret_basic" if client_secret else "none"}
    if client_secret:
        registration["client_secret"] = client_secret
    client.store_registration_info(RegistrationResponse(**registration))
    client.redirect_uris = [REDIRECT]
    return client


def run_flow(provider, person, client, scope=("openid", "profile", "email")):
    """pyoidc's authorization request, the person's consent through the page's API, pyoidc's parse of the
    answer and its token request: (state, token response, the code_verifier)."""
    state = f"pyoidc-{person.account_id[:8]}-{len(client.grant)}"
    pkce, verifier = client.add_code_challenge()
    assert pkce["code_challenge_method"] == "S256"
    arguments = {"client_id": client.client_id, "response_type": "code", "scope": list(scope), "state": state,
                 "redirect_uri": REDIRECT, "nonce": f"n-{state}", **pkce}
    request = client.construct_AuthorizationRequest(request_args=arguments)
    redirect = provider.authorize(person, query_of("?" + request.to_urlencoded()))
    assert without_query(redirect) == REDIRECT
    answer = client.parse_response(AuthorizationResponse, info=redirect.split("?", 1)[1], sformat="urlencoded")
    assert isinstance(answer, AuthorizationResponse), answer
    assert answer["state"] == state and answer["iss"] == provider.issuer
    method = "client_secret_basic" if client.client_secret else "public"
    arguments = {"code": answer["code"], "redirect_uri": REDIRECT, "code_verifier": verifier}
    if method == "public":
        arguments["client_id"] = client.client_id
    tokens = client.do_access_token_request(state=state, request_args=arguments, authn_method=method if method != "public" else "")
    return state, tokens, verifier


@pytest.mark.parametrize("alg", ["ES256", "RS256"])
def test_confidential_client(provider, alg):
    client_id, secret, _ = provider.add_client(f"pyoidc {alg}", [REDIRECT], alg=alg)
    person = provider.person(f"Pyoidc {alg}", username=f"pyoidc-{alg.lower()}", email=f"pyoidc-{alg.lower()}@example.test")
    client = pyoidc_client(provider, client_id, secret, alg)
    state, tokens, _ = run_flow(provider, person, client)
    assert isinstance(tokens, AccessTokenResponse), tokens
    id_token = tokens["id_token"]  # verified by pyoidc: signature (its key jar), iss, aud, azp, exp, iat, nonce
    assert id_token.jws_header["alg"] == alg
    assert id_token["sub"] == person.account_id and id_token["nonce"] == f"n-{state}"
    assert id_token["at_hash"] == jws.left_hash(tokens["access_token"], "HS256")
    info = client.do_user_info_request(state=state, method="GET")
    assert isinstance(info, OpenIDSchema), info
    assert info["sub"] == person.account_id and info["preferred_username"] == f"pyoidc-{alg.lower()}"
    assert (info["email"], info["email_verified"]) == (f"pyoidc-{alg.lower()}@example.test", True)


def test_public_client(provider):
    client_id, secret, _ = provider.add_client("pyoidc public", [REDIRECT], public=True)
    person = provider.person("Pyoidc Public", username="pyoidc-public")
    client = pyoidc_client(provider, client_id)
    state, tokens, _ = run_flow(provider, person, client, scope=("openid", "profile"))
    assert tokens["id_token"]["sub"] == person.account_id
    assert tokens["id_token"]["at_hash"] == jws.left_hash(tokens["access_token"], "HS256")
    info = client.do_user_info_request(state=state, method="POST")  # the token in the Authorization header
    assert info["preferred_username"] == "pyoidc-public"


def test_pyoidc_refuses_a_tampered_or_foreign_id_token(provider):
    """pyoidc's verification bites on Latchkey's tokens: its key jar does not verify a tampered payload,
    and the id_token of another client is not for this one."""
    client_id, secret, _ = provider.add_client("pyoidc refusals", [REDIRECT])
    other_id, other_secret, _ = provider.add_client("pyoidc other", [REDIRECT])
    person = provider.person("Pyoidc Refusals")
    client = pyoidc_client(provider, client_id, secret)
    _, tokens, _ = run_flow(provider, person, client)
    raw = tokens["id_token"].jwt
    other = pyoidc_client(provider, other_id, other_secret)
    with pytest.raises(NotForMe):
        IdToken().from_jwt(raw, keyjar=other.keyjar).verify(iss=provider.issuer, client_id=other_id)
    assert IdToken().from_jwt(raw, keyjar=client.keyjar).verify(iss=provider.issuer, client_id=client_id)
    with pytest.raises(BadSignature):
        IdToken().from_jwt(tampered_token(raw), keyjar=client.keyjar)
    # The code used again (pyoidc sends the one it holds for the state): pyoidc reads the provider's RFC 6749
    # §5.2 error, and the access token the first use gave is refused at userinfo.
    state = list(client.grant)[0]
    error = client.do_access_token_request(state=state, request_args={"redirect_uri": REDIRECT}, authn_method="client_secret_basic")
    assert isinstance(error, TokenErrorResponse) and error["error"] == "invalid_grant", error
    assert provider.userinfo(tokens["access_token"]).status_code == 401
