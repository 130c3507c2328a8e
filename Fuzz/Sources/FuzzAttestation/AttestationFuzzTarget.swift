import CBOR
import Foundation
import FuzzSupport
@testable import WebAuthn

/// The attestation object (§6.5.4) and every statement format's verification procedure (§8: packed,
/// tpm with its TPMS_ATTEST and TPMT_PUBAREA structures, android-key with its KeyDescription,
/// android-safetynet's JWS, fido-u2f, apple, compound, none, and the x5c chains of all of them), then
/// chain validation to the vectors' roots (§7.1 steps 24–25).
///
/// The input is what the relying party would otherwise fix, followed by the object, so that real
/// captures with their own hashes and dates reach the signature and certificate checks:
/// 8 bytes "now" (seconds since 1970, big-endian) ‖ 32 bytes clientDataHash ‖ attestationObject (CBOR).
enum AttestationFuzzTarget {
    static let relyingParty = RelyingParty(
        id: "localhost", name: "Fuzz", origins: ["https://localhost"], userVerification: .discouraged,
        trustAnchors: FuzzAnchors.loaded)

    static func run(_ bytes: [UInt8]) {
        guard bytes.count >= 40 else { return }
        // Any 64-bit "now": chain validation must refuse one X.509 cannot express rather than trap (the
        // first thing this target found; `latchkey verify` reads "now" from its document).
        let seconds = bytes[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let time = Date(timeIntervalSince1970: TimeInterval(Int64(bitPattern: seconds)))
        let clientDataHash = Array(bytes[8..<40])
        guard let object = try? AttestationObject(bytes: Array(bytes[40...])) else { return }
        let authData = object.authenticatorData
        guard let credential = authData.attestedCredentialData,
              let format = try? AttestationFormats.format(named: object.format)
        else { return }
        let input = AttestationInput(
            rawStatement: object.statement, authenticatorData: authData, credential: credential,
            clientDataHash: clientDataHash, relyingParty: relyingParty, verificationTime: time)
        guard let outcome = try? format.verify(input) else { return }
        if object.format == NoneAttestation.identifier {
            fuzzCheck(outcome.type == .none && outcome.trustPath.isEmpty, "none attestation reported a trust path")
        }
        guard !outcome.trustPath.isEmpty else { return }
        let (anchors, name, aaguid) = (relyingParty.trustAnchors, object.format, credential.aaguid)
        _ = runBlocking {
            try? await AttestationTrust.assess(outcome, format: name, aaguid: aaguid, anchors: anchors, time: time)
        }
    }
}
