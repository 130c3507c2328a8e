import Foundation
import Testing
@testable import LatchkeyServer
@testable import latchkey

/// `[[oidc-client]]` tables in `latchkey serve --config FILE`: read into `ServerConfiguration`'s declared
/// clients with the file named; the secret only as `secret-hash` or from an owner-only `secret-file`; each
/// mistake one sentence naming the table and key; and `latchkey admin clients export`'s text reads back
/// as the same clients.
@Suite("[[oidc-client]] in the configuration file", .serialized)
struct ConfigurationFileClientsTests {
    let files = ConfigurationFileTests()
    static let secret = "lk_client_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG"
    static var hash: String { OIDCDeclaredClient.secretHashText(SecretDigest.of(secret)) }

    static var wiki: String {
        """
        oidc = true

        [[oidc-client]]
        id = "wiki"
        name = "Wiki"
        redirect-uri = ["https://wiki.example.com/callback"]
        scope = ["openid", "profile"]
        secret-hash = "\(hash)"
        first-party = true
        backchannel-logout-uri = "https://wiki.example.com/logout"
        groups-claim = "roles"

        [[oidc-client]]
        id = "app"
        name = "App"
        public = true
        redirect-uri = "com.example.app:/callback"
        """
    }

    @Test("tables are read in order, with the file that declares them")
    func read() throws {
        let configuration = try files.resolve(file: Self.wiki)
        #expect(configuration.declaredOIDCClientsFile?.hasSuffix("/test.toml") == true, "an absolute path: \(configuration.declaredOIDCClientsFile ?? "nil")")
        let clients = configuration.declaredOIDCClients
        try #require(clients.count == 2)
        #expect(clients[0].id == "wiki" && clients[0].name == "Wiki" && clients[0].redirectURIs == ["https://wiki.example.com/callback"])
        #expect(clients[0].scopes == ["openid", "profile"] && clients[0].firstParty && clients[0].groupsClaim == "roles")
        #expect(clients[0].secretHash == SecretDigest.of(Self.secret) && clients[0].backchannelLogoutURI == "https://wiki.example.com/logout")
        #expect(clients[1].isPublic && clients[1].secretHash == nil && clients[1].redirectURIs == ["com.example.app:/callback"])
        try configuration.validate()
        // A file without tables still says which clients it manages: none.
        let none = try files.resolve(file: "oidc = true")
        #expect(none.declaredOIDCClients.isEmpty && none.declaredOIDCClientsFile != nil)
        #expect(try ServeCommand.parse([]).resolve(environment: [:]).declaredOIDCClientsFile == nil, "no file: nothing managed")
    }

    @Test("a mistake names the table, its id and the key; never the value of secret-hash")
    func refusals() {
        let cases: [(String, String)] = [
            ("[[oidc-client]]\nname = \"X\"\nsecret-hash = \"\(Self.hash)\"", "number 1 has no id"),
            ("[[oidc-client]]\nid = \"x1\"\nsecret-hash = \"\(Self.hash)\"", "number 1 (x1) has no name"),
            ("[[oidc-client]]\nid = \"x1\"\nname = \"X\"\nredirect_uri = \"https://a.example/cb\"", "unknown key, redirect_uri (did you mean redirect-uri?)"),
            ("[[oidc-client]]\nid = \"x1\"\nname = \"X\"\nsecret-hash = \"hunter2-is-my-secret\"", "not \"sha256:\" and 64 hexadecimal digits"),
            ("[[oidc-client]]\nid = \"x1\"\nname = \"X\"\nsecret-hash = \"\(Self.hash)\"\nsecret-file = \"/nope\"", "both secret-hash and secret-file"),
            ("[[oidc-client]]\nid = \"x1\"\nname = \"X\"\npublic = \"yes\"", "must give public as true or false"),
            ("[[oidc-client]]\nid = \"x1\"\nname = \"X\"\nscope = [1]", "scope as an array of strings"),
            ("[[oidc-client]]\nid = \"x1\"\nname = \"X\"\nsecret-file = \"/nonexistent/secret\"", "cannot be read"),
            ("[oidc]\nenabled = true", "declare clients as [[oidc-client]]"),
            ("oidc-client = \"x\"", "declare each client as a table"),
        ]
        for (text, expected) in cases {
            let sentence = files.refusal(text)
            #expect(sentence.contains("latchkey.toml") && sentence.contains(expected), "\(text) → \(sentence)")
            #expect(!sentence.contains("hunter2"), "the value is not repeated: \(sentence)")
        }
        #expect(files.refusal("[[oidc-client]]\nid = \"x1\"\nname = \"X\"\nsecret-hash = \"\(Self.hash)\"\n[[oidc-client]]\nid = \"x2\"\nname = \"Y\"\nsecret-hash = 3")
            .contains("number 2 (x2) must give secret-hash as a string"))
    }

    @Test("secret-file: read, its digest kept, refused when others may read it or it is short")
    func secretFile() throws {
        let directory = try files.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("wiki.secret")
        try files.write(Self.secret + "\n", to: file, mode: 0o600)
        let text = "oidc = true\n[[oidc-client]]\nid = \"wiki\"\nname = \"Wiki\"\nredirect-uri = \"https://w.example/cb\"\nsecret-file = \"\(file.path)\"\n"
        let read = try ConfigurationFile(text: text, path: "latchkey.toml")
        #expect(read.declaredClients.first?.secretHash == SecretDigest.of(Self.secret))
        try files.write(Self.secret, to: file, mode: 0o644)
        #expect(files.refusal(text).contains("readable by others"), "\(files.refusal(text))")
        try files.write("short", to: file, mode: 0o600)
        #expect(files.refusal(text).contains("shorter than 32 characters"), "\(files.refusal(text))")
    }

    @Test("clients export's text reads back as the same clients")
    func exportRoundTrip() throws {
        var machine = OIDCDeclaredClient(id: "machine", name: "Say \"hi\"")
        machine.grantTypes = ["client_credentials"]
        machine.apiScopes = ["orders:read"]
        machine.redirectURIs = []
        machine.secretHash = SecretDigest.of(Self.secret)
        var published = OIDCDeclaredClient(id: "published", name: "Published keys")
        published.grantTypes = ["client_credentials"]
        published.jwksURI = "https://job.example.com/jwks.json"
        let declared = try files.resolve(file: Self.wiki).declaredOIDCClients + [machine, published]
        let records = try declared.enumerated().map { try $1.record(managedBy: "/etc/latchkey.toml", at: Date(), entry: $0 + 1) }
        let exported = OIDCClientTOML.document(records)
        #expect(exported.contains("jwks-uri = \"https://job.example.com/jwks.json\""), "\(exported)")
        let again = try ConfigurationFile(text: "oidc = true\n" + exported, path: "latchkey.toml").declaredClients
        let recordsAgain = try again.enumerated().map { try $1.record(managedBy: "/etc/latchkey.toml", at: Date(), entry: $0 + 1) }
        #expect(recordsAgain.map(OIDCClientReconciliation.settings(of:)) == records.map(OIDCClientReconciliation.settings(of:)), "\(exported)")
    }
}
