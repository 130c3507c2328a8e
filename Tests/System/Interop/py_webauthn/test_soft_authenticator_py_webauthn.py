"""py_webauthn (duo-labs, from PyPI) verifies what Latchkey's SoftAuthenticator makes.

A peer we did not write is the check that our authenticator's bytes are right, not merely consistent
with our own verifier.
"""
import json
import os

import pytest
from webauthn import (
    generate_authentication_options,
    generate_registration_options,
    options_to_json,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers.structs import (
    AttestationConveyancePreference,
    AttestationFormat,
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)
from webauthn.helpers.cose import COSEAlgorithmIdentifier

ORIGIN = "http://localhost:8080"
RP_ID = "localhost"


def registration_options(alg, attestation):
    return generate_registration_options(
        rp_id=RP_ID,
        rp_name="Latchkey interop",
        user_name="ada",
        user_display_name="Ada",
        user_id=os.urandom(16),
        attestation=attestation,
        authenticator_selection=AuthenticatorSelectionCriteria(
            resident_key=ResidentKeyRequirement.REQUIRED,
            user_verification=UserVerificationRequirement.REQUIRED,
        ),
        supported_pub_key_algs=[alg],
    )


@pytest.mark.parametrize("alg", [COSEAlgorithmIdentifier.ECDSA_SHA_256, COSEAlgorithmIdentifier.EDDSA])
@pytest.mark.parametrize("mode", ["none", "self", "packed"])
@pytest.mark.parametrize("style", ["synced", "device-bound"])
def test_register_and_login(latchkey, alg, mode, style):
    attestation = AttestationConveyancePreference.NONE if mode == "none" else AttestationConveyancePreference.DIRECT
    options = registration_options(alg, attestation)
    args = ["authenticator", "create", "--origin", ORIGIN, "--attestation", "self" if mode == "none" else mode]
    if style == "device-bound":
        args.append("--device-bound")
    status, out, err = latchkey(*args, stdin={"publicKey": json.loads(options_to_json(options))})
    assert status == 0, err

    roots = None
    if mode == "packed":
        status, pem, err = latchkey("authenticator", "attestation-root")
        assert status == 0, err
        roots = {AttestationFormat.PACKED: [pem.encode()]}
    registration = verify_registration_response(
        credential=out,
        expected_challenge=options.challenge,
        expected_rp_id=RP_ID,
        expected_origin=ORIGIN,
        require_user_verification=True,
        pem_root_certs_bytes_by_fmt=roots,
    )
    assert registration.fmt == (AttestationFormat.NONE if mode == "none" else AttestationFormat.PACKED)
    assert registration.user_verified
    assert registration.credential_backed_up == (style == "synced")
    assert registration.aaguid == "6c617463-686b-6579-536f-667441757468"

    sign_count = registration.sign_count
    for _ in range(2):
        login = generate_authentication_options(
            rp_id=RP_ID, user_verification=UserVerificationRequirement.REQUIRED
        )
        status, out, err = latchkey(
            "authenticator", "get", "--origin", ORIGIN, stdin=json.loads(options_to_json(login))
        )
        assert status == 0, err
        authentication = verify_authentication_response(
            credential=out,
            expected_challenge=login.challenge,
            expected_rp_id=RP_ID,
            expected_origin=ORIGIN,
            credential_public_key=registration.credential_public_key,
            credential_current_sign_count=sign_count,
            require_user_verification=True,
        )
        assert authentication.credential_id == registration.credential_id
        if style == "device-bound":
            assert authentication.new_sign_count == sign_count + 1
        else:
            assert authentication.new_sign_count == 0
        sign_count = authentication.new_sign_count


def test_allow_list_login(latchkey):
    options = registration_options(COSEAlgorithmIdentifier.ECDSA_SHA_256, AttestationConveyancePreference.NONE)
    status, out, err = latchkey("authenticator", "create", "--origin", ORIGIN, stdin=json.loads(options_to_json(options)))
    assert status == 0, err
    registration = verify_registration_response(
        credential=out, expected_challenge=options.challenge, expected_rp_id=RP_ID, expected_origin=ORIGIN
    )
    login = generate_authentication_options(
        rp_id=RP_ID,
        allow_credentials=[PublicKeyCredentialDescriptor(id=registration.credential_id)],
    )
    status, out, err = latchkey("authenticator", "get", "--origin", ORIGIN, stdin=json.loads(options_to_json(login)))
    assert status == 0, err
    verify_authentication_response(
        credential=out,
        expected_challenge=login.challenge,
        expected_rp_id=RP_ID,
        expected_origin=ORIGIN,
        credential_public_key=registration.credential_public_key,
        credential_current_sign_count=0,
    )


def test_refusals_exit_1_with_the_reason(latchkey):
    options = json.loads(options_to_json(registration_options(COSEAlgorithmIdentifier.ECDSA_SHA_256, AttestationConveyancePreference.NONE)))
    status, _, err = latchkey("authenticator", "create", "--origin", "https://evil.example", stdin=options)
    assert status == 1 and "SecurityError" in err
    status, _, err = latchkey("authenticator", "create", "--origin", ORIGIN, "--no-user-verification", stdin=options)
    assert status == 1 and "NotAllowedError" in err
    login = json.loads(options_to_json(generate_authentication_options(rp_id=RP_ID)))
    status, _, err = latchkey("authenticator", "get", "--origin", ORIGIN, stdin=login)
    assert status == 1 and "no passkey" in err
