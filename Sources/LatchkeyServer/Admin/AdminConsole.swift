import Foundation
import LatchkeyAPI
import LatchkeyDatabase
import Logging
import NIOPosix
import WebAuthn

/// `latchkey admin`: the operator's operations (`AdminService`) on the database directly — no running
/// server, no key. Each method answers the text to print: a table for people, or with `json` the same
/// document the admin API answers. Changes are audited with the actor `cli`.
package struct AdminConsole: Sendable {
    let service: AdminService
    let connections: DatabaseConnections
    /// The authenticator policy of the configuration the console was opened with.
    let policy: AuthenticatorPolicy

    /// A refusal, as a sentence and the API's error code (`unknown_account`, `last_passkey`, …).
    package struct Refusal: Error, CustomStringConvertible {
        package let code: String
        package let message: String
        /// The exit status: 1 (refused), or 2 when what was typed breaks a field's rule (a client's or a
        /// profile's: called wrongly, like a usage error).
        package var status: Int32 = 1
        package var description: String { message }
    }

    /// Opens (and migrates, like `serve`) the configured database.
    package static func open(configuration: ServerConfiguration, now: @escaping @Sendable () -> Date = { Date() }) async throws -> AdminConsole {
        var logger = Logger(label: "latchkey-admin")
        logger.logLevel = .critical
        let connections = try await configuration.openMigratedDatabase(logger: logger, eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
        // The configured webhook endpoints too: an operator's change is queued for them like any other.
        let store = Store(connections: connections, webhookEndpoints: configuration.webhookEndpoints.map(\.id))
        let providers = try PasskeyProviders.bundled()
        let service = AdminService(
            store: store, providers: providers, androidApps: configuration.androidApps, now: now,
            recovery: RecoveryService(store: store, configuration: configuration, now: now))
        let policy: AuthenticatorPolicy
        do {
            policy = try AuthenticatorPolicy(configuration: configuration, providers: providers)
        } catch {
            try? await connections.shutdown()
            throw error
        }
        return AdminConsole(service: service, connections: connections, policy: policy)
    }

    package func close() async {
        try? await connections.shutdown()
    }

    /// Runs `body`, making its `APIError` a `Refusal`; with `rulesAreUsage`, a broken field rule (422)
    /// exits 2.
    func run<T>(rulesAreUsage: Bool = false, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as APIError {
            throw Refusal(code: error.code, message: error.message, status: rulesAreUsage && error.kind == .invalidField ? 2 : 1)
        }
    }

    static func json(_ value: some Encodable) throws -> String {
        String(decoding: try JSONResponse.encoder.encode(value), as: UTF8.self)
    }

    // MARK: Accounts

    package func searchAccounts(
        text: String, provider: String?, lastLoginFrom: String?, lastLoginBefore: String?, after: String, limit: Int, json: Bool
    ) async throws -> String {
        try await run {
            var search = AdminAccountStore.AccountSearch()
            search.text = text
            if let provider {
                guard let aaguid = service.aaguids(provider: provider).first else {
                    throw APIError(.invalidParameter, "No provider in the bundled list is called \(provider), and it is not an AAGUID.")
                }
                search.aaguid = aaguid
            }
            search.lastLoginFrom = try Self.time(lastLoginFrom, "--last-login-from")
            search.lastLoginBefore = try Self.time(lastLoginBefore, "--last-login-before")
            search.after = after
            search.limit = limit
            let page = try await service.accounts(search)
            if json { return try Self.json(page) }
            var lines = Table(["ID", "DISPLAY NAME", "PASSKEYS", "SESSIONS", "LAST LOGIN", "STATE"])
            for account in page.accounts {
                lines.add([
                    account.id, account.displayName, "\(account.passkeys)", "\(account.sessions)", Self.text(account.lastLoginAt),
                    account.disabledAt == nil ? "enabled" : "disabled " + Self.text(account.disabledAt),
                ])
            }
            return lines.text + (page.next.map { "\nMore: --after \($0)" } ?? "")
        }
    }

    package func showAccount(id: String, json: Bool) async throws -> String {
        try await run { try Self.render(try await service.account(id: id), json: json) }
    }

    package func disable(accountId: String, json: Bool) async throws -> String {
        try await run { try Self.render(try await service.disable(accountId: accountId, origin: .cli), json: json) }
    }

    package func enable(accountId: String, json: Bool) async throws -> String {
        try await run { try Self.render(try await service.enable(accountId: accountId, origin: .cli), json: json) }
    }

    package func delete(accountId: String) async throws -> String {
        try await run {
            try await service.delete(accountId: accountId, origin: .cli)
            return "Deleted account \(accountId), its passkeys and sessions."
        }
    }

    package func removePasskey(id: String, allowLast: Bool) async throws -> String {
        try await run {
            guard let bytes = Base64URL.decode(id), !bytes.isEmpty else {
                throw APIError(.invalidPasskeyId, "The passkey id must be base64url (as latchkey admin accounts show prints it).")
            }
            try await service.removePasskey(id: bytes, allowLast: allowLast, origin: .cli)
            return "Removed passkey \(id); the sessions it opened have ended."
        }
    }

    /// Every stored passkey the configured authenticator policy would refuse now, or whose model the
    /// stored FIDO metadata now reports compromised (they keep working).
    package func passkeysViolatingPolicy(json: Bool) async throws -> String {
        try await run {
            var rows: [(CredentialRecord, [String])] = []
            var after: [UInt8] = []
            var metadata: [[UInt8]: MetadataRecord?] = [:]
            while true {
                let page = try await service.store.credentials(after: after, limit: 1000)
                for credential in page {
                    var broken = policy.violations(of: credential)
                    if metadata[credential.aaguid] == nil { metadata[credential.aaguid] = .some(try await service.store.metadata.entry(aaguid: credential.aaguid)) }
                    if let record = metadata[credential.aaguid] ?? nil,
                       let refusal = MetadataRefusal.refusal(record, name: service.providers.provider(aaguid: credential.aaguid)?.name ?? record.description) {
                        broken.append(refusal)
                    }
                    if !broken.isEmpty { rows.append((credential, broken)) }
                }
                guard let last = page.last, page.count == 1000 else { break }
                after = last.id
            }
            if json {
                return try Self.json(rows.map { credential, broken in
                    PolicyViolationJSON(
                        passkeyId: Base64URL.encode(credential.id), accountId: credential.accountId, aaguid: AAGUIDFormat.string(credential.aaguid),
                        provider: service.providers.provider(aaguid: credential.aaguid)?.name, violations: broken)
                })
            }
            var lines = Table(["PASSKEY ID", "ACCOUNT", "PROVIDER", "BREAKS"])
            for (credential, broken) in rows {
                lines.add([
                    Base64URL.encode(credential.id), credential.accountId,
                    service.providers.provider(aaguid: credential.aaguid)?.name ?? AAGUIDFormat.string(credential.aaguid), broken.joined(separator: " "),
                ])
            }
            return lines.text + "\n\(rows.count) passkey\(rows.count == 1 ? "" : "s") the policy would refuse today (they keep working)."
        }
    }

    package func revokeSessions(accountId: String) async throws -> String {
        try await run {
            let ended = try await service.revokeSessions(accountId: accountId, origin: .cli)
            return "Ended \(ended) session\(ended == 1 ? "" : "s") of account \(accountId)."
        }
    }

    // MARK: Audit trail

    package func audit(account: String?, event: String?, since: String?, before: Int64?, limit: Int, json: Bool) async throws -> String {
        try await run {
            var query = Store.AuditQuery(accountId: account, since: try Self.time(since, "--since"), before: before, limit: limit)
            if let event {
                guard let kind = AuditEvent.Kind(rawValue: event) else {
                    throw APIError(.invalidParameter, "--event must be one of: \(AuditEvent.Kind.allCases.map(\.rawValue).joined(separator: ", ")).")
                }
                query.kind = kind
            }
            let page = try await service.events(query)
            if json { return try Self.json(page) }
            var lines = Table(["ID", "TIME", "EVENT", "ACCOUNT", "ACTOR", "ADDRESS", "DETAIL"])
            for event in page.events {
                let detail = event.detail.keys.sorted().map { key in "\(key)=\(Self.text(event.detail[key]))" }.joined(separator: " ")
                lines.add([event.id, Self.text(event.at), event.event, event.accountId ?? "-", event.actor, event.clientAddress ?? "-", detail])
            }
            return lines.text + (page.next.map { "\nMore: --before \($0)" } ?? "")
        }
    }

    // MARK: Recovery

    package func issueRecovery(accountId: String, lifetime: TimeInterval, json: Bool) async throws -> String {
        try await run {
            let issued = try await service.recovery.issue(accountId: accountId, lifetime: lifetime, origin: .cli)
            if json { return try Self.json(issued) }
            return """
                Recovery grant \(issued.grant.id) for account \(accountId), valid until \(Self.text(issued.grant.expiresAt)) \
                (any earlier grant of the account is revoked). Give the person this code, or the link — once:

                    \(issued.code)
                    \(issued.link)

                It lets them add one passkey, nothing else; only its hash is stored.
                """
        }
    }

    package func recoveryGrants(accountId: String?, json: Bool) async throws -> String {
        try await run {
            let grants = try await service.recovery.grants(accountId: accountId)
            if json { return try Self.json(grants) }
            var lines = Table(["GRANT", "ACCOUNT", "STATE", "ISSUED", "EXPIRES", "BY", "WRONG TRIES"])
            for grant in grants {
                lines.add([grant.id, grant.accountId, grant.state, Self.text(grant.issuedAt), Self.text(grant.expiresAt), grant.issuedBy, "\(grant.failedAttempts)"])
            }
            return lines.text
        }
    }

    package func revokeRecovery(grantId: String) async throws -> String {
        try await run {
            try await service.recovery.revoke(grantId: grantId, origin: .cli)
            return "Revoked recovery grant \(grantId); its code no longer works, and a session it gave has ended."
        }
    }

    // MARK: Admin keys

    package func createKey(scope: String, name: String, json: Bool) async throws -> String {
        try await run {
            guard let scope = AdminKeyRecord.Scope(rawValue: scope) else {
                throw APIError(.invalidField, "--scope must be read, write or recovery.")
            }
            let created = try await service.createKey(scope: scope, name: name, origin: .cli)
            if json { return try Self.json(created) }
            return """
                Created admin key \(created.key.id) (\(created.key.scope), "\(created.key.name)"). Its secret, shown this once:

                    \(created.secret)

                Present it as Authorization: Bearer <secret> to /api/admin/…; only its SHA-256 is stored.
                """
        }
    }

    // MARK: Administrators

    package func grantAdmin(accountId: String, scopes: [String], json: Bool) async throws -> String {
        try await run(rulesAreUsage: true) {
            let role = try await service.grantAdmin(accountId: accountId, scopes: try AdminService.scopes(scopes), caller: nil, origin: .cli)
            if json { return try Self.json(role) }
            return "Account \(accountId) is an administrator (\(role.scopes.joined(separator: ", "))): it signs in to the console at /admin with its passkey."
        }
    }

    package func revokeAdmin(accountId: String) async throws -> String {
        try await run {
            try await service.revokeAdmin(accountId: accountId, origin: .cli)
            return "Account \(accountId) is no longer an administrator; its console sessions have ended."
        }
    }

    package func admins(json: Bool) async throws -> String {
        try await run {
            let admins = try await service.admins()
            if json { return try Self.json(admins) }
            var lines = Table(["ACCOUNT", "SCOPES", "GRANTED", "BY"])
            for admin in admins {
                lines.add([admin.accountId, admin.scopes.joined(separator: ","), Self.text(admin.grantedAt), admin.grantedBy])
            }
            return lines.text
        }
    }

    package func keys(json: Bool) async throws -> String {
        try await run {
            let keys = try await service.keys()
            if json { return try Self.json(keys) }
            var lines = Table(["ID", "SCOPE", "NAME", "CREATED", "BY", "LAST USED", "REVOKED"])
            for key in keys {
                lines.add([key.id, key.scope, key.name, Self.text(key.createdAt), key.createdBy, Self.text(key.lastUsedAt), Self.text(key.revokedAt)])
            }
            return lines.text
        }
    }

    package func revokeKey(id: String) async throws -> String {
        try await run {
            try await service.revokeKey(id: id, origin: .cli)
            return "Revoked admin key \(id); requests presenting it now get 401."
        }
    }

    // MARK: Text

    static func render(_ detail: AdminAccountDetailJSON, json: Bool) throws -> String {
        if json { return try Self.json(detail) }
        let account = detail.account
        var text = """
            Account      \(account.id)
            Display name \(account.displayName)
            Created      \(Self.text(account.createdAt))
            Last login   \(Self.text(account.lastLoginAt))
            State        \(account.disabledAt == nil ? "enabled" : "disabled since " + Self.text(account.disabledAt))
            Username     \(detail.username ?? "-")
            Email        \(detail.email.map { $0 + (detail.emailVerified ? " (verified)" : " (not verified)") } ?? "-")
            Groups       \(detail.groups.isEmpty ? "-" : detail.groups.joined(separator: " "))

            """
        // DISCOVERABLE and PRF are what the client said at registration ("?" where it did not say).
        var passkeys = Table(["PASSKEY ID", "NAME", "PROVIDER", "CREATED", "LAST USED", "SYNCED", "DISCOVERABLE", "PRF"])
        for passkey in detail.passkeys {
            passkeys.add([
                passkey.id, passkey.name, passkey.provider?.name ?? passkey.aaguid, Self.text(passkey.createdAt), Self.text(passkey.lastUsedAt),
                passkey.backedUp ? "yes" : "no", Self.text(passkey.discoverable), Self.text(passkey.prfEnabled),
            ])
        }
        var sessions = Table(["SESSION", "CREATED", "EXPIRES", "PASSKEY", "UV"])
        for session in detail.sessions {
            sessions.add([session.sid, Self.text(session.createdAt), Self.text(session.expiresAt), session.passkeyId ?? "-", session.userVerified ? "yes" : "no"])
        }
        text += "\nPasskeys (\(detail.passkeys.count))\n" + passkeys.text + "\n\nSessions (\(detail.sessions.count))\n" + sessions.text
        return text
    }

    /// yes, no, or "?" for what was never said.
    static func text(_ flag: Bool?) -> String {
        flag.map { $0 ? "yes" : "no" } ?? "?"
    }

    static func text(_ date: Date?) -> String {
        guard let date else { return "-" }
        return date.formatted(.iso8601)
    }

    static func text(_ value: AuditDetailValue?) -> String {
        switch value {
        case .text(let text): return text.contains(" ") ? "\"\(text)\"" : text
        case .number(let number): return "\(number)"
        case .flag(let flag): return "\(flag)"
        case nil: return ""
        }
    }

    static func time(_ text: String?, _ name: String) throws -> Date? {
        guard let text else { return nil }
        guard let date = APIQuery.time(text) else {
            throw APIError(.invalidParameter, "\(name) must be an ISO 8601 time such as 2026-11-25T10:00:00Z, or a date such as 2026-11-25.")
        }
        return date
    }
}

/// Columns padded to their widest cell, for people reading a terminal.
struct Table {
    private var rows: [[String]]

    init(_ header: [String]) {
        rows = [header]
    }

    mutating func add(_ row: [String]) {
        rows.append(row.map { $0.replacingOccurrences(of: "\n", with: " ") })
    }

    var text: String {
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}

/// A stored passkey the authenticator policy would refuse, and the rules it breaks.
struct PolicyViolationJSON: Encodable {
    let passkeyId: String
    let accountId: String
    let aaguid: String
    let provider: String?
    let violations: [String]
}
