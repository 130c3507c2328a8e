import Foundation

/// Sessions: issuing tokens, finding the account behind one, revoking it.
struct SessionService: Sendable {
    let store: Store
    let ttl: TimeInterval
    let now: @Sendable () -> Date
    /// What keeps sessions in memory (the forward-auth check's cache): a logout here makes it forget the
    /// session at once (other instances within the cache's lifetime).
    var endListener: (any SessionEndListener)? = nil

    /// The row that stores a new token, for a caller that writes it in its own transaction.
    func session(for token: SessionToken, accountId: String, credentialId: [UInt8], userVerified: Bool) -> NewSession {
        let created = now()
        return NewSession(
            tokenHash: token.hash, accountId: accountId, credentialId: credentialId, createdAt: created, expiresAt: created + ttl,
            userVerified: userVerified)
    }

    /// The live session of `token`, with what an access token says about it.
    func details(for token: String) async throws -> SessionDetails? {
        try await store.sessionDetails(tokenHash: SessionToken.hash(of: token), now: now())
    }

    /// The account of a valid, unexpired token, and how its session was made; nil otherwise.
    func account(for token: String) async throws -> SessionAccount? {
        try await store.sessionAccountRecord(tokenHash: SessionToken.hash(of: token), now: now())
    }

    /// The account id of a valid, unexpired, full (passkey) session of an enabled account; nil otherwise,
    /// a restricted recovery or device session included.
    func accountId(for token: String) async throws -> String? {
        try await store.sessionAccount(tokenHash: SessionToken.hash(of: token), now: now())
    }

    /// Ends the session of `token`. A holder's log-out is audited (`session.ended`) as coming from
    /// `origin`; a session replaced by a new sign-in (`origin` nil) is not an event of its own.
    /// Records that an access token was issued for the caller's session (`access_token.issued`: when and
    /// for how long, never the token).
    func recordAccessTokenIssued(accountId: String, expiresIn: Int, origin: AuditOrigin) async throws {
        try await store.record(origin.event(.accessTokenIssued, at: now(), account: accountId, detail: ["expiresIn": .number(expiresIn)]))
    }

    func revoke(_ token: String, origin: AuditOrigin?) async throws {
        let at = now()
        var event: (@Sendable (String) -> AuditEvent)?
        if let origin {
            event = { accountId in origin.event(.sessionEnded, at: at, account: accountId) }
        }
        endListener?.sessionEnded(tokenHash: SessionToken.hash(of: token))
        try await store.deleteSession(tokenHash: SessionToken.hash(of: token), at: at, event: event)
    }

    /// Ends every session of the account, the caller's included, audited (`sessions.revoked`) as coming
    /// from `origin`. Returns how many ended.
    @discardableResult
    func revokeAll(accountId: String, origin: AuditOrigin) async throws -> Int {
        let at = now()
        endListener?.sessionsEnded(accountId: accountId)
        return try await store.deleteSessions(accountId: accountId, at: at) { ended in
            origin.event(.sessionsRevoked, at: at, account: accountId, detail: ["sessions": .number(ended)])
        }
    }
}
