import Foundation
import LatchkeyAPI
import Testing
@testable import LatchkeyServer

/// Reading an authorization request (no server): parameters, redirect-URI matching, PKCE, prompts, the
/// interaction stamp and the JWT header check.
@Suite struct OIDCRequestTests {
    static let confidential = StoreTests.OIDCGrants.client()
    static var publicClient: OIDCClientRecord {
        var client = StoreTests.OIDCGrants.client("native")
        client.secretHash = nil
        client.redirectURIs = ["http://127.0.0.1/callback", "app.immich:///oauth-callback"]
        return client
    }

    static func read(_ query: String, client: OIDCClientRecord = confidential) throws -> OIDCAuthorizationRequest {
        try OIDCAuthorizationRequest.read(OAuthParameters(parsing: Substring(query)), client: client)
    }

    static func problem(_ query: String, client: OIDCClientRecord = confidential) -> OIDCAuthorizationRequest.Problem? {
        do {
            _ = try read(query, client: client)
            return nil
        } catch let problem as OIDCAuthorizationRequest.Problem {
            return problem
        } catch {
            return nil
        }
    }

    static func isPage(_ problem: OIDCAuthorizationRequest.Problem?, _ code: ErrorCode) -> Bool {
        if case .page(let error)? = problem { return error.code == code.rawValue }
        return false
    }

    static func redirected(_ problem: OIDCAuthorizationRequest.Problem?) -> OAuthError.Code? {
        if case .redirect(let error, _, _)? = problem { return error.code }
        return nil
    }

    static let good = "response_type=code&client_id=app&redirect_uri=https%3A%2F%2Fapp.example%2Fcb&scope=openid%20profile%20unknown&state=x"

    @Test("a good request: scopes narrowed to what the client may have and Latchkey knows")
    func goodRequest() throws {
        let request = try Self.read(Self.good)
        #expect(request.scopes == ["openid", "profile"])
        #expect(request.state == "x")
    }

    @Test("parameters: repeated, badly encoded, too many, too long are refused; empty ones are absent")
    func parameters() {
        #expect(throws: OAuthParameters.Malformed.self) { try OAuthParameters(parsing: "a=1&a=2") }
        #expect(throws: OAuthParameters.Malformed.self) { try OAuthParameters(parsing: "a=%zz") }
        #expect(throws: OAuthParameters.Malformed.self) { try OAuthParameters(parsing: Substring(Array(repeating: "a=1", count: 41).enumerated().map { "p\($0.offset)=1" }.joined(separator: "&"))) }
        #expect(throws: OAuthParameters.Malformed.self) { try OAuthParameters(parsing: Substring(String(repeating: "x", count: 9000))) }
        #expect((try? OAuthParameters(parsing: "a=&b=2"))?["a"] == nil)
        #expect((try? OAuthParameters(parsing: "b=a+b%20c"))?["b"] == "a b c")
    }

    @Test("an open redirect tried every way is shown on the page, never redirected", arguments: [
        "https://app.example/cb/extra", "https://app.example/cb?x=1", "https://app.example/cb#f", "https://app.example:444/cb",
        "https://user@app.example/cb", "https://APP.example/cb", "https://app.example/cb/", "https://app.example/c%62",
        "https://app.example.evil/cb", "http://app.example/cb", "https://evil.example/cb",
    ])
    func openRedirect(uri: String) {
        let query = "response_type=code&client_id=app&scope=openid&redirect_uri=" + OAuthParameters.escape(uri)
        #expect(Self.isPage(Self.problem(query), .oidcInvalidRedirectURI), "\(uri)")
    }

    @Test("no redirect_uri, no client_id, or an unknown client: the page")
    func missingClientOrRedirect() {
        #expect(Self.isPage(Self.problem("response_type=code&client_id=app&scope=openid"), .oidcInvalidRedirectURI))
        #expect(Self.isPage(Self.problem("response_type=code&scope=openid"), .oidcInvalidClient))
        #expect(throws: OIDCAuthorizationRequest.Problem.self) {
            try OIDCAuthorizationRequest.read(OAuthParameters(parsing: "client_id=nobody&redirect_uri=x"), client: nil)
        }
    }

    @Test("a public client's loopback redirect matches on any port, and only then; custom schemes match exactly")
    func loopbackPorts() {
        let client = Self.publicClient
        #expect(OIDCRedirectMatch.isRegistered("http://127.0.0.1:51234/callback", for: client))
        #expect(!OIDCRedirectMatch.isRegistered("http://127.0.0.1:51234/other", for: client))
        #expect(!OIDCRedirectMatch.isRegistered("http://127.0.0.2:51234/callback", for: client))
        #expect(OIDCRedirectMatch.isRegistered("app.immich:///oauth-callback", for: client))
        #expect(!OIDCRedirectMatch.isRegistered("app.immich:///oauth-callback2", for: client))
        var confidential = client
        confidential.secretHash = [1]
        #expect(!OIDCRedirectMatch.isRegistered("http://127.0.0.1:51234/callback", for: confidential), "a confidential client's port is exact")
    }

    @Test("PKCE: required of public clients, S256 only, well formed")
    func pkce() {
        let base = "response_type=code&client_id=native&scope=openid&redirect_uri=" + OAuthParameters.escape("http://127.0.0.1:5000/callback")
        #expect(Self.redirected(Self.problem(base, client: Self.publicClient)) == .invalidRequest)
        let challenge = String(repeating: "a", count: 43)
        #expect(Self.redirected(Self.problem(base + "&code_challenge=\(challenge)&code_challenge_method=plain", client: Self.publicClient)) == .invalidRequest)
        #expect(Self.redirected(Self.problem(base + "&code_challenge=\(challenge)", client: Self.publicClient)) == .invalidRequest)
        #expect(Self.redirected(Self.problem(base + "&code_challenge=short&code_challenge_method=S256", client: Self.publicClient)) == .invalidRequest)
        #expect(Self.problem(base + "&code_challenge=\(challenge)&code_challenge_method=S256", client: Self.publicClient) == nil)
    }

    @Test("response types, scopes, prompts, max_age, request objects: errors go back to the client")
    func redirectableErrors() {
        let base = "client_id=app&redirect_uri=https%3A%2F%2Fapp.example%2Fcb"
        #expect(Self.redirected(Self.problem(base + "&scope=openid")) == .invalidRequest)
        #expect(Self.redirected(Self.problem(base + "&response_type=token&scope=openid")) == .unsupportedResponseType)
        #expect(Self.redirected(Self.problem(base + "&response_type=code&scope=profile")) == .invalidScope)
        #expect(Self.redirected(Self.problem(base + "&response_type=code&scope=openid&prompt=none%20login")) == .invalidRequest)
        #expect(Self.redirected(Self.problem(base + "&response_type=code&scope=openid&prompt=bogus")) == .invalidRequest)
        #expect(Self.redirected(Self.problem(base + "&response_type=code&scope=openid&max_age=-1")) == .invalidRequest)
        #expect(Self.redirected(Self.problem(base + "&response_type=code&scope=openid&request=eyJ")) == .requestNotSupported)
        #expect(Self.redirected(Self.problem(base + "&response_type=code&scope=openid&request_uri=https://x")) == .requestURINotSupported)
    }

    @Test("the redirect carries the code or error, state and iss, form-encoded after any query of its own")
    func redirectBuilding() {
        #expect(OIDCAuthorizationRequest.redirect(to: "https://a/cb", [("code", "c d")], state: "s&t", issuer: "https://i")
            == "https://a/cb?code=c%20d&state=s%26t&iss=https%3A%2F%2Fi")
        #expect(OIDCAuthorizationRequest.redirect(to: "https://a/cb?x=1", [("code", "c")], state: nil, issuer: "https://i")
            == "https://a/cb?x=1&code=c&iss=https%3A%2F%2Fi")
    }

    @Test("interaction stamps: genuine and recent only")
    func stamps() {
        let stamps = OIDCInteractionStamp(key: .init(size: .bits256))
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let stamp = stamps.make(at: now)
        #expect(stamps.time(of: stamp, now: now.addingTimeInterval(30)) == now)
        #expect(stamps.time(of: stamp, now: now.addingTimeInterval(601)) == nil)
        let forged = "1700000000000." + stamp.split(separator: ".")[1]
        #expect(stamps.time(of: forged, now: now) == nil)
        #expect(OIDCInteractionStamp(key: .init(size: .bits256)).time(of: stamp, now: now) == nil)
    }

    @Test("JWT headers: alg none, HS256 and headers without kid are seen for what they are")
    func headers() {
        func token(_ header: String) -> String { Base64URLHelper.encode(header) + ".e30.sig" }
        #expect(JWTHeaderCheck.algorithm(of: token(#"{"alg":"ES256","kid":"k"}"#)) == "ES256")
        #expect(JWTHeaderCheck.algorithm(of: token(#"{"alg":"none","kid":"k"}"#)) == "none")
        #expect(JWTHeaderCheck.algorithm(of: token(#"{"alg":"ES256"}"#)) == nil)
        #expect(JWTHeaderCheck.algorithm(of: token(#"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["#)) == nil)
        #expect(JWTHeaderCheck.algorithm(of: "a.b") == nil)
    }

    @Test("issuers: https, or http on a loopback host; no query or fragment")
    func issuers() {
        #expect(OIDCIssuerRules.problem("https://login.example.com") == nil)
        #expect(OIDCIssuerRules.problem("http://127.0.0.1:8080") == nil)
        #expect(OIDCIssuerRules.problem("http://login.example.com") != nil)
        #expect(OIDCIssuerRules.problem("https://login.example.com?x=1") != nil)
        #expect(OIDCIssuerRules.problem("login.example.com") != nil)
    }
}

enum Base64URLHelper {
    static func encode(_ text: String) -> String {
        Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
