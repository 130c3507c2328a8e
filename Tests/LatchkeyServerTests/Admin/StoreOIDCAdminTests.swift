import Foundation
import Testing
@testable import LatchkeyServer

/// The operator's and the person's side of OpenID Connect in the store, on every backend: clients changed
/// with their secret in one transaction, profile changes in one transaction with their one event (a
/// username unique whatever else the request changes), and "Apps with access" listed and taken back. An
/// extension of `StoreTests` so that they share its serialization (one PostgreSQL database).
extension StoreTests {
    static func client(_ id: String, name: String? = nil, secret: [UInt8]? = [7, 7]) -> OIDCClientRecord {
        let at = Date(timeIntervalSince1970: 1_800_000_000)
        return OIDCClientRecord(
            id: id, name: name ?? id, secretHash: secret, redirectURIs: ["https://\(id).example/cb"], postLogoutURIs: [], idTokenAlgorithm: "ES256",
            firstParty: false, scopes: ["openid", "profile"], allowedGroups: [], createdAt: at, updatedAt: at, createdBy: "test")
    }

    static func event(_ kind: AuditEvent.Kind, account: String? = nil) -> AuditEvent {
        AuditOrigin.test.event(kind, at: Date(), account: account)
    }

    /// A grant (and with `consent`, the consent) as the authorization endpoint stores them.
    static func grant(
        _ store: Store, account: String, client: String, scopes: [String], consent: [String]?, created: Date, expires: Date
    ) async throws -> OIDCGrantRecord {
        let grant = OIDCGrantRecord(
            id: UUID().uuidString, clientId: client, accountId: account, sessionHash: nil, scopes: scopes, nonce: nil, authTime: created,
            amr: ["hwk"], createdAt: created, expiresAt: expires)
        let code = OIDCCodeRecord(codeHash: Array(UUID().uuidString.utf8), grantId: grant.id, redirectURI: "https://x/cb", codeChallenge: nil, expiresAt: expires)
        try await store.oidcGrants.issueCode(grant: grant, code: code, consent: consent, events: [])
        return grant
    }

    @Test("a client made public or confidential changes its secret in the update's transaction, with its one event", arguments: Backends.all)
    func clientSecretWithUpdate(backend: String) async throws {
        try await Backends.with(backend) { store in
            var client = Self.client("grafana")
            #expect(try await store.oidcClients.insert(client, event: Self.event(.oidcClientCreated)))
            #expect(try await !store.oidcClients.insert(Self.client("grafana", name: "Other"), event: Self.event(.oidcClientCreated)))
            client.secretHash = nil
            client.name = "Grafana"
            #expect(try await store.oidcClients.update(client, secretChanged: true, event: { _ in Self.event(.oidcClientUpdated) }) == 0)
            #expect(try await store.oidcClients.client(id: "grafana") == client)
            client.secretHash = [9, 9, 9]
            #expect(try await store.oidcClients.update(client, secretChanged: false, event: { _ in Self.event(.oidcClientUpdated) }) == 0)
            #expect(try await store.oidcClients.client(id: "grafana")?.secretHash == nil, "without secretChanged the secret stays")
            #expect(try await store.oidcClients.update(client, secretChanged: true, event: { _ in Self.event(.oidcClientUpdated) }) == 0)
            #expect(try await store.oidcClients.client(id: "grafana")?.secretHash == [9, 9, 9])
            #expect(try await store.oidcClients.update(Self.client("nobody"), secretChanged: true, event: { _ in Self.event(.oidcClientUpdated) }) == nil)
            let kinds = try await store.auditEvents(Store.AuditQuery(limit: 10)).map(\.kind)
            #expect(kinds == [.oidcClientUpdated, .oidcClientUpdated, .oidcClientUpdated, .oidcClientCreated], "\(kinds)")
        }
    }

    @Test("rotating a secret revokes every live grant of that client, no other's, in the transaction of its one event", arguments: Backends.all)
    func rotationRevokesGrants(backend: String) async throws {
        try await Backends.with(backend) { store in
            let ada = Self.account()
            try await store.ceremonies.createAccount(ada, credential: Self.credential([0x33, 1], account: ada.id))
            for id in ["grafana", "wiki"] {
                #expect(try await store.oidcClients.insert(Self.client(id), event: Self.event(.oidcClientCreated)))
            }
            let now = Date()
            let grants = [
                try await Self.grant(store, account: ada.id, client: "grafana", scopes: ["openid"], consent: ["openid"], created: now, expires: now + 3600),
                try await Self.grant(store, account: ada.id, client: "grafana", scopes: ["openid", "offline_access"], consent: nil, created: now, expires: now + 3600),
            ]
            let wiki = try await Self.grant(store, account: ada.id, client: "wiki", scopes: ["openid"], consent: nil, created: now, expires: now + 3600)
            #expect(try await store.oidcGrants.revoke(grants[0], at: now, events: []), "one already revoked: not counted again")
            let revoked = try await store.oidcClients.rotateSecret(id: "grafana", secretHash: [9, 9], at: now + 1) { count in
                AuditOrigin.test.event(.oidcClientSecretRotated, at: now + 1, account: nil, detail: ["grantsRevoked": .number(count)])
            }
            #expect(revoked == 1)
            #expect(try await store.oidcClients.client(id: "grafana")?.secretHash == [9, 9])
            for grant in grants { #expect(try await store.oidcGrants.live(id: grant.id, at: now + 2) == nil) }
            #expect(try await store.oidcGrants.live(id: wiki.id, at: now + 2) != nil, "another client's grant stays")
            let rotated = try #require(try await store.auditEvents(Store.AuditQuery(limit: 1)).first)
            #expect(rotated.kind == .oidcClientSecretRotated && rotated.detail.contains(#""grantsRevoked":1"#), "\(rotated.detail)")
            #expect(try await store.oidcClients.rotateSecret(id: "nobody", secretHash: [1], at: now) { _ in Self.event(.oidcClientSecretRotated) } == nil)
        }
    }

    @Test("profile changes: one transaction and one event; a taken username changes nothing; the email's verification", arguments: Backends.all)
    func profileChanges(backend: String) async throws {
        try await Backends.with(backend) { store in
            let ada = Self.account()
            let grace = Self.account()
            try await store.ceremonies.createAccount(ada, credential: Self.credential([0x31, 1], account: ada.id))
            try await store.ceremonies.createAccount(grace, credential: Self.credential([0x31, 2], account: grace.id))
            let at = Date(timeIntervalSince1970: 1_800_000_000)
            #expect(try await store.changeProfile(
                accountId: ada.id, [.username("ada"), .email("ada@example.com", verified: true), .groups(["staff", "admins"])], at: at,
                event: Self.event(.accountUpdated, account: ada.id)))
            var profile = try #require(try await store.accountProfile(id: ada.id))
            #expect(profile.username == "ada" && profile.email == "ada@example.com" && profile.emailVerified && profile.groups == ["staff", "admins"])
            #expect(profile.updatedAt == at)
            #expect(try await store.accountId(username: "ada") == ada.id)

            // Grace asks for "ada" and a group at once: refused, and her groups stay as they were.
            await #expect(throws: Store.Failure.duplicate) {
                _ = try await store.changeProfile(
                    accountId: grace.id, [.groups(["ops"]), .username("ada")], at: at, event: Self.event(.accountUpdated, account: grace.id))
            }
            #expect(try await store.accountProfile(id: grace.id)?.groups == [])
            // The unique index is the last word, whatever the check saw.
            #expect(try await store.changeProfile(accountId: ada.id, .username("ada"), at: at, event: Self.event(.accountUpdated, account: ada.id)))

            // The same address keeps its verification when nothing is said; another one loses it.
            _ = try await store.changeProfile(accountId: ada.id, .email("ada@example.com", verified: nil), at: at, event: Self.event(.accountUpdated))
            #expect(try await store.accountProfile(id: ada.id)?.emailVerified == true)
            _ = try await store.changeProfile(accountId: ada.id, .email("ada@example.org", verified: nil), at: at, event: Self.event(.accountUpdated))
            profile = try #require(try await store.accountProfile(id: ada.id))
            #expect(profile.email == "ada@example.org" && !profile.emailVerified)
            _ = try await store.changeProfile(accountId: ada.id, .emailVerified(true), at: at, event: Self.event(.accountUpdated))
            #expect(try await store.accountProfile(id: ada.id)?.emailVerified == true)
            _ = try await store.changeProfile(accountId: ada.id, [.email(nil, verified: false), .username(nil), .groups([])], at: at, event: Self.event(.accountUpdated))
            profile = try #require(try await store.accountProfile(id: ada.id))
            #expect(profile.email == nil && !profile.emailVerified && profile.username == nil && profile.groups == [])
            _ = try await store.changeProfile(accountId: ada.id, .emailVerified(true), at: at, event: Self.event(.accountUpdated))
            #expect(try await store.accountProfile(id: ada.id)?.emailVerified == false, "no address, nothing verified")
            // A removed username stays its first holder's, never another account's (review 4, S4-5); she may take it back.
            await #expect(throws: Store.Failure.duplicate) {
                _ = try await store.changeProfile(accountId: grace.id, .username("ada"), at: at, event: Self.event(.accountUpdated))
            }
            #expect(try await store.changeProfile(accountId: ada.id, .username("ada"), at: at, event: Self.event(.accountUpdated)))
            #expect(try await !store.changeProfile(accountId: "nobody", .username("x1"), at: at, event: Self.event(.accountUpdated)))

            // The person's PATCH: display name and username in one transaction; a taken name changes neither.
            _ = try await store.changeProfile(accountId: ada.id, .username("lovelace"), at: at, event: Self.event(.accountUpdated))
            await #expect(throws: Store.Failure.duplicate) {
                _ = try await store.updateAccount(
                    id: grace.id, displayName: "Not Grace", credo: nil, profile: [.username("lovelace")], now: at, event: Self.event(.accountUpdated))
            }
            #expect(try await store.account(id: grace.id)?.displayName == grace.displayName)
            let updated = try await store.updateAccount(
                id: grace.id, displayName: "Grace", credo: nil, profile: [.username("grace")], now: at, event: Self.event(.accountUpdated))
            #expect(updated?.displayName == "Grace")
            #expect(try await store.accountProfile(id: grace.id)?.username == "grace")
            let events = try await store.auditEvents(Store.AuditQuery(kind: .accountUpdated, limit: 50))
            #expect(events.count == 10, "one event for each change that happened, none for the refused ones: \(events.count)")
        }
    }

    @Test("apps with access: consents and live grants, by name; taking one back ends the consent and every grant at once", arguments: Backends.all)
    func appsWithAccess(backend: String) async throws {
        try await Backends.with(backend) { store in
            let ada = Self.account()
            let grace = Self.account()
            try await store.ceremonies.createAccount(ada, credential: Self.credential([0x32, 1], account: ada.id))
            try await store.ceremonies.createAccount(grace, credential: Self.credential([0x32, 2], account: grace.id))
            for (id, name) in [("grafana", "Grafana"), ("wiki", "a wiki"), ("old", "Old")] {
                #expect(try await store.oidcClients.insert(Self.client(id, name: name), event: Self.event(.oidcClientCreated)))
            }
            let now = Date()
            let day: TimeInterval = 86400
            #expect(try await store.oidcApps.apps(accountId: ada.id, now: now) == [])
            let first = try await Self.grant(
                store, account: ada.id, client: "grafana", scopes: ["openid", "profile"], consent: ["openid", "profile", "email"],
                created: now - 3 * day, expires: now + day)
            let second = try await Self.grant(
                store, account: ada.id, client: "grafana", scopes: ["openid", "email"], consent: nil, created: now - day, expires: now + day)
            _ = try await Self.grant(
                store, account: ada.id, client: "wiki", scopes: ["openid", "offline_access"], consent: nil, created: now - 2 * day, expires: now + day)
            _ = try await Self.grant(store, account: ada.id, client: "old", scopes: ["openid"], consent: nil, created: now - 5 * day, expires: now - day)
            let graces = try await Self.grant(
                store, account: grace.id, client: "grafana", scopes: ["openid"], consent: ["openid"], created: now, expires: now + day)

            let apps = try await store.oidcApps.apps(accountId: ada.id, now: now)
            #expect(apps.map(\.clientId) == ["wiki", "grafana"], "by name, any case; an app whose grants ended is not listed")
            let grafana = try #require(apps.last)
            #expect(grafana.clientName == "Grafana" && grafana.scopes == ["openid", "profile", "email"])
            #expect(abs(grafana.consentedAt.timeIntervalSince(now - 3 * day)) < 1)
            #expect(abs((grafana.lastUsedAt ?? .distantPast).timeIntervalSince(now - day)) < 1)
            #expect(apps.first?.scopes == ["openid", "offline_access"])

            // Taking Grafana back: the consent goes and both of Ada's grants end; Grace's stay.
            let revoked = try await store.oidcApps.revoke(accountId: ada.id, clientId: "grafana", at: now) { name in
                AuditOrigin(actor: "person").event(.oidcGrantRevoked, at: now, account: ada.id, detail: ["client": .text("grafana"), "clientName": .text(name)])
            }
            #expect(revoked)
            #expect(try await store.oidcGrants.consent(accountId: ada.id, clientId: "grafana") == nil)
            #expect(try await store.oidcGrants.live(id: first.id, at: now) == nil)
            #expect(try await store.oidcGrants.live(id: second.id, at: now) == nil)
            #expect(try await store.oidcGrants.live(id: graces.id, at: now) != nil)
            #expect(try await store.oidcGrants.consent(accountId: grace.id, clientId: "grafana") == ["openid"])
            #expect(try await store.oidcApps.apps(accountId: ada.id, now: now).map(\.clientId) == ["wiki"])
            let events = try await store.auditEvents(Store.AuditQuery(accountId: ada.id, kind: .oidcGrantRevoked, limit: 10))
            #expect(events.count == 1 && events.first?.origin.actor == "person" && events.first?.detail.contains("\"clientName\":\"Grafana\"") == true)

            // Nothing left to end (again, an app whose grants ran out, no such client): false, nothing written.
            for client in ["grafana", "old", "nobody"] {
                let again = try await store.oidcApps.revoke(accountId: ada.id, clientId: client, at: now) { _ in Self.event(.oidcGrantRevoked) }
                #expect(!again, "\(client)")
            }
            #expect(try await store.auditEvents(Store.AuditQuery(kind: .oidcGrantRevoked, limit: 10)).count == 1)

            // Removing a client removes what people gave it.
            #expect(try await store.oidcClients.delete(id: "wiki", event: Self.event(.oidcClientRemoved)))
            #expect(try await store.oidcApps.apps(accountId: ada.id, now: now) == [])
        }
    }
}
