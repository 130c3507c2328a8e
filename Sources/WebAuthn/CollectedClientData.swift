import Foundation

/// The client data (WebAuthn L3 §5.8.1), parsed from the exact clientDataJSON bytes the client sent;
/// `rawBytes` is what the signature's client data hash covers, so nothing is ever re-serialized.
/// Members this library does not know are tolerated, as §5.8.1.2 requires of relying parties.
public struct CollectedClientData: Sendable, Equatable {
    public struct TokenBinding: Sendable, Equatable {
        public let status: String
        public let id: String?
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

    public init(bytes: [UInt8]) throws(WebAuthnError) {
        // §7.1 step 5 / §7.2 step 8: UTF-8 decode; step 6 / 9: JSON parse.
        guard String(validating: bytes, as: UTF8.self) != nil else {
            throw WebAuthnError(.clientDataMalformed("not valid UTF-8"))
        }
        let document: JSONValue
        do {
            document = try JSONValue.parse(bytes)
        } catch {
            throw WebAuthnError(.clientDataMalformed("not JSON: \(error)"))
        }
        do {
            let members = try JSONShapeReader(document)
            type = try members.string("type")
            challenge = try members.string("challenge")
            origin = try members.string("origin")
            crossOrigin = try members.optionalBool("crossOrigin")
            topOrigin = try members.optionalString("topOrigin")
        } catch {
            let member = error.path.joined(separator: ".")
            switch error.problem {
            case .missing: throw WebAuthnError(.clientDataMalformed("member \"\(member)\" is missing"))
            case .null: throw WebAuthnError(.clientDataMalformed("member \"\(member)\" is null"))
            case .wrongType where error.path.isEmpty: throw WebAuthnError(.clientDataMalformed("not a JSON object"))
            case .wrongType: throw WebAuthnError(.clientDataMalformed("member \"\(member)\" has the wrong type"))
            }
        }
        rawBytes = bytes
        tokenBinding = Self.tokenBinding(in: document)
    }

    /// Level 1 clients sent tokenBinding as a plain string; only the Level 2 object form carries a
    /// status to check, so any other form is ignored (L3 dropped the member).
    private static func tokenBinding(in document: JSONValue) -> TokenBinding? {
        guard case .object(let members) = document, case .object(let binding)? = members["tokenBinding"],
              case .string(let status)? = binding["status"]
        else { return nil }
        switch binding["id"] {
        case nil, .null?: return TokenBinding(status: status, id: nil)
        case .string(let id)?: return TokenBinding(status: status, id: id)
        default: return nil
        }
    }
}
