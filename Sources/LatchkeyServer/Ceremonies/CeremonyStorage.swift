import LatchkeyDatabase
import WebAuthn

/// The writes of the two ceremonies — registration (a new account with its first passkey, or another
/// passkey for an account) and login — each one unit of work that also marks the ceremony's challenge
/// used, so that a challenge completes one ceremony at most.
///
/// One implementation per database, each free to order its statements for what they cost there:
/// `SQLiteCeremonyStorage` (one transaction per ceremony, committed with its neighbours by `CommitGroup`)
/// and `PostgresCeremonyStorage` (a login in two round trips, both prepared statements). `Store` picks the
/// implementation once, when it is made over its connections (`Store.ceremonies`).
///
/// Storage answers in storage terms: registrations throw `Store.Failure`, a login ends in a
/// `LoginOutcome`, and a refused verification comes back as the `WebAuthnError` the decision gave.
/// Which HTTP answer each is belongs to the service (`CeremonyService`).
protocol CeremonyStorage: Sendable {
    /// The connections the unit of work runs on.
    var connections: DatabaseConnections { get }
    /// Where each unit of work writes its audit events, in its own commit.
    var audit: AuditTrail { get }
    /// Whether ending sessions queues back-channel logout tokens (`Store.queuesOIDCLogouts`).
    var queuesOIDCLogouts: Bool { get }

    /// The account and its first credential, together or not at all; with `challenge`, only if that
    /// challenge has not completed a ceremony yet (`Store.Failure.challengeUsed`), and marked in the same
    /// commit. A credential id registered before: `Store.Failure.duplicate`, and nothing is written.
    /// `events` (the audit trail's) and `session` (the new account's first, signed in by its registration)
    /// are written in the same commit: a registration is one commit, not one for the account and another
    /// for its session.
    func createAccount(
        _ account: AccountRecord, credential: CredentialRecord, challenge: UsedChallenge?, events: [AuditEvent], session: NewSession?
    ) async throws

    /// Adds a passkey to an existing account, in the unit of work that marks the ceremony's challenge
    /// used, unless the account already holds `limit` (`Store.Failure.tooManyPasskeys`; counted with the
    /// account's row locked, so concurrent additions cannot both see room for one). Failures as
    /// `createAccount`'s.
    /// With `recovery`, the passkey is what a recovery grant yields: the grant is used in the same commit
    /// (`Store.Failure.recoveryGrantUsed` when it is no longer live, and nothing is written), and the
    /// account's sessions end (all, or only the restricted one).
    func addCredential(
        _ credential: CredentialRecord, challenge: UsedChallenge?, limit: Int, events: [AuditEvent], recovery: RecoveryUse?
    ) async throws

    /// A login's database work: reads the credential the response names and its account, lets `decide`
    /// verify the assertion against them, and for an accepted login marks the challenge used, moves the
    /// counter — only from the value `decide` saw — and stores the session and the accepted login's audit
    /// events (`LoginWrites.events`), all in one commit. Of any
    /// number of concurrent finishes of one challenge, at most one completes; a finish that does not
    /// complete leaves the challenge's mark, the counter and the sessions as they were, except where an
    /// implementation says otherwise.
    func finishLogin(
        challenge: UsedChallenge, credentialId: [UInt8],
        decide: @escaping @Sendable (CredentialRecord, AccountRecord) -> LoginVerdict
    ) async throws -> LoginOutcome
}

extension CeremonyStorage {
    /// A registration is one transaction on either database (`DatabaseConnections.transaction`: through
    /// the group commit on SQLite, `BEGIN` … `COMMIT` on one pooled connection on PostgreSQL); only the
    /// login's order differs between them.
    func createAccount(
        _ account: AccountRecord, credential: CredentialRecord, challenge: UsedChallenge?, events: [AuditEvent], session: NewSession?
    ) async throws {
        try await connections.transaction { db in
            try await CeremonySteps.createAccount(account, credential: credential, challenge: challenge, on: db)
            if let session { try await session.insert(on: db) }
            try await audit.append(events, on: db)
        }
    }

    func addCredential(
        _ credential: CredentialRecord, challenge: UsedChallenge?, limit: Int, events: [AuditEvent], recovery: RecoveryUse?
    ) async throws {
        try await connections.transaction { db in
            if let recovery {
                let use = switch recovery.source {
                case .grant: SQL.useRecoveryGrant
                case .deviceRequest: SQL.completeDeviceRequest
                case .invitation: InvitationSQL.completeUse
                }
                guard try await db.first(StoreQuery(use, .text(recovery.grantId), .milliseconds(credential.createdAt))) != nil
                else { throw Store.Failure.recoveryGrantUsed }
            }
            try await CeremonySteps.addCredential(credential, challenge: challenge, limit: limit, on: db)
            if let recovery {
                if recovery.endsSessions {
                    // The apps the ended sessions signed in to are told, as for any other end of them.
                    try await Store(connections: connections, queuesOIDCLogouts: queuesOIDCLogouts)
                        .queueOIDCLogouts(endingSessionsOf: credential.accountId, at: credential.createdAt, on: db)
                }
                let ending = recovery.endsSessions
                    ? StoreQuery(SQL.deleteAccountSessions, .text(credential.accountId)) : StoreQuery(SQL.deleteRecoveryGrantSessions, .text(recovery.grantId))
                _ = try await db.changedRows(ending)
            }
            try await audit.append(events, on: db)
        }
    }

    func addCredential(_ credential: CredentialRecord, challenge: UsedChallenge?, limit: Int, events: [AuditEvent]) async throws {
        try await addCredential(credential, challenge: challenge, limit: limit, events: events, recovery: nil)
    }

    /// An account and its first credential, without a ceremony's challenge or events (tests, and tools).
    func createAccount(_ account: AccountRecord, credential: CredentialRecord) async throws {
        try await createAccount(account, credential: credential, challenge: nil, events: [], session: nil)
    }

    /// A passkey for an existing account, with no limit on how many it holds.
    func addCredential(_ credential: CredentialRecord, challenge: UsedChallenge? = nil) async throws {
        try await addCredential(credential, challenge: challenge, limit: .max, events: [])
    }
}

/// What a verified login writes besides consuming its challenge: the credential's new state (the counter
/// moves only from the value the verification compared against) and the session it opens.
struct LoginWrites: Sendable {
    let signCount: UInt32
    let backupState: Bool
    let userVerified: Bool
    let session: NewSession
    /// The counter did not grow and the policy lets the login through (`--sign-count warn`): nothing is
    /// written for it (the stored counter never goes back), the service reports it.
    var possibleClone = false
    /// BS differs from the stored value: the row's `backup_state_changed_at` is set to the login's time.
    var backupStateChanged = false
    /// A synced passkey's counter is reset to 0 (`AuthenticationResult.counterReset`).
    var counterReset = false
    /// The audit events the login writes with its session (login succeeded; possible clone and backup
    /// state changed when they apply), all of the session's account, passkey, time and origin.
    var events: [AuditEvent] = []
}

/// A passkey added by a restricted session: through a recovery grant (the grant to use up, and whether
/// every session of the account ends with it, `--recovery-ends-sessions`), through an approved device
/// request (completed; only the restricted session ends) or through an invitation's use (completed with
/// the account's first passkey; only the restricted session ends).
struct RecoveryUse: Sendable {
    /// What gave the restricted session.
    enum Source: Sendable { case grant, deviceRequest, invitation }

    /// The grant's, the device request's or the invitation use's id.
    let grantId: String
    let endsSessions: Bool
    var source = Source.grant

    var viaDeviceRequest: Bool { source == .deviceRequest }
}

/// What a login's verification decided about the credential its response names: a storage-level
/// verdict, which the storage acts on and hands back without interpreting the reason.
enum LoginVerdict: Sendable {
    /// The assertion is valid: what the login writes.
    case accept(LoginWrites)
    /// WebAuthn's rules refuse the assertion.
    case reject(WebAuthnError)
    /// The account is disabled: no login, however valid the assertion.
    case accountDisabled
}

/// How a login's unit of work ended.
enum LoginOutcome: Sendable {
    /// The session is stored; the writes are what the decision accepted.
    case completed(AccountRecord, LoginWrites)
    /// The challenge had already completed a ceremony (a replay, or the loser of a race).
    case unknownChallenge
    /// No stored credential has the id the response names.
    case unknownCredential
    /// The decision refused the assertion of this account's passkey, for this reason.
    case rejected(WebAuthnError, accountId: String)
    /// Another login with this credential moved the counter since it was read (possible clone).
    case signCountMoved(accountId: String)
    /// The passkey's account is disabled.
    case accountDisabled(accountId: String)
}
