import WebAuthn

/// Why the options could not become an AuthenticationServices request, or why what the platform
/// returned could not become the WebAuthn JSON the server reads. Each case names the member at fault,
/// so that a bad server answer and a bad platform answer are told apart and reported precisely.
public enum PlatformMappingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A member that must be base64url is not (`member` is its JSON path, e.g. `excludeCredentials[1].id`).
    case notBase64URL(member: String)
    /// A member that must carry bytes or text is absent or empty.
    case missing(member: String)
    /// The user handle (`user.id`) must be 1 to 64 bytes (WebAuthn §5.4.3); it had `length`.
    case userHandleLength(Int)
    /// Neither `rp.id`/`rpId` nor the origin gives a relying party identifier.
    case noRelyingPartyIdentifier(origin: String)
    /// The platform authenticator makes ES256 (-7) keys only, and `pubKeyCredParams` does not offer it.
    case es256NotOffered([Int])

    public var description: String {
        switch self {
        case .notBase64URL(let member): "\(member) is not base64url"
        case .missing(let member): "\(member) is missing or empty"
        case .userHandleLength(let length): "user.id must be 1 to 64 bytes, not \(length)"
        case .noRelyingPartyIdentifier(let origin): "no RP ID in the options and no host in the origin \"\(origin)\""
        case .es256NotOffered(let algorithms): "the platform authenticator makes ES256 (-7) keys only; the server offered \(algorithms)"
        }
    }
}

/// Small helpers shared by the request and result mappings.
enum Bytes {
    /// The bytes of a base64url member, refusing bad encodings and (unless `allowEmpty`) empty values.
    static func decode(_ text: String, member: String, allowEmpty: Bool = false) throws(PlatformMappingError) -> [UInt8] {
        guard let bytes = Base64URL.decode(text) else { throw .notBase64URL(member: member) }
        guard allowEmpty || !bytes.isEmpty else { throw .missing(member: member) }
        return bytes
    }

    /// `bytes`, refusing nil or empty values from the platform.
    static func required(_ bytes: [UInt8]?, member: String) throws(PlatformMappingError) -> [UInt8] {
        guard let bytes, !bytes.isEmpty else { throw .missing(member: member) }
        return bytes
    }
}
