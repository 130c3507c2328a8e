import Foundation

/// `GET /api/account`: the account, whether losing one device would lock the
/// person out (`recoveryRisk`, which the page turns into a warning), and what apps may learn about the
/// person through OpenID Connect (`username`, `email`, `emailVerified`, `groups`; the two texts null when
/// unset). Written by the encoder: the sign-up's and login's `AccountJSON` keeps its own fast path and
/// its shape.
struct AccountDetailsJSON: APIResponseBody {
    let account: AccountJSON
    let recoveryRisk: RecoveryRisk?
    let profile: AccountProfile?

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(account.createdAt, forKey: .createdAt)
        try c.encode(account.credo, forKey: .credo)
        try c.encode(account.displayName, forKey: .displayName)
        try c.encode(profile?.email, forKey: .email)  // null when unset, never left out (as below)
        try c.encode(profile?.emailVerified ?? false, forKey: .emailVerified)
        try c.encode(profile?.groups ?? [], forKey: .groups)
        try c.encode(account.id, forKey: .id)
        try c.encode(recoveryRisk, forKey: .recoveryRisk)
        try c.encode(account.userHandle, forKey: .userHandle)
        try c.encode(profile?.username, forKey: .username)
    }

    enum CodingKeys: String, CodingKey {
        case createdAt, credo, displayName, email, emailVerified, groups, id, recoveryRisk, userHandle, username
    }
}

/// Why the account would need an operator's recovery grant if the person lost a device: it has one
/// passkey (or none), or every passkey it has is bound to its device (backup eligibility, BE, clear:
/// none of them can be synced to another device). Nil when some other passkey would still sign in.
enum RecoveryRisk: String, Encodable, Sendable, Equatable {
    case singlePasskey = "single_passkey"
    case deviceBoundOnly = "device_bound_only"

    init?(passkeys: [CredentialRecord]) {
        if passkeys.count < 2 {
            self = .singlePasskey
        } else if !passkeys.contains(where: \.backupEligible) {
            self = .deviceBoundOnly
        } else {
            return nil
        }
    }
}
