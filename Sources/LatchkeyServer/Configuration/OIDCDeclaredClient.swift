import Foundation
import LatchkeyAPI
import LatchkeyRuntime

/// An OpenID Connect client declared in the configuration file (`[[oidc-client]]` in `latchkey.toml`),
/// so that the clients live in version control beside the rest of the settings rather than being made by
/// hand. Each member is what `latchkey admin clients add` takes (the file's keys are its long flags), and
/// the same rules (`OIDCClientRules`) judge it, at start-up, before anything is written
/// (`OIDC/OIDCDeclaredClient+Record.swift`: a plain value here, the configuration holds it).
///
/// Never its secret: a confidential client carries only the SHA-256 the database stores
/// (`secretHash`), which the CLI read from `secret-hash = "sha256:…"` or made from the file
/// `secret-file` names (the secret itself stays in that owner-only file).
public struct OIDCDeclaredClient: Sendable, Equatable, CustomStringConvertible {
    public var id: String
    public var name: String
    public var redirectURIs: [String] = []
    public var postLogoutURIs: [String] = []
    /// No secret and no keys: a native or single-page app (PKCE).
    public var isPublic = false
    public var firstParty = false
    /// nil: `OIDCClientRules.defaultAlgorithm`.
    public var idTokenAlg: String?
    /// nil: `OIDCClientRules.defaultScopes`.
    public var scopes: [String]?
    public var allowedGroups: [String] = []
    /// nil: `authorization_code` only.
    public var grantTypes: [String]?
    public var apiScopes: [String] = []
    /// The public keys of its `private_key_jwt` assertions, a JWKS as JSON text (then it has no secret).
    public var jwks: String?
    /// Where it publishes those keys instead (`jwks-uri`).
    public var jwksURI: String?
    public var backchannelLogoutURI: String?
    /// nil: `groups`.
    public var groupsClaim: String?
    /// The SHA-256 of its secret (32 bytes); nil for a public client or one with keys.
    public var secretHash: [UInt8]?

    public init(id: String, name: String) {
        self.id = id
        self.name = name
    }

    /// Never the digest either: whether there is one.
    public var description: String {
        "OIDCDeclaredClient(\(id), \(name), \(isPublic ? "public" : secretHash != nil ? "secret" : jwks != nil ? "keys" : "no secret"))"
    }

    /// The prefix of `secret-hash`'s value: the digest's algorithm, so that another could follow.
    public static let secretHashPrefix = "sha256:"

    /// `sha256:` and 64 hexadecimal digits, as `sha256sum` prints a secret's digest; nil otherwise.
    public static func secretHash(parsing text: String) -> [UInt8]? {
        guard text.hasPrefix(secretHashPrefix) else { return nil }
        let hex = Array(text.utf8.dropFirst(secretHashPrefix.utf8.count))
        guard hex.count == 64 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        for index in stride(from: 0, to: 64, by: 2) {
            guard let high = Self.nibble(hex[index]), let low = Self.nibble(hex[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    /// `secret-hash`'s value for a stored digest (what `latchkey admin clients export` writes).
    public static func secretHashText(_ digest: [UInt8]) -> String {
        secretHashPrefix + digest.map { String(format: "%02x", $0) }.joined()
    }

    /// The digest of a secret read from `secret-file`, after checking it is one worth having.
    public static func secretHash(ofSecret secret: String) -> [UInt8]? {
        guard secret.count >= minimumSecretLength, !secret.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F })
        else { return nil }
        return SecretDigest.of(secret)
    }

    /// What a secret of `secret-file` must be at least: as long as the webhook and introspection secrets.
    public static let minimumSecretLength = 32

    private static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The audit trail's actor of what the configuration does, and the clients' `createdBy`.
    static let actor = "configuration"
}
