import Foundation

/// A challenge that completed a ceremony, kept until the challenge would have expired anyway so that it
/// cannot complete a second one. Only a digest of the challenge is stored.
struct UsedChallenge: Sendable, Equatable {
    let digest: [UInt8]
    let expiresAt: Date
}
