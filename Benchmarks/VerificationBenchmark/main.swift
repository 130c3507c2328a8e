import CBOR
import Crypto
import Foundation
import WebAuthn

// ES256 assertion verification end to end (JSON bytes → AuthenticationResponseJSON → stored COSE key
// parsed → every §7.2 step → signature) against swift-crypto's bare P256 isValidSignature over the same
// signed bytes, measured in the same run, interleaved, as medians of repeated samples.
//
// Run: swift run -c release latchkey-bench [samples] [iterations-per-sample]

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let samples = arguments.first ?? 21
let iterations = arguments.dropFirst().first ?? 2000

// A credential and one assertion, built the way an authenticator would.
let key = P256.Signing.PrivateKey()
let credentialId = (0..<16).map { _ in UInt8.random(in: 0...255) }
let challenge = (0..<32).map { _ in UInt8.random(in: 0...255) }
let point = Array(key.publicKey.x963Representation)
let coseKey = CBOREncoder().encode(.map(CBORMap([
    (.int(1), .int(2)), (.int(3), .int(-7)), (.int(-1), .int(1)),
    (.int(-2), .bytes(Array(point[1...32]))), (.int(-3), .bytes(Array(point[33...64]))),
]) ?? CBORMap()))
var authData = Array(SHA256.hash(data: Array("example.com".utf8)))
authData += [0x05, 0, 0, 0, 1]
let clientData = Array(#"{"type":"webauthn.get","challenge":"\#(Base64URL.encode(challenge))","origin":"https://example.com","crossOrigin":false}"#.utf8)
let signedData = authData + SHA256.hash(data: clientData)
let signature = try key.signature(for: signedData)
let userHandle: [UInt8] = Array("user".utf8)
let responseJSON = try JSONEncoder().encode(AuthenticationResponseJSON(
    id: Base64URL.encode(credentialId), rawId: Base64URL.encode(credentialId),
    response: AuthenticatorAssertionResponseJSON(
        clientDataJSON: Base64URL.encode(clientData), authenticatorData: Base64URL.encode(authData),
        signature: Base64URL.encode(Array(signature.derRepresentation)), userHandle: Base64URL.encode(userHandle))))
let verifier = AuthenticationVerifier(relyingParty: RelyingParty(id: "example.com", name: "Example", origins: ["https://example.com"]))
let decoder = JSONDecoder()

func fullVerification() throws -> Bool {
    let credential = try decoder.decode(AuthenticationResponseJSON.self, from: responseJSON)
    let record = try StoredCredential(id: credentialId, publicKeyCOSE: coseKey, signCount: 0, userHandle: userHandle)
    return try verifier.verify(credential, expectedChallenge: challenge, storedCredential: record).signCount == 1
}

let publicKey = key.publicKey
func bareVerification() -> Bool {
    publicKey.isValidSignature(signature, for: signedData)
}

/// Nanoseconds per operation for one sample of `iterations` calls.
func sample(_ body: () throws -> Bool) rethrows -> Double {
    let start = ContinuousClock.now
    var ok = true
    for _ in 0..<iterations { ok = try body() && ok }
    precondition(ok, "a verification failed during the benchmark")
    let elapsed = ContinuousClock.now - start
    let ns = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
    return ns / Double(iterations)
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

// Warm up both paths, then interleave samples so that machine noise hits both alike.
_ = try sample(fullVerification)
_ = sample(bareVerification)
var full: [Double] = []
var bare: [Double] = []
for _ in 0..<samples {
    full.append(try sample(fullVerification))
    bare.append(sample(bareVerification))
}
let fullMedian = median(full)
let bareMedian = median(bare)
print("ES256 assertion verification, \(samples) samples × \(iterations) iterations, medians")
print(String(format: "  bare P256.Signing.PublicKey.isValidSignature: %8.2f µs", bareMedian / 1000))
print(String(format: "  full JSON → §7.2 verification:               %8.2f µs", fullMedian / 1000))
print(String(format: "  ratio full / bare:                            %8.3f", fullMedian / bareMedian))
