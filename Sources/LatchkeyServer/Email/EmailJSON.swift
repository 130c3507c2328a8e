// What email for recovery answers (`EmailController`).

/// `GET|PUT /api/account/email`, `POST …/verify`: the person's address and whether it is confirmed, and
/// what this server does with email — `mail`: it can send (an address can be given and confirmed);
/// `recovery`: it mails recovery links to a verified address.
struct AccountEmailJSON: NullKeepingBody {
    let email: String?
    let verified: Bool
    let mail: Bool
    let recovery: Bool
}

/// `POST /api/recovery/email`: the same answer whatever the address.
struct RecoveryEmailJSON: APIResponseBody {
    var status = "sent-if-known"
}

/// `GET /api/recovery/email`: whether the page should offer "Email me a recovery link".
struct RecoveryEmailAvailabilityJSON: APIResponseBody {
    let enabled: Bool
}
