/// COSE algorithm identifiers (IANA "COSE Algorithms") that WebAuthn credentials and attestations use.
public enum COSEAlgorithm: Int, Sendable, CaseIterable, Codable {
    case es256 = -7
    case es384 = -35
    case es512 = -36
    /// EdDSA; WebAuthn uses it for Ed25519 (and Ed448, which swift-crypto cannot verify).
    case edDSA = -8
    /// The fully specified Ed25519 identifier (RFC 9864).
    case ed25519 = -19
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

    /// Whether this library can verify signatures made with the algorithm.
    public var isVerifiable: Bool { self != .ed448 }
}
