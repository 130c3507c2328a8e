/// COSE algorithm identifiers (IANA "COSE Algorithms") that WebAuthn credentials and attestations use.
public enum COSEAlgorithm: Int, Sendable, CaseIterable, Codable {
    case es256 = -7
    case es384 = -35
    case es512 = -36
    /// EdDSA: Ed25519 (crv 6) or Ed448 (crv 7), as the COSE key's curve says.
    case edDSA = -8
    /// The fully specified Ed25519 identifier (RFC 9864).
    case ed25519 = -19
    /// The fully specified Ed448 identifier (RFC 9864); verified through OpenSSL's libcrypto (`Ed448PublicKey`).
    case ed448 = -53
    case rs256 = -257
    case rs384 = -258
    case rs512 = -259
    case ps256 = -37
    case ps384 = -38
    case ps512 = -39
    /// RSASSA-PKCS1-v1_5 with SHA-1: only old Windows Hello TPMs use it; off unless a relying party enables it.
    case rs1 = -65535

    public var name: String {
        switch self {
        case .es256: "ES256"
        case .es384: "ES384"
        case .es512: "ES512"
        case .edDSA: "EdDSA"
        case .ed25519: "Ed25519"
        case .ed448: "Ed448"
        case .rs256: "RS256"
        case .rs384: "RS384"
        case .rs512: "RS512"
        case .ps256: "PS256"
        case .ps384: "PS384"
        case .ps512: "PS512"
        case .rs1: "RS1"
        }
    }

    /// Whether this library can verify signatures made with the algorithm: all of them on Linux; Ed448
    /// needs libcrypto, which builds for Apple platforms do not link.
    public var isVerifiable: Bool { self != .ed448 || Ed448PublicKey.isAvailable }
}
