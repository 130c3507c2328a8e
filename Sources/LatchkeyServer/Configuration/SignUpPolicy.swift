import Foundation

/// Who may have an account (`--signup`, issue 43). Every way in asks this one rule: the API's and the
/// page's registration and the compatibility APIs' (all through `CeremonyService`), and an invitation's
/// use (`InvitationService`). Operators make accounts under any policy.
public enum SignUpPolicy: String, Sendable, CaseIterable {
    /// Anyone who reaches the page registers, as before there was a policy.
    case open
    /// Only the holder of a valid invitation gets an account.
    case invite
    /// No new accounts at all, but those an operator makes (`latchkey admin accounts create`).
    case closed

    /// Whether someone without an invitation may make an account.
    var admitsStrangers: Bool { self == .open }

    /// Whether an invitation for a new person (not one an operator made the account of) may make one.
    var admitsInvitations: Bool { self != .closed }
}

extension ServerConfiguration {
    /// The policy in force: as set, else `invite` with OpenID Connect and `open` without.
    public var effectiveSignUp: SignUpPolicy { signUp ?? (oidc ? .invite : .open) }
}
