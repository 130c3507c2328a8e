import Foundation

/// The client data (WebAuthn L3 §5.8.1), parsed from the exact clientDataJSON bytes the client sent;
/// `rawBytes` is what the signature's client data hash covers, so nothing is ever re-serialized.
/// Members this library does not know are tolerated, as §5.8.1.2 requires of relying parties.
public struct CollectedClientData: Sendable, Equatable {
    public struct TokenBinding: Sendable, Equatable, Decodable {
        public let status: String
        public let id: String?
    }

    /// Level 1 clients sent tokenBinding as a plain string; only the Level 2 object form carries a
    /// status to check, so any other form is ignored (L3 dropped the member).
    private struct TokenBindingMember: Decodable {
        let value: TokenBinding?
        init(from decoder: any Decoder) throws {
            value = try? TokenBinding(from: decoder)
        }
    }

    public let rawBytes: [UInt8]
    public let type: String
    /// The challenge exactly as the client wrote it (base64url).
    public let challenge: String
    public let origin: String
    public let crossOrigin: Bool?
    public let topOrigin: String?
    /// Level 2 only; L3 clients no longer send it, but an invalid one must still be refused.
    public let tokenBinding: TokenBinding?

    private struct Members: Decodable {
        let type: String
        let challenge: String
        let origin: String
        let crossOrigin: Bool?
        let topOrigin: String?
        let tokenBinding: TokenBindingMember?
    }

    public init(bytes: [UInt8]) throws(WebAuthnError) {
        // §7.1 step 5 / §7.2 step 8: UTF-8 decode; step 6 / 9: JSON parse.
        guard String(validating: bytes, as: UTF8.self) != nil else {
            throw WebAuthnError(.clientDataMalformed("not valid UTF-8"))
        }
        let members: Members
        do {
            members = try JSONDecoder().decode(Members.self, from: Data(bytes))
        } catch let DecodingError.keyNotFound(key, _) {
            throw WebAuthnError(.clientDataMalformed("member \"\(key.stringValue)\" is missing"))
        } catch let DecodingError.typeMismatch(_, context) {
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            throw WebAuthnError(.clientDataMalformed("member \"\(path)\" has the wrong type"))
        } catch {
            throw WebAuthnError(.clientDataMalformed("not a JSON object"))
        }
        rawBytes = bytes
        type = members.type
        challenge = members.challenge
        origin = members.origin
        crossOrigin = members.crossOrigin
        topOrigin = members.topOrigin
        tokenBinding = members.tokenBinding?.value
    }
}
