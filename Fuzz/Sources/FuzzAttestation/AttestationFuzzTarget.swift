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

    /// 9999-12-31T23:59:59Z.
    static let latestTime: UInt64 = 253_402_300_799

    static func run(_ bytes: [UInt8]) {
        guard bytes.count >= 40 else { return }
        // Folded into 1970…9999: a relying party's clock, or the ISO 8601 time `latchkey verify` reads,
        // is never outside it (X.509's GeneralizedTime traps past year 9999, the first thing this found).
        let seconds = bytes[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } % latestTime
        let time = Date(timeIntervalSince1970: TimeInterval(seconds))
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
        let anchors = relyingParty.trustAnchors
        _ = runBlocking {
            try? await AttestationTrust.assess(outcome, format: object.format, aaguid: credential.aaguid, anchors: anchors, time: time)
        }
    }
}
