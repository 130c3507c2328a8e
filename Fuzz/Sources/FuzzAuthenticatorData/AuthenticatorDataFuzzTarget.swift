import CBOR
import FuzzSupport
import WebAuthn

/// `AuthenticatorData` on arbitrary bytes (§6.1), and what a successful parse promises: the raw bytes
/// are the input, the credential key's bytes parse again to the same key, the extensions map is within
/// the decoder's limits and re-encodes, and the length arithmetic adds up.
enum AuthenticatorDataFuzzTarget {
    static func run(_ bytes: [UInt8]) {
        guard let authData = try? AuthenticatorData(bytes: bytes) else { return }
        fuzzCheck(authData.rawBytes == bytes, "rawBytes differ from the input")
        fuzzCheck(authData.rpIdHash.count == 32, "rpIdHash is not 32 bytes")
        var expectedLength = 37
        if let attested = authData.attestedCredentialData {
            fuzzCheck(authData.flags.contains(.attestedCredentialData), "attested credential data without the AT flag")
            fuzzCheck(attested.aaguid.count == 16, "aaguid is not 16 bytes")
            fuzzCheck(attested.credentialId.count <= AuthenticatorData.maxCredentialIdLength, "credential id over the limit")
            let reparsed = try? COSEKey(bytes: attested.publicKeyBytes)
            fuzzCheck(reparsed == attested.publicKey, "the credential key's own bytes do not parse to the same key")
            fuzzCheck(reparsed?.algorithm == attested.publicKey.algorithm, "the key's algorithm changed on re-parse")
            expectedLength += 16 + 2 + attested.credentialId.count + attested.publicKeyBytes.count
        } else {
            fuzzCheck(!authData.flags.contains(.attestedCredentialData), "AT flag without attested credential data")
        }
        if let extensions = authData.extensions {
            fuzzCheck(authData.flags.contains(.extensionData), "extensions without the ED flag")
            let encoded = CBOREncoder().encode(.map(extensions))
            fuzzCheck((try? CBORDecoder().decode(encoded)) != nil, "the extensions map does not survive a canonical round trip")
            expectedLength += (try? CBORDecoder().decodePrefix(Array(bytes[expectedLength...])).bytesUsed) ?? -1
        }
        fuzzCheck(expectedLength == bytes.count, "members account for \(expectedLength) of \(bytes.count) bytes")
    }
}
