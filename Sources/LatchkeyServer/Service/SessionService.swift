import Foundation

/// Sessions: issuing tokens, finding the account behind one, revoking it.
struct SessionService: Sendable {
    let store: Store
    let ttl: TimeInterval
    let now: @Sendable () -> Date

    func create(accountId: String) async throws -> SessionToken {
        let (token, session) = issue(accountId: accountId)
        try await store.insertSession(session)
        return token
    }

    /// A new token and the row that stores it, for a caller that writes the row in its own transaction.
    func issue(accountId: String) -> (token: SessionToken, session: NewSession) {
        let token = SessionToken.generate()
        let created = now()
        return (token, NewSession(tokenHash: token.hash, accountId: accountId, createdAt: created, expiresAt: created + ttl))
    }

    /// The account id of a valid, unexpired token; nil otherwise.
    func accountId(for token: String) async throws -> String? {
        try await store.sessionAccount(tokenHash: SessionToken.hash(of: token), now: now())
    }

    func revoke(_ token: String) async throws {
        try await store.deleteSession(tokenHash: SessionToken.hash(of: token))
    }
}
