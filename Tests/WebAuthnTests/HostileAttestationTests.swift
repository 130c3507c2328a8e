import CBOR
import Crypto
import Foundation
import SwiftASN1
import Testing
import X509
import _CryptoExtras
@testable import WebAuthn

/// Attestation statements built to crash or exhaust the verifier (SECURITY-FINDINGS 2, 3, 5, 6 and the
/// RSA note). Each must be refused with an error that names the rule or the limit, quickly, and without
/// trapping: one anonymous registration reaches every one of these paths.
@Suite("Hostile attestation statements")
struct HostileAttestationTests {
    static func verify(_ f: Fabricator, object: [UInt8], clientData: [UInt8]) async -> WebAuthnError? {
        do {
            _ = try await RegistrationVerifier(relyingParty: Fabricator.relyingParty).verify(
                f.registration(attestationObject: object, clientData: clientData), expectedChallenge: f.challenge)
            return nil
        } catch {
            return error
        }
    }

    static func attestationObject(fmt: String, statement: CBORValue, authData: [UInt8]) -> [UInt8] {
        CBOREncoder().encode(.map(CBORMap([(.text("fmt"), .text(fmt)), (.text("attStmt"), statement), (.text("authData"), .bytes(authData))]) ?? CBORMap()))
    }

    // MARK: android-safetynet

    /// A self-signed SafetyNet statement whose JWS is signed by a certificate issued to attest.android.com
    /// (no trust anchors are needed to reach the payload checks). `header` and `payload` replace the
    /// JSON texts; by default both are right.
    static func safetyNet(
        _ f: Fabricator, header: ((String) -> String)? = nil, payload: ((String) -> String)? = nil
    ) throws -> (object: [UInt8], clientData: [UInt8]) {
        let authData = f.authenticatorData(attested: true)
        let clientData = f.clientDataJSON(type: "webauthn.create")
        let leaf = try TestPKI.root(name: "attest.android.com")
        var serializer = DER.Serializer()
        try serializer.serialize(leaf.certificate)
        let x5c = Data(serializer.serializedBytes).base64EncodedString()
        let nonce = Data(SHA256.hash(data: authData + SHA256.hash(data: clientData))).base64EncodedString()
        var headerText = #"{"alg":"ES256","x5c":["\#(x5c)"]}"#
        var payloadText = #"{"nonce":"\#(nonce)","timestampMs":\#(Int(Date().timeIntervalSince1970 * 1000)),"ctsProfileMatch":true}"#
        if let header { headerText = header(headerText) }
        if let payload { payloadText = payload(payloadText) }
        let signingInput = Base64URL.encode(Array(headerText.utf8)) + "." + Base64URL.encode(Array(payloadText.utf8))
        let signature = try leaf.key.signature(for: Array(signingInput.utf8)).rawRepresentation
        let jws = signingInput + "." + Base64URL.encode(Array(signature))
        let statement = CBORValue.map(CBORMap([(.text("ver"), .text("1")), (.text("response"), .bytes(Array(jws.utf8)))]) ?? CBORMap())
        return (attestationObject(fmt: "android-safetynet", statement: statement, authData: authData), clientData)
    }

    @Test("safetynet: the self-signed statement these cases start from verifies")
    func safetyNetBaseline() async throws {
        let f = Fabricator()
        let made = try Self.safetyNet(f)
        #expect(await Self.verify(f, object: made.object, clientData: made.clientData) == nil)
    }

    @Test("safetynet: timestampMs 1e300 (SECURITY-FINDINGS 2) and other impossible times are refused, not trapped on", arguments: [
        "1e300", "-1e300", "1.7976931348623157e308", "9223372036854775807000",
    ])
    func safetyNetTimestamp(timestamp: String) async throws {
        let f = Fabricator()
        let made = try Self.safetyNet(f, payload: { $0.replacing(#/"timestampMs":\d+/#, with: "\"timestampMs\":\(timestamp)") })
        let error = await Self.verify(f, object: made.object, clientData: made.clientData)
        #expect(error?.code == "attestation_statement_malformed")
        #expect(error?.message.contains("timestampMs is outside the accepted window") == true, "\(String(describing: error))")
    }

    @Test("safetynet: a timestampMs beyond Double's range is not a number the payload may carry")
    func safetyNetInfiniteTimestamp() async throws {
        let f = Fabricator()
        let made = try Self.safetyNet(f, payload: { $0.replacing(#/"timestampMs":\d+/#, with: "\"timestampMs\":1e400") })
        let error = await Self.verify(f, object: made.object, clientData: made.clientData)
        #expect(error?.code == "attestation_statement_malformed")
        #expect(error?.message.contains("payload") == true, "\(String(describing: error))")
    }

    @Test("safetynet: a JWS header or payload of 513 [ (SECURITY-FINDINGS 3) is malformed, not a crash", arguments: [513, 1000, 20_000])
    func safetyNetDeepJSON(depth: Int) async throws {
        let f = Fabricator()
        let deep = String(repeating: "[", count: depth)
        var made = try Self.safetyNet(f, header: { _ in deep })
        var error = await Self.verify(f, object: made.object, clientData: made.clientData)
        #expect(error?.code == "attestation_statement_malformed")
        #expect(error?.message.contains("JWS header") == true, "\(String(describing: error))")
        made = try Self.safetyNet(f, payload: { _ in deep })
        error = await Self.verify(f, object: made.object, clientData: made.clientData)
        #expect(error?.code == "attestation_statement_malformed")
        #expect(error?.message.contains("JWS payload") == true, "\(String(describing: error))")
    }

    @Test("safetynet: more than 8 certificates in the JWS header's x5c are refused before any is parsed")
    func safetyNetChainLength() async throws {
        let f = Fabricator()
        let made = try Self.safetyNet(f, header: { header in
            let start = header.range(of: #"["#)?.upperBound ?? header.endIndex
            let end = header.range(of: #"]"#)?.lowerBound ?? header.endIndex
            let one = String(header[start..<end])
            return #"{"alg":"ES256","x5c":["# + Array(repeating: one, count: 9).joined(separator: ",") + "]}"
        })
        let error = await Self.verify(f, object: made.object, clientData: made.clientData)
        #expect(error?.message.contains("more than the limit of 8") == true, "\(String(describing: error))")
    }

    // MARK: compound, x5c, CBOR sizes, RSA

    /// A packed self-attestation statement for `f`'s ceremony.
    static func packedSelf(_ f: Fabricator, authData: [UInt8], clientData: [UInt8]) throws -> CBORValue {
        let signature = Array(try f.key.signature(for: authData + SHA256.hash(data: clientData)).derRepresentation)
        let statement = CBORValue.map(CBORMap([(.text("alg"), .int(-7)), (.text("sig"), .bytes(signature))]) ?? CBORMap())
        return .map(CBORMap([(.text("fmt"), .text("packed")), (.text("attStmt"), statement)]) ?? CBORMap())
    }

    @Test("compound: at most 4 statements, refused before any is verified (SECURITY-FINDINGS 6)")
    func compoundCap() async throws {
        let f = Fabricator()
        let authData = f.authenticatorData(attested: true)
        let clientData = f.clientDataJSON(type: "webauthn.create")
        let good = try Self.packedSelf(f, authData: authData, clientData: clientData)
        let four = Self.attestationObject(fmt: "compound", statement: .array(Array(repeating: good, count: 4)), authData: authData)
        #expect(await Self.verify(f, object: four, clientData: clientData) == nil)
        // Five statements — the fifth one broken, to show that none was verified before the count was.
        let broken = CBORValue.map(CBORMap([(.text("fmt"), .text("no-such-format")), (.text("attStmt"), .map(CBORMap()))]) ?? CBORMap())
        let five = Self.attestationObject(fmt: "compound", statement: .array(Array(repeating: good, count: 4) + [broken]), authData: authData)
        let error = await Self.verify(f, object: five, clientData: clientData)
        #expect(error?.code == "attestation_statement_malformed")
        #expect(error?.message.contains("5 statements, more than the limit of 4") == true, "\(String(describing: error))")
        // The finding's shape: hundreds of statements; the CBOR decoder's array cap already refuses it.
        let many = Self.attestationObject(fmt: "compound", statement: .array(Array(repeating: good, count: 480)), authData: authData)
        let manyError = await Self.verify(f, object: many, clientData: clientData)
        #expect(manyError?.code == "attestation_object_malformed")
        #expect(manyError?.message.contains("more than 32 members") == true, "\(String(describing: manyError))")
    }

    @Test("x5c: more than 8 certificates, or one over 8 KiB, is refused before parsing")
    func x5cCaps() async throws {
        let f = Fabricator()
        let root = try TestPKI.root()
        let attestation = try TestPKI.attestation(issuer: root, aaguid: f.aaguid)
        let nine = try f.packedX5CRegistration(attestationKey: attestation.key, chain: Array(repeating: attestation.certificate, count: 9))
        var error: WebAuthnError?
        do {
            _ = try await RegistrationVerifier(relyingParty: Fabricator.relyingParty).verify(nine, expectedChallenge: f.challenge)
        } catch let failure {
            error = failure
        }
        #expect(error?.message.contains("x5c has 9 certificates, more than the limit of 8") == true, "\(String(describing: error))")

        let authData = f.authenticatorData(attested: true)
        let clientData = f.clientDataJSON(type: "webauthn.create")
        let signature = Array(try attestation.key.signature(for: authData + SHA256.hash(data: clientData)).derRepresentation)
        let statement = CBORValue.map(CBORMap([
            (.text("alg"), .int(-7)), (.text("sig"), .bytes(signature)), (.text("x5c"), .array([.bytes([UInt8](repeating: 0x30, count: 9000))])),
        ]) ?? CBORMap())
        let object = Self.attestationObject(fmt: "packed", statement: statement, authData: authData)
        error = await Self.verify(f, object: object, clientData: clientData)
        #expect(error?.message.contains("x5c[0] is 9000 bytes, over the limit of 8192") == true, "\(String(describing: error))")
    }

    @Test("an attestation statement map of 11 000 keys (SECURITY-FINDINGS 5) is refused naming the limit")
    func hugeStatementMap() async throws {
        let f = Fabricator()
        let authData = f.authenticatorData(attested: true)
        let clientData = f.clientDataJSON(type: "webauthn.create")
        // Encoded by hand: the encoder would refuse nothing, but building 11 000 CBORValues is beside the point.
        var statement: [UInt8] = [0xb9, 0x2a, 0xf8] // map(11 000)
        for key in 0..<11_000 { statement += [0x19, UInt8(key >> 8), UInt8(key & 0xff), 0x00] }
        var object: [UInt8] = [0xa3, 0x63] + Array("fmt".utf8) + [0x66] + Array("packed".utf8)
        object += [0x67] + Array("attStmt".utf8) + statement
        object += [0x68] + Array("authData".utf8) + [0x59, UInt8(authData.count >> 8), UInt8(authData.count & 0xff)] + authData
        let error = await Self.verify(f, object: object, clientData: clientData)
        #expect(error?.code == "attestation_object_malformed")
        #expect(error?.message.contains("more than 32 members") == true, "\(String(describing: error))")
    }

    @Test("RSA credential keys over 4096 bits are refused naming the limit, not as unusable")
    func rsaKeySize() throws {
        for bits in [4096 + 8, 8192, 16384] {
            var n = [UInt8](repeating: 0xc5, count: bits / 8)
            n[0] = 0xe1
            let key = CBOREncoder().encode(.map(CBORMap([
                (.int(1), .int(3)), (.int(3), .int(-257)), (.int(-1), .bytes(n)), (.int(-2), .bytes([1, 0, 1])),
            ]) ?? CBORMap()))
            #expect(throws: WebAuthnError(.publicKeyInvalid("RSA modulus is about \(bits) bits, over the 4096-bit limit"))) {
                try COSEKey(bytes: key)
            }
        }
        // A 2048-bit key (what Windows Hello makes) is within the limit.
        let real = try _RSA.Signing.PrivateKey(keySize: .bits2048).publicKey
        let der = Array(real.pkcs1DERRepresentation)
        let sequence = try DER.parse(der)
        guard case .constructed(let nodes) = sequence.content else { Issue.record("not a SEQUENCE"); return }
        var parts: [[UInt8]] = []
        for node in nodes { if case .primitive(let bytes) = node.content { parts.append(Array(bytes)) } }
        let key = CBOREncoder().encode(.map(CBORMap([
            (.int(1), .int(3)), (.int(3), .int(-257)), (.int(-1), .bytes(parts[0])), (.int(-2), .bytes(parts[1])),
        ]) ?? CBORMap()))
        #expect(try COSEKey(bytes: key).algorithm == .rs256)
    }
}
