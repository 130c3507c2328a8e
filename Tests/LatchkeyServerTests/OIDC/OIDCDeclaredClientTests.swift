import Foundation
import LatchkeyDatabase
import Logging
import Testing
@testable import LatchkeyServer

/// Clients declared in the configuration file (`[[oidc-client]]`, `OIDCDeclaredClient`,
/// `OIDCClientReconciliation`): judged by the rules of `latchkey admin clients add` with the entry named;
/// made, changed, adopted and removed at start in one transaction; several instances starting together on
/// one database make one copy; and the admin API refuses to change a managed client (409
/// `client_managed`, naming the file). Tests/System/OIDC/test_declared_clients.py does it against the binary.
@Suite("OpenID Connect clients declared in the configuration")
struct OIDCDeclaredClientTests {
    static let file = "/etc/latchkey/latchkey.toml"
    static let secret = "lk_client_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG"

    static func wiki(name: String = "Wiki", redirect: String = OIDCTestFlow.callback, secret: String = secret) -> OIDCDeclaredClient {
        var client = OIDCDeclaredClient(id: "wiki", name: name)
        client.redirectURIs = [redirect]
        client.secretHash = OIDCDeclaredClient.secretHash(ofSecret: secret)
        return client
    }

    static func records(_ clients: [OIDCDeclaredClient], at now: Date = Date()) throws -> [OIDCClientRecord] {
        try clients.enumerated().map { try $1.record(managedBy: file, at: now, entry: $0 + 1) }
    }

    static func handMade(_ store: Store, id: String, name: String = "By hand") async throws {
        let client = try OIDCClientRules.newClient(
            .init(name: name, redirectUris: [OIDCTestFlow.callback]), id: id, secretHash: SecretDigest.of(secret), at: Date(), by: "cli")
        #expect(try await store.oidcClients.insert(client, event: AuditOrigin.test.event(.oidcClientCreated, at: Date(), account: nil)))
    }

    @Test("secret-hash is sha256: and 64 hex digits; secret-file's secret is 32+ characters without spaces")
    func secretForms() throws {
        let digest = SecretDigest.of(Self.secret)
        let text = OIDCDeclaredClient.secretHashText(digest)
        #expect(text.hasPrefix("sha256:") && text.count == 71)
        #expect(OIDCDeclaredClient.secretHash(parsing: text) == digest)
        #expect(OIDCDeclaredClient.secretHash(parsing: text.uppercased().replacingOccurrences(of: "SHA256:", with: "sha256:")) == digest)
        for bad in [String(text.dropFirst(7)), "sha256:" + String(repeating: "g", count: 64), String(text.dropLast()), "sha512:" + text.dropFirst(7)] {
            #expect(OIDCDeclaredClient.secretHash(parsing: bad) == nil, "\(bad)")
        }
        #expect(OIDCDeclaredClient.secretHash(ofSecret: "short") == nil)
        #expect(OIDCDeclaredClient.secretHash(ofSecret: String(repeating: "a", count: 31) + " b") == nil)
        #expect(OIDCDeclaredClient.secretHash(ofSecret: Self.secret) == digest)
        #expect(!"\(Self.wiki())".contains(text.dropFirst(7)), "the description holds no digest")
    }

    @Test("a declared client is judged by the rules of clients add, and a refusal names its entry and file")
    func rules() throws {
        func refusal(_ client: OIDCDeclaredClient) -> String {
            do {
                _ = try client.record(managedBy: Self.file, at: Date(), entry: 2)
                return ""
            } catch { return error.description }
        }
        let place = "the OpenID Connect client wiki ([[oidc-client]] number 2 in \(Self.file))"
        var bad = Self.wiki(redirect: "http://wiki.example/cb")
        #expect(refusal(bad).hasPrefix(place) && refusal(bad).contains("redirect_uri_invalid"), "\(refusal(bad))")
        bad = Self.wiki()
        bad.isPublic = true
        #expect(refusal(bad).contains("is public"), "\(refusal(bad))")
        bad.isPublic = false
        bad.secretHash = nil
        #expect(refusal(bad).contains("has no secret"), "\(refusal(bad))")
        bad = Self.wiki()
        bad.jwksURI = "https://wiki.example/jwks.json"
        #expect(refusal(bad).contains("both a secret and keys"), "\(refusal(bad))")
        bad = Self.wiki()
        bad.scopes = ["profile"]
        #expect(refusal(bad).contains("openid_scope_required"), "\(refusal(bad))")
        bad = Self.wiki()
        bad.id = "a b"
        #expect(refusal(bad).contains("client_id_invalid"), "\(refusal(bad))")
        let good = try Self.wiki().record(managedBy: Self.file, at: Date(), entry: 1)
        #expect(good.managedBy == Self.file && good.createdBy == "configuration" && good.secretHash == SecretDigest.of(Self.secret))
    }

    @Test("the configuration is refused with declared clients but no provider, or an id declared twice")
    func validation() throws {
        var configuration = TestServer.configuration {
            $0.declaredOIDCClients = [Self.wiki()]
            $0.declaredOIDCClientsFile = Self.file
        }
        #expect(throws: ServerConfiguration.Invalid.self) { try configuration.validate() }
        configuration.oidc = true
        try configuration.validate()
        configuration.declaredOIDCClients.append(Self.wiki(name: "Again"))
        do {
            try configuration.validate()
            Issue.record("an id declared twice was accepted")
        } catch {
            #expect(error.description.contains("wiki twice"), "\(error)")
        }
    }

    @Test("a managed client is shown as such and cannot be changed, rotated or removed through the admin API")
    func managedRefused() async throws {
        let configuration = TestServer.configuration {
            $0.oidc = true
            $0.declaredOIDCClients = [Self.wiki()]
            $0.declaredOIDCClientsFile = Self.file
        }
        try await TestServer.withApplication(configuration) { api, application in
            let key = try await OIDCClientFactsTests.adminKey(application.store)
            let shown = try await api.send(.get, "/api/admin/clients/wiki", token: key)
            #expect(shown.status == .ok && shown.json?["managedBy"] as? String == Self.file, "\(shown.text)")
            let refusals = [
                try await api.send(.patch, "/api/admin/clients/wiki", object: ["name": "Changed"], token: key),
                try await api.send(.post, "/api/admin/clients/wiki/secret", token: key),
                try await api.send(.delete, "/api/admin/clients/wiki", token: key),
            ]
            for reply in refusals {
                let message = (reply.json?["error"] as? [String: Any])?["message"] as? String ?? ""
                #expect(reply.status == .conflict && reply.errorCode == "client_managed" && message.contains(Self.file), "\(reply.text)")
            }
            #expect(try await application.store.oidcClients.client(id: "wiki")?.name == "Wiki", "nothing changed")
            // The declared secret authenticates the client at the token endpoint.
            let flow = OIDCTestFlow(api: api, application: application, adminKey: key)
            #expect(try await AdminClientTests.tokenError(flow, id: "wiki", secret: Self.secret) == "invalid_grant")
            #expect(try await AdminClientTests.tokenError(flow, id: "wiki", secret: Self.secret + "x") == "invalid_client")
        }
    }

    @Test("clients export writes [[oidc-client]] tables: secrets as their digest only, strings escaped")
    func export() throws {
        var jwksClient = OIDCDeclaredClient(id: "machine", name: "Say \"hi\"\\ now")
        jwksClient.grantTypes = ["client_credentials"]
        jwksClient.apiScopes = ["orders:read"]
        jwksClient.jwks = #"{"keys":[{"kty":"EC","crv":"P-256","kid":"k1","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}]}"#
        let records = try Self.records([Self.wiki(), jwksClient, OIDCDeclaredClient.publicApp])
        let text = OIDCClientTOML.document(records)
        #expect(text.contains("[[oidc-client]]\nid = \"wiki\""))
        #expect(text.contains("secret-hash = \"\(OIDCDeclaredClient.secretHashText(SecretDigest.of(Self.secret)))\""))
        #expect(!text.contains(Self.secret))
        #expect(text.contains(#"name = "Say \"hi\"\\ now""#))
        #expect(text.contains("public = true") && text.contains("api-scope = [\"orders:read\"]"))
        #expect(text.contains(#"jwks = "{\"keys\":[{\"kty\":\"EC\""#))
    }
}

extension StoreTests {
    /// The reconciliation's transaction on every backend (PostgreSQL's tests share one database, so they
    /// run inside `StoreTests`, one at a time).
    @Suite struct DeclaredOIDCClients {
        @Test("made, left alone when unchanged, changed (a new secret a new generation), adopted, removed when undeclared; audited", arguments: Backends.all)
        func reconcile(backend: String) async throws {
            try await Backends.with(backend) { store in
                try await OIDCDeclaredClientTests.handMade(store, id: "hand")
                try await OIDCDeclaredClientTests.handMade(store, id: "adopted", name: "Adopted")
                var adopted = OIDCDeclaredClient(id: "adopted", name: "Adopted")
                adopted.redirectURIs = [OIDCTestFlow.callback]
                adopted.secretHash = SecretDigest.of(OIDCDeclaredClientTests.secret)
                let first = try await store.oidcClients.reconcile(try OIDCDeclaredClientTests.records([OIDCDeclaredClientTests.wiki(), adopted]), managedBy: OIDCDeclaredClientTests.file, at: Date())
                #expect(first.created == ["wiki"] && first.updated == ["adopted"] && first.removed.isEmpty, "\(first)")
                let made = try #require(try await store.oidcClients.client(id: "wiki"))
                #expect(made.managedBy == OIDCDeclaredClientTests.file && made.createdBy == "configuration" && made.secretHash == SecretDigest.of(OIDCDeclaredClientTests.secret))
                let taken = try #require(try await store.oidcClients.client(id: "adopted"))
                #expect(taken.managedBy == OIDCDeclaredClientTests.file && taken.createdBy == "cli", "adopted as it was, its maker kept")
                #expect(try await store.oidcClients.client(id: "hand")?.managedBy == nil)

                let again = try await store.oidcClients.reconcile(try OIDCDeclaredClientTests.records([OIDCDeclaredClientTests.wiki(), adopted]), managedBy: OIDCDeclaredClientTests.file, at: Date())
                #expect(again.isEmpty, "the same file changes nothing: \(again)")
                #expect(try await store.oidcClients.client(id: "wiki") == made)

                let newSecret = OIDCDeclaredClientTests.secret.replacingOccurrences(of: "0123", with: "9876")
                let changed = try await store.oidcClients.reconcile(
                    try OIDCDeclaredClientTests.records([OIDCDeclaredClientTests.wiki(name: "Team wiki", secret: newSecret), adopted]), managedBy: OIDCDeclaredClientTests.file, at: Date())
                #expect(changed.updated == ["wiki"], "\(changed)")
                let now = try #require(try await store.oidcClients.client(id: "wiki"))
                #expect(now.name == "Team wiki" && now.secretHash == SecretDigest.of(newSecret) && now.credentialsGeneration != made.credentialsGeneration)

                let removed = try await store.oidcClients.reconcile(try OIDCDeclaredClientTests.records([adopted]), managedBy: OIDCDeclaredClientTests.file, at: Date())
                #expect(removed.removed == ["wiki"] && removed.created.isEmpty && removed.updated.isEmpty, "\(removed)")
                #expect(try await store.oidcClients.all().map(\.id) == ["adopted", "hand"], "the hand-made client stays")

                let trail = try await store.auditEvents(.init(limit: 20))
                let byConfiguration = trail.filter { $0.origin.actor == "configuration" }.map(\.kind)
                #expect(byConfiguration == [.oidcClientRemoved, .oidcClientUpdated, .oidcClientUpdated, .oidcClientCreated], "\(byConfiguration)")
            }
        }

        @Test("three instances reconciling the same file at once make one copy of each client", arguments: Backends.all.filter { $0 != "sqlite-memory" })
        func concurrentStarts(backend: String) async throws {
            // Three pools on one database, as three instances have.
            let location: DatabaseLocation
            var file: String?
            if backend == "postgres" {
                location = .postgres(url: try #require(Backends.postgresURL))
            } else {
                file = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-declared-\(UUID().uuidString).sqlite").path
                location = .sqlite(path: try #require(file))
            }
            var store: Store?
            var cleanup: @Sendable () async -> Void = {}
            if backend == "postgres" { (store, cleanup) = try await Backends.open(backend) }
            var others: [DatabaseConnections] = []
            for _ in 0..<(store == nil ? 3 : 2) { others.append(try DatabaseConnections.open(location, logger: Logger(label: "test"))) }
            if store == nil { try await Migrations.run(on: others[0]) }
            defer {
                if let file { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file + suffix) } }
            }
            let stores = (store.map { [$0] } ?? []) + others.map { Store(connections: $0) }
            let first = stores[0]
            let declared = try OIDCDeclaredClientTests.records([OIDCDeclaredClientTests.wiki(), OIDCDeclaredClient.publicApp])
            let outcomes = try await withThrowingTaskGroup(of: OIDCClientReconciliation.Outcome.self) { group in
                for each in stores { group.addTask { try await each.oidcClients.reconcile(declared, managedBy: OIDCDeclaredClientTests.file, at: Date()) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outcomes.flatMap(\.created).sorted() == ["app", "wiki"], "each made once: \(outcomes)")
            #expect(outcomes.flatMap(\.updated).isEmpty && outcomes.flatMap(\.removed).isEmpty, "\(outcomes)")
            #expect(try await first.oidcClients.all().map(\.id) == ["app", "wiki"])
            let created = try await first.auditEvents(.init(kind: .oidcClientCreated))
            #expect(created.count == 2, "\(created)")
            for connections in others { try await connections.shutdown() }
            await cleanup()
        }
    }
}

extension OIDCDeclaredClient {
    /// A public native app.
    static var publicApp: OIDCDeclaredClient {
        var client = OIDCDeclaredClient(id: "app", name: "App")
        client.isPublic = true
        client.redirectURIs = [OIDCTestFlow.native]
        return client
    }
}
