import CBOR
import SwiftASN1
import X509

/// `android-key` (§8.4): a key made in Android Keystore, attested by a certificate chain whose leaf holds
/// the credential key and a KeyDescription extension describing how the key was made.
struct AndroidKeyAttestation: AttestationStatementFormat {
    static let identifier = "android-key"
    /// The Android key attestation extension (KeyDescription).
    static let keyDescriptionOID: ASN1ObjectIdentifier = [1, 3, 6, 1, 4, 1, 11129, 2, 1, 17]

    private func broken(_ rule: String) -> WebAuthnError {
        WebAuthnError(.attestationCertificateInvalid(format: Self.identifier, rule: rule))
    }

    func verify(_ input: AttestationInput) throws(WebAuthnError) -> AttestationOutcome {
        let statement = input.statement
        guard let algValue = statement[text: "alg"]?.int64Value, let alg = COSEAlgorithm(rawValue: Int(clamping: algValue)) else {
            throw WebAuthnError(.attestationStatementMalformed(format: Self.identifier, reason: "alg is missing or not a known COSE algorithm"))
        }
        guard let sig = statement[text: "sig"]?.bytesValue else {
            throw WebAuthnError(.attestationStatementMalformed(format: Self.identifier, reason: "sig is missing or not a byte string"))
        }
        guard let x5cValue = statement[text: "x5c"] else {
            throw WebAuthnError(.attestationStatementMalformed(format: Self.identifier, reason: "x5c is missing"))
        }
        let chain = try AttestationCertificates.parseX5C(x5cValue, format: Self.identifier)
        let leaf = chain[0]
        // Verify that sig is a valid signature over authenticatorData ‖ clientDataHash with the first
        // certificate's key and alg.
        try AttestationCertificates.verifySignature(
            sig, over: input.authenticatorData.rawBytes + input.clientDataHash, certificate: leaf, algorithm: alg, format: Self.identifier)
        // The public key in the first certificate is the credential public key.
        try AttestationCertificates.requireSameKey(certificate: leaf, credential: input.credential.publicKey, format: Self.identifier)
        // The attestation certificate extension data.
        guard let ext = leaf.extensions[oid: Self.keyDescriptionOID] else { throw broken("the key description extension is missing") }
        guard let description = KeyDescription(der: Array(ext.value)) else { throw broken("the key description extension is malformed") }
        // attestationChallenge is the clientDataHash.
        guard ConstantTime.equal(description.attestationChallenge, input.clientDataHash) else {
            throw broken("attestationChallenge is not the clientDataHash")
        }
        // allApplications is absent from both authorization lists: the key is scoped to this RP.
        guard !description.softwareEnforced.allApplications, !description.teeEnforced.allApplications else {
            throw broken("allApplications is present: the key is not scoped to the relying party")
        }
        // origin is KM_ORIGIN_GENERATED and purpose includes KM_PURPOSE_SIGN (in either list: this RP
        // accepts keys whether or not the TEE enforces them).
        let origins = [description.teeEnforced.origin, description.softwareEnforced.origin].compactMap { $0 }
        guard origins.contains(KeyDescription.originGenerated) else { throw broken("origin is not KM_ORIGIN_GENERATED") }
        let purposes = description.teeEnforced.purposes + description.softwareEnforced.purposes
        guard purposes.contains(KeyDescription.purposeSign) else { throw broken("purpose does not include KM_PURPOSE_SIGN") }
        return AttestationOutcome(type: .basic, trustPath: chain)
    }
}

/// The parts of Android's KeyDescription (the key attestation extension) that §8.4 checks.
struct KeyDescription {
    struct AuthorizationList {
        var purposes: [Int] = []
        var origin: Int?
        var allApplications = false
    }

    static let originGenerated = 0
    static let purposeSign = 2

    let attestationChallenge: [UInt8]
    let softwareEnforced: AuthorizationList
    let teeEnforced: AuthorizationList

    /// KeyDescription ::= SEQUENCE { attestationVersion, attestationSecurityLevel, keymasterVersion,
    /// keymasterSecurityLevel, attestationChallenge OCTET STRING, uniqueId OCTET STRING,
    /// softwareEnforced AuthorizationList, teeEnforced AuthorizationList, … }
    init?(der: [UInt8]) {
        guard let root = try? BER.parse(der), root.identifier == .sequence, case .constructed(let children) = root.content else { return nil }
        let items = Array(children)
        guard items.count >= 8, items[4].identifier == .octetString, case .primitive(let challenge) = items[4].content,
              let software = Self.authorizationList(items[6]), let tee = Self.authorizationList(items[7])
        else { return nil }
        attestationChallenge = Array(challenge)
        softwareEnforced = software
        teeEnforced = tee
    }

    /// AuthorizationList ::= SEQUENCE { purpose [1] EXPLICIT SET OF INTEGER OPTIONAL, …,
    /// allApplications [600] EXPLICIT NULL OPTIONAL, …, origin [702] EXPLICIT INTEGER OPTIONAL, … }
    private static func authorizationList(_ node: ASN1Node) -> AuthorizationList? {
        guard node.identifier == .sequence, case .constructed(let fields) = node.content else { return nil }
        var list = AuthorizationList()
        for field in fields where field.identifier.tagClass == .contextSpecific {
            guard case .constructed(let wrapped) = field.content, let inner = wrapped.first(where: { _ in true }) else { continue }
            switch field.identifier.tagNumber {
            case 1:
                guard case .constructed(let members) = inner.content else { return nil }
                for member in members {
                    guard let value = try? Int(derEncoded: member) else { return nil }
                    list.purposes.append(value)
                }
            case 600:
                list.allApplications = true
            case 702:
                guard let value = try? Int(derEncoded: inner) else { return nil }
                list.origin = value
            default:
                continue
            }
        }
        return list
    }
}
