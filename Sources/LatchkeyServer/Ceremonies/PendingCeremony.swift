import Foundation

/// What a ceremony needs to remember between its options and its response: which ceremony it is, for
/// whom, and until when. It travels sealed inside the challenge (`ChallengeSealer`), so issuing options
/// stores nothing; only a ceremony that completes leaves a row (`UsedChallenge`).
struct PendingCeremony: Sendable, Equatable {
    enum Kind: UInt8, Sendable {
        case registration = 1
        case addPasskey = 2
        case login = 3
        /// A signed-in person confirms an action with one of their passkeys (approving a new device):
        /// sealed with the account, for a minute.
        case confirm = 4
        /// An administrator signs in to the admin console, or confirms a change there (step-up): a
        /// discoverable assertion with user verification required, which opens no ordinary session.
        case console = 5
    }

    let kind: Kind
    /// The account that asked to add a passkey (adding one needs the same account at the finish).
    let accountId: String?
    /// A new account's user handle, chosen at options time and given to the authenticator then.
    let userHandle: [UInt8]?
    /// A new account's display name, or the name of the passkey being added.
    let displayName: String?
    let expiresAt: Date
}
