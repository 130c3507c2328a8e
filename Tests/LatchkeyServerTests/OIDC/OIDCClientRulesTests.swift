import Foundation
import LatchkeyAPI
import Testing
import WebAuthn
@testable import LatchkeyServer

/// What an operator may register as an OpenID Connect client (`OIDCClientRules`) and what a profile may
/// hold (`InputRules+Profile.swift`): each broken rule its own code, with a sentence naming the field.
@Suite("OpenID Connect client and profile rules")
struct OIDCClientRulesTests {
    /// The code of the `APIError` `body` throws; nil when it throws none ("accepted").
    static func code(_ body: () throws -> Any) -> String? {
        do {
            _ = try body()
            return nil
        } catch let error as APIError {
            return error.code
        } catch {
            return "not an APIError: \(error)"
        }
    }

    @Test("redirect URIs: https, a native app's own scheme, http only on loopback hosts", arguments: [
        "https://grafana.example.com/login/generic_oauth", "https://a.example/cb?tenant=1", "https://a.example:8443/", "https://192.0.2.1/cb",
        "app.immich:///oauth-callback", "com.example.app:/oauth2redirect", "http://localhost/cb", "http://localhost:3000/cb",
        "http://127.0.0.1:53682/", "http://[::1]:8080/cb", "HTTPS://A.EXAMPLE/cb",
    ])
    func acceptedRedirectURIs(uri: String) {
        #expect(OIDCClientRules.problem(uri: uri) == nil, "\(uri): \(OIDCClientRules.problem(uri: uri) ?? "")")
    }

    @Test("every other form is refused, saying why", arguments: [
        ("http://grafana.example.com/cb", "http on a host other than"), ("http://127.0.0.2/cb", "http on a host other than"),
        ("http://localhost.example.com/", "http on a host other than"), ("http://[::2]/", "http on a host other than"),
        ("https://a.example/cb#x", "fragment"), ("https://a.example/cb#", "fragment"), ("app.example:/cb#", "fragment"),
        ("https://u@a.example/", "user name or password"), ("https://u:p@a.example/", "user name or password"),
        ("app.example://u@host/cb", "user name or password"),
        ("/cb", "not an absolute URI"), ("a.example/cb", "not an absolute URI"), ("://a.example/", "not an absolute URI"),
        ("https:///cb", "must name a host"), ("https:cb", "must name a host"), ("http:/cb", "must name a host"),
        ("https://a.example/a b", "percent-encoded"), ("https://a.example/\n", "percent-encoded"), ("https://é.example/", "percent-encoded"),
        ("https://a.example\\@b.example/", "percent-encoded"), ("https://a.example/\"", "percent-encoded"),
        ("javascript:alert(1)", "nobody's callback"), ("JavaScript:alert(1)", "nobody's callback"), ("data:text/html,x", "nobody's callback"),
        ("file:///etc/passwd", "nobody's callback"), ("vbscript:x", "nobody's callback"), ("", "1 to 2048 bytes"),
    ])
    func refusedRedirectURIs(uri: String, why: String) {
        let problem = OIDCClientRules.problem(uri: uri)
        #expect(problem?.contains(why) == true, "\(uri): \(problem ?? "accepted")")
    }

    @Test("a redirect URI over 2048 bytes is refused, at 2048 accepted")
    func redirectURILength() {
        let base = "https://a.example/"
        #expect(OIDCClientRules.problem(uri: base + String(repeating: "x", count: 2048 - base.utf8.count)) == nil)
        #expect(OIDCClientRules.problem(uri: base + String(repeating: "x", count: 2049 - base.utf8.count)) != nil)
    }

    @Test("each field's rule has its own code, and the message names the field")
    func codes() throws {
        #expect(Self.code { try OIDCClientRules.redirectURIs([]) } == "redirect_uri_required")
        #expect(Self.code { try OIDCClientRules.redirectURIs(["https://a.example/", "http://a.example/"]) } == "redirect_uri_invalid")
        #expect(Self.code { try OIDCClientRules.postLogoutURIs(["https://a.example/#x"]) } == "post_logout_uri_invalid")
        #expect(try OIDCClientRules.postLogoutURIs([]) == [])
        #expect(Self.code { try OIDCClientRules.redirectURIs(Array(repeating: "https://a.example/", count: 33)) } == "redirect_uri_invalid")
        #expect(try OIDCClientRules.redirectURIs(["https://a.example/", "https://a.example/"]) == ["https://a.example/"], "each once")
        for id in ["ab", String(repeating: "a", count: 65), "a b", "a/b", "ä12", ""] {
            #expect(Self.code { try OIDCClientRules.clientId(id) } == "client_id_invalid", "\(id)")
        }
        #expect(try OIDCClientRules.clientId("a.b") == "a.b")
        #expect(try OIDCClientRules.clientId(String(repeating: "Z", count: 64)).count == 64)
        for name in ["", "   ", String(repeating: "n", count: 101), "a\u{0}b", "a\u{202E}b", "a\nb"] {
            #expect(Self.code { try OIDCClientRules.name(name) } == "client_name_invalid", "\(name.debugDescription)")
        }
        #expect(try OIDCClientRules.name("  Grafana  ") == "Grafana")
        #expect(try OIDCClientRules.name(String(repeating: "é", count: 100)).count == 100)
        for algorithm in ["HS256", "none", "es256", ""] {
            #expect(Self.code { try OIDCClientRules.idTokenAlgorithm(algorithm) } == "id_token_alg_invalid")
        }
        #expect(Self.code { try OIDCClientRules.scopes(["profile"]) } == "openid_scope_required")
        #expect(Self.code { try OIDCClientRules.scopes(["openid", "phone"]) } == "client_scope_invalid")
        #expect(try OIDCClientRules.scopes(["offline_access", "openid", "openid", "email"]) == ["openid", "email", "offline_access"])
        #expect(Self.code { try OIDCClientRules.allowedGroups(["a b"]) } == "group_name_invalid")
        #expect(try OIDCClientRules.allowedGroups(["staff", "Ops.team_1-x", "staff"]) == ["staff", "Ops.team_1-x"])
        do {
            _ = try OIDCClientRules.redirectURIs(["http://grafana.example.com/cb"])
            Issue.record("accepted")
        } catch {
            #expect(error.message.contains("redirectUris") && error.message.contains("http://grafana.example.com/cb"), "\(error.message)")
        }
    }

    @Test("a new client: defaults, and an update names the fields it changed and keeps the id")
    func wholeClients() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let client = try OIDCClientRules.newClient(
            OIDCClientRequest(name: "Grafana", redirectUris: ["https://g.example/cb"]), id: "grafana", secretHash: [1], at: now, by: "cli")
        #expect(client.scopes == ["openid", "profile", "email", "groups"] && client.idTokenAlgorithm == "ES256")
        #expect(!client.firstParty && client.allowedGroups.isEmpty && client.postLogoutURIs.isEmpty && !client.isPublic)
        #expect(Self.code { try OIDCClientRules.newClient(OIDCClientRequest(redirectUris: ["https://g.example/cb"]), id: "x1x", secretHash: nil, at: now, by: "cli") }
            == "client_name_invalid")
        let later = now.addingTimeInterval(60)
        let (updated, changed) = try OIDCClientRules.updated(
            client, by: OIDCClientRequest(name: "Grafana", redirectUris: ["https://g.example/oauth"], firstParty: true), at: later)
        #expect(changed == ["redirectUris", "firstParty"] && updated.updatedAt == later && updated.createdAt == now)
        #expect(Self.code { try OIDCClientRules.updated(client, by: OIDCClientRequest(id: "other"), at: later) } == "client_id_invalid")
        #expect(try OIDCClientRules.updated(client, by: OIDCClientRequest(id: "grafana"), at: later).1 == [])
    }

    @Test("secrets and ids: lk_client_ and 43 characters of base64url (32 bytes), ids 22 (16 bytes) never beginning with a dash")
    func generated() {
        var secrets = Set<String>()
        for _ in 0..<200 {
            let secret = OIDCClientRules.generatedSecret()
            #expect(secret.hasPrefix("lk_client_") && secret.count == 53)
            #expect(Base64URL.decode(String(secret.dropFirst(10)))?.count == 32)
            secrets.insert(secret)
            let id = OIDCClientRules.generatedId()
            #expect(id.count == 22 && !id.hasPrefix("-") && Base64URL.decode(id)?.count == 16)
        }
        #expect(secrets.count == 200)
    }

    @Test("usernames: lower-cased, [a-z0-9][a-z0-9._-]{1,31}")
    func usernames() throws {
        #expect(try InputRules.username(" Ada.Lovelace ") == "ada.lovelace")
        #expect(try InputRules.username("a1") == "a1")
        #expect(try InputRules.username(String(repeating: "z", count: 32)).count == 32)
        for bad in ["a", "-ada", ".ada", "_ada", "ada lovelace", "ädä", "ada@x", String(repeating: "z", count: 33), "", "ＡＤＡ", "İstanbul"] {
            #expect(Self.code { try InputRules.username(bad) } == "username_invalid", "\(bad)")
        }
    }

    @Test("email addresses: plausible local@domain, at most 254 characters, only the domain lower-cased")
    func emails() throws {
        #expect(try InputRules.email("Ada.King@Example.COM") == "Ada.King@example.com")
        #expect(try InputRules.email(" ada+tag@mail.example.org ") == "ada+tag@mail.example.org")
        #expect(try InputRules.email("jürgen@bücher.example") == "jürgen@bücher.example")
        let longest = String(repeating: "a", count: 64) + "@" + String(repeating: "b", count: 63) + "." + String(repeating: "c", count: 63) + "."
            + String(repeating: "d", count: 61)
        #expect(longest.count == 254)
        #expect(try InputRules.email(longest) == longest)
        for bad in ["ada", "@example.com", "ada@", "ada@localhost", "ada@@example.com", "a b@example.com", "ada@exa mple.com", "ada@-x.example",
                    "ada@x-.example", "ada@x..example", ".ada@example.com", "ada.@example.com", "a..da@example.com", "\"a\"@example.com",
                    "<ada@example.com>", "ada@example.com\u{0}", longest + "d", String(repeating: "a", count: 65) + "@example.com"] {
            #expect(Self.code { try InputRules.email(bad) } == "email_invalid", "\(bad)")
        }
    }

    @Test("group names: [A-Za-z0-9._-]{1,64}, case kept, each once")
    func groups() throws {
        #expect(try InputRules.groupNames(["Staff", "ops", "Staff"], field: "groups") == ["Staff", "ops"])
        for bad in ["", "a b", "a:b", "ä", String(repeating: "g", count: 65)] {
            #expect(Self.code { try InputRules.groupName(bad, field: "groups") } == "group_name_invalid", "\(bad)")
        }
    }

    @Test("a client id that reads \"recovery\" is not a recovery route for the admin key's scope")
    func recoveryRoutes() {
        #expect(AdminKeyMiddleware<APIRequestContext>.isRecovery("/api/admin/recovery/abc"))
        #expect(AdminKeyMiddleware<APIRequestContext>.isRecovery("/api/admin/accounts/x/recovery"))
        #expect(!AdminKeyMiddleware<APIRequestContext>.isRecovery("/api/admin/clients/recovery"))
        #expect(!AdminKeyMiddleware<APIRequestContext>.isRecovery("/api/admin/clients/recovery/secret"))
        #expect(!AdminKeyMiddleware<APIRequestContext>.isRecovery("/api/admin/accounts/recovery"))
    }
}
