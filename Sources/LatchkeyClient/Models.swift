import Foundation

/// The account as the server shows it.
public struct Account: Codable, Sendable, Equatable {
    public let id: String
    public let displayName: String
    public let credo: String
    public let createdAt: Date
}

/// One of the account's passkeys.
public struct Passkey: Codable, Sendable, Equatable {
    public let id: String
    public let name: String
    public let createdAt: Date
    public let lastUsedAt: Date?
    public let backedUp: Bool
    public let attestationFormat: String
    public let aaguid: String
}
