import Foundation
import LatchkeyAPI
import WebAuthn

/// Getting back in without a passkey: an operator issues a recovery grant (`issue`); the person exchanges
/// its code for a restricted session (`exchange`) that can only add a passkey, and the grant is used up
/// in the transaction that adds it (`CeremonyStorage.addCredential(…recovery:)`). A grant is short-lived
/// (5 minutes to a day), single-use, one per account at a time, stored as a hash, and its code is tried at
/// most `attemptLimit` times wrong before the grant is revoked.
struct RecoveryService: Sendable {
    let store: Store
    let configuration: ServerConfiguration
    let now: @Sendable () -> Date

    /// How long a restricted session lives: time to make one passkey, not to linger.
    static let sessionLifetime: TimeInterval = 15 * 60
    static let attemptLimit = 5
    static let lifetimeSeconds: ClosedRange<Int> = 300...86_400
    static let lifetimes = TimeInterval(lifetimeSeconds.lowerBound)...TimeInterval(lifetimeSeconds.upperBound)
    static let defaultLifetimeSeconds = 3600
    static let defaultLifetime = TimeInterval(defaultLifetimeSeconds)
    /// The refusal of a lifetime out of range. It does not repeat the number: a caller's 2^63 or NaN,
    /// converted for the sentence, was what trapped (review 4, S4-2).
    static let lifetimeRefusal = APIError(
        .invalidField, "ttlSeconds: a recovery grant lives from 5 minutes to 24 hours (a whole number from 300 to 86400 seconds).")

    /// The one answer to every code that cannot be exchanged: it says nothing about why.
    // MARK: Issuing

    func issue(accountId: String, lifetime: TimeInterval, origin: AuditOrigin) async throws -> RecoveryIssuedJSON {
        guard lifetime.isFinite, Self.lifetimes.contains(lifetime) else { throw Self.lifetimeRefusal }
        guard let account = try await store.account(id: accountId) else { throw APIError.unknownAccount }
        let issuedAt = now()
        for _ in 0..<5 {
            let code = RecoveryCode.generate()
            let grant = RecoveryGrantRecord(
                id: code.id, secretHash: code.secretHash, accountId: account.id, purpose: "add_passkey", issuedAt: issuedAt,
                expiresAt: issuedAt + lifetime, issuedBy: origin.actor)
            do {
                _ = try await store.recovery.issue(grant) { revoked in
                    var detail: AuditDetail = ["grantId": .text(grant.id), "expiresIn": .number(Int(lifetime)), "replaced": .number(revoked)]
                    // A grant mailed on request (`EmailService`) says so, so that the person's history does not
                    // name the operator for it.
                    if origin.actor == "email" { detail.members.append(("by", .text("email"))) }
                    return [origin.event(.recoveryIssued, at: issuedAt, account: account.id, detail: detail)]
                }
                return RecoveryIssuedJSON(grant: RecoveryGrantJSON(grant, now: issuedAt), code: code.text, link: link(for: code))
            } catch Store.Failure.duplicate {
                continue  // an id drawn twice (one in 33 million): draw again
            }
        }
        throw APIError.internalError
    }

    /// `ORIGIN/recover#CODE`: the fragment never reaches a server's logs.
    func link(for code: RecoveryCode) -> String {
        "\(configuration.origins.first ?? "")/recover#\(code.text)"
    }

    func grants(accountId: String?) async throws -> [RecoveryGrantJSON] {
        let at = now()
        return try await store.recovery.grants(accountId: accountId).map { RecoveryGrantJSON($0, now: at) }
    }

    func revoke(grantId: String, origin: AuditOrigin) async throws {
        let at = now()
        guard try await store.recovery.revoke(id: grantId, at: at, event: { account in
            origin.event(.recoveryRevoked, at: at, account: account, detail: ["grantId": .text(grantId)])
        }) else { throw APIError(.unknownRecoveryGrant, "There is no recovery grant with this id that is not used or revoked yet.") }
    }

    // MARK: Exchanging

    /// A restricted session for a valid code. Every refusal is `refused`, whatever the reason; a wrong
    /// secret for a real grant is counted against it (and audited on its account).
    func exchange(code text: String, origin: AuditOrigin) async throws -> RecoveryExchangeJSON {
        guard let code = RecoveryCode.parse(text), let grant = try await store.recovery.grant(id: code.id) else { throw APIError.invalidRecoveryCode }
        let at = now()
        func refuse(_ reason: String) async throws -> Never {
            try await store.record(origin.event(.recoveryRefused, at: at, account: grant.accountId, detail: [
                "grantId": .text(grant.id), "reason": .text(reason),
            ]))
            throw APIError.invalidRecoveryCode
        }
        guard ConstantTime.equal(code.secretHash, grant.secretHash) else {
            guard grant.revokedAt == nil, grant.usedAt == nil else { throw APIError.invalidRecoveryCode }  // a dead grant counts nothing more
            try await store.recovery.fail(id: grant.id, at: at, limit: Self.attemptLimit, event: origin.event(
                .recoveryRefused, at: at, account: grant.accountId, detail: ["grantId": .text(grant.id), "reason": .text("wrong_code")]))
            throw APIError.invalidRecoveryCode
        }
        guard grant.isOutstanding(at: at), grant.exchangedAt == nil else { try await refuse(grant.state(at: at)) }
        guard let account = try await store.account(id: grant.accountId), account.disabledAt == nil else { try await refuse("account_disabled") }
        let token = SessionToken.generateRecovery()
        let session = NewSession(
            tokenHash: token.hash, accountId: account.id, credentialId: nil, createdAt: at,
            expiresAt: min(at + Self.sessionLifetime, grant.expiresAt), userVerified: false)
        guard try await store.recovery.exchange(id: grant.id, session: session, event: origin.event(
            .recoveryExchanged, at: at, account: account.id, detail: ["grantId": .text(grant.id)]))
            != nil
        else { try await refuse("exchanged") }
        return RecoveryExchangeJSON(
            token: token.value, expiresAt: session.expiresAt, account: RecoveryAccountJSON(id: account.id, displayName: account.displayName))
    }
}
