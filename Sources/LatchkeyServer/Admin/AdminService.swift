import Foundation
import LatchkeyAPI
import WebAuthn

/// What an operator can do — the admin API (`AdminController`) and `latchkey admin` (`AdminConsole`)
/// both run these, so the two cannot drift apart. Every change is audited with the caller's origin
/// (`admin:<key id>` or `cli`) in the change's own transaction.
struct AdminService: Sendable {
    let store: Store
    let providers: PasskeyProviders
    let androidApps: [AndroidApp]
    let now: @Sendable () -> Date
    /// Recovery grants (the `recovery` scope).
    let recovery: RecoveryService
    /// The serving instance's memory of the clients (nil in `latchkey admin`: another process, which the
    /// server notices within `OIDCClientFacts.lifetime`), told to forget when a client changes.
    var clientFacts: OIDCClientFacts? = nil

    // MARK: Accounts

    /// A page of accounts matching `search` (`limit` of them at most), and the cursor of the next page.
    /// A text of 1 or 2 characters is refused: the search finds text through trigram indexes
    /// (`AccountSearchIndex`), and without a trigram it would read every account.
    func accounts(_ search: AdminAccountStore.AccountSearch) async throws -> AdminAccountPageJSON {
        guard search.text.isEmpty || search.text.count >= AccountSearchIndex.shortestText else {
            throw APIError(.invalidParameter, """
                The search text (q) must have at least \(AccountSearchIndex.shortestText) characters: it is found in display names and passkey \
                names by its three-character pieces (or give the whole account id).
                """)
        }
        var search = search
        let limit = search.limit
        search.limit = limit + 1
        let found = try await store.adminAccounts.search(search, now: now())
        let page = found.prefix(limit).map(AdminAccountJSON.init)
        return AdminAccountPageJSON(accounts: page, next: found.count > limit ? page.last?.id : nil)
    }

    /// Every AAGUID a provider text names: an AAGUID itself, or a provider's name from the bundled list
    /// (any case). Empty when it names none.
    func aaguids(provider text: String) -> [[UInt8]] {
        if let bytes = PasskeyProviders.bytes(uuid: text.lowercased()) { return [bytes] }
        return providers.aaguids(named: text)
    }

    func account(id: String) async throws -> AdminAccountDetailJSON {
        guard let summary = try await store.adminAccounts.summary(id: id, now: now()) else { throw APIError.unknownAccount }
        let credentials = try await store.credentials(accountId: id)
        let providers = try await self.providers.completed(for: credentials.map(\.aaguid), from: store)
        let passkeys = credentials.map { PasskeyJSON($0, providers: providers, androidApps: androidApps) }
        let sessions = try await store.adminAccounts.sessions(accountId: id, now: now()).map(AdminSessionJSON.init)
        let profile = try await store.accountProfile(id: id)
        return AdminAccountDetailJSON(
            account: AdminAccountJSON(summary), credo: summary.account.credo, username: profile?.username, email: profile?.email,
            emailVerified: profile?.emailVerified ?? false, groups: profile?.groups ?? [], passkeys: passkeys, sessions: sessions)
    }

    /// Disables the account: its sessions end and its logins are refused (403 `account_disabled`) until
    /// it is enabled. Disabling a disabled account keeps its first date.
    func disable(accountId: String, origin: AuditOrigin) async throws -> AdminAccountDetailJSON {
        let detail = try await account(id: accountId)
        if detail.account.disabledAt == nil {
            let at = now()
            guard try await store.adminAccounts.setDisabled(id: accountId, at: at, now: at, event: { ended in
                origin.event(.accountDisabled, at: at, account: accountId, detail: ["sessionsEnded": .number(ended)])
            }) else { throw APIError.unknownAccount }
        }
        return try await account(id: accountId)
    }

    func enable(accountId: String, origin: AuditOrigin) async throws -> AdminAccountDetailJSON {
        let detail = try await account(id: accountId)
        if detail.account.disabledAt != nil {
            let at = now()
            guard try await store.adminAccounts.setDisabled(id: accountId, at: nil, now: at, event: { _ in
                origin.event(.accountEnabled, at: at, account: accountId)
            }) else { throw APIError.unknownAccount }
        }
        return try await account(id: accountId)
    }

    /// Deletes the account, its passkeys and sessions; its audit trail stays (until retention).
    func delete(accountId: String, origin: AuditOrigin) async throws {
        guard try await store.deleteAccount(id: accountId, event: origin.event(.accountDeleted, at: now(), account: accountId)) else {
            throw APIError.unknownAccount
        }
    }

    /// Removes a passkey, ending the sessions it opened. The account's last passkey only with `allowLast`
    /// (the person can then sign in only after recovery).
    func removePasskey(id credentialId: [UInt8], allowLast: Bool, origin: AuditOrigin) async throws {
        guard let credential = try await store.credential(id: credentialId) else { throw APIError.unknownPasskey }
        let event = origin.event(
            .passkeyRemoved, at: now(), account: credential.accountId, credential: credentialId, detail: ["name": .text(credential.name)])
        switch try await store.adminAccounts.removeCredential(id: credentialId, accountId: credential.accountId, allowLast: allowLast, event: event) {
        case .deleted: return
        case .notFound: throw APIError.unknownPasskey
        case .lastPasskey:
            throw APIError(.lastPasskey, "This is the account's only passkey; removing it locks the person out until recovery. Confirm with allowLast (--allow-last).")
        }
    }

    /// Ends every session of the account (its access tokens stop being accepted by introspection at
    /// once). Returns how many ended.
    func revokeSessions(accountId: String, origin: AuditOrigin) async throws -> Int {
        _ = try await account(id: accountId)
        let at = now()
        return try await store.deleteSessions(accountId: accountId, at: at) { ended in
            origin.event(.sessionsRevoked, at: at, account: accountId, detail: ["sessions": .number(ended)])
        }
    }

    // MARK: Audit trail

    /// A page of events, newest first, and the cursor of the next page.
    func events(_ query: Store.AuditQuery) async throws -> AuditEventPageJSON {
        var query = query
        let limit = query.limit
        query.limit = limit + 1
        let found = try await store.auditEvents(query)
        let page = found.prefix(limit).map(AuditEventJSON.init)
        return AuditEventPageJSON(events: page, next: found.count > limit ? page.last?.id : nil)
    }

    // MARK: Admin keys

    /// The longest name a key may have.
    static let keyNameLimit = 64

    /// A new key; its secret is in the answer and nowhere else.
    func createKey(scope: AdminKeyRecord.Scope, name: String, origin: AuditOrigin) async throws -> AdminKeyCreatedJSON {
        let name = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty, name.count <= Self.keyNameLimit, !name.contains(where: { $0.isNewline }) else {
            throw APIError(.invalidField, "A key's name is 1 to \(Self.keyNameLimit) characters on one line.")
        }
        let secret = AdminKeySecret.generate()
        let record = AdminKeyRecord(
            id: secret.id, secretHash: SecretDigest.of(secret.text), scope: scope, name: name, createdAt: now(), createdBy: origin.actor)
        try await store.adminKeys.insert(record, event: origin.event(
            .adminKeyCreated, at: record.createdAt, account: nil, detail: ["keyId": .text(record.id), "scope": .text(scope.rawValue), "name": .text(name)]))
        return AdminKeyCreatedJSON(key: AdminKeyJSON(record), secret: secret.text)
    }

    func keys() async throws -> [AdminKeyJSON] {
        try await store.adminKeys.all().map(AdminKeyJSON.init)
    }

    func revokeKey(id: String, origin: AuditOrigin) async throws {
        guard try await store.adminKeys.revoke(
            id: id, at: now(), event: origin.event(.adminKeyRevoked, at: now(), account: nil, detail: ["keyId": .text(id)]))
        else { throw APIError(.unknownAdminKey, "There is no live admin key with this id.") }
    }

    /// The live key a request presents, or nil (unknown, revoked, or not a key's shape). Its use is
    /// recorded (at most once a minute).
    func authenticate(_ presented: String) async throws -> AdminKeyRecord? {
        guard let id = AdminKeySecret.id(of: presented), let key = try await store.adminKeys.key(id: id) else { return nil }
        guard ConstantTime.equal(SecretDigest.of(presented), key.secretHash), key.revokedAt == nil else { return nil }
        try await store.adminKeys.touch(id: id, now: now())
        return key
    }
}
