import Foundation

// What the invitations answer: an invitation as an operator sees it (never its code after it was made),
// the code and link once, what the person sees before using it, and the sign-up policy for the page.

/// An invitation in a list: its state and profile, never its code or the code's hash.
struct InvitationJSON: NullKeepingBody, Equatable {
    let id: String
    /// The account an operator made with it; null when each use makes one.
    let accountId: String?
    let username: String?
    let email: String?
    let groups: [String]
    /// `live`, `used`, `expired` or `revoked`.
    let state: String
    let uses: Int
    let maxUses: Int
    let createdAt: Date
    let expiresAt: Date
    let createdBy: String
    let mailedAt: Date?
    let revokedAt: Date?
    let failedAttempts: Int

    init(_ invitation: InvitationRecord, now: Date) {
        id = invitation.id
        accountId = invitation.accountId
        username = invitation.username
        email = invitation.email
        groups = invitation.groups
        state = invitation.state(at: now)
        uses = invitation.uses
        maxUses = invitation.maxUses
        createdAt = invitation.createdAt
        expiresAt = invitation.expiresAt
        createdBy = invitation.createdBy
        mailedAt = invitation.mailedAt
        revokedAt = invitation.revokedAt
        failedAttempts = invitation.failedAttempts
    }
}

/// A new invitation: the only time its code is shown, the link that carries it, and whether the link was
/// mailed (`send`).
struct InvitationIssuedJSON: APIResponseBody {
    let invitation: InvitationJSON
    let code: String
    let link: String
    let mailed: Bool
}

/// `POST /api/admin/accounts`: the account, without a passkey, and the invitation for its first one.
struct AccountCreatedJSON: APIResponseBody {
    let account: AdminAccountDetailJSON
    let invitation: InvitationJSON
    let code: String
    let link: String
    let mailed: Bool
}

/// `POST /api/invites/preview`: who the invitation is for and from which service, before the person
/// uses it. Nothing here is secret to its holder: it is what their account will have.
struct InvitationPreviewJSON: NullKeepingBody {
    /// The relying party's name (`--rp-name`).
    let service: String
    let origin: String
    /// Whether using it makes a new account; false: it is for an account an operator made.
    let newAccount: Bool
    /// The operator's account's display name; null for a new account (the person chooses it).
    let displayName: String?
    let username: String?
    let email: String?
    let groups: [String]
    let expiresAt: Date
}

/// `GET /api/signup`: who may make an account here (`--signup`), for the page to offer a sign-up form
/// only where one can work, and the domains whose people may ask for a link by mail (`--signup-domain`).
struct SignUpJSON: APIResponseBody {
    let policy: String
    let service: String
    let domains: [String]
}

/// `POST /api/signup/email`: the link is on its way (the mail is sent after the answer).
struct SignUpEmailJSON: APIResponseBody {
    var status = "sent"
}
