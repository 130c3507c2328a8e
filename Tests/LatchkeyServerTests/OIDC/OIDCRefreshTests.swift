import Foundation
import Testing
@testable import LatchkeyServer

/// Refresh tokens as `OIDCTokenEndpoint` hands them out: only with offline_access, rotated on every use,
/// and a rotated-out one presented again ends the whole grant (RFC 9700 §4.14.2) — one of its two holders
/// is a thief and the server cannot tell which. A refresh may narrow the scope, never widen it (RFC 6749
/// §6), and a refused widening must not burn the token (review 4, S4-7).
@Suite("OpenID Connect: refresh tokens, in process")
struct OIDCRefreshTests {
    /// Tokens for a grant with offline_access, and the refresh token among them.
    static func offlineTokens(_ flow: OIDCTestFlow, client: OIDCTestFlow.Client) async throws -> (tokens: [String: Any], refresh: String) {
        let person = try await flow.person()
        let code = try await flow.code(for: person, client: client, scope: "openid profile offline_access")
        let tokens = try flow.tokens(try await flow.exchange(code, client: client))
        return (tokens, try #require(tokens["refresh_token"] as? String, "offline_access gives a refresh token"))
    }

    @Test("a refresh rotates the refresh token; the old one presented again revokes the grant, so the newest is refused too")
    func rotationAndReuse() async throws {
        try await OIDCTestFlow.run { flow in
            let client = try await flow.client()
            let (first, oldRefresh) = try await Self.offlineTokens(flow, client: client)
            let second = try flow.tokens(try await flow.refresh(oldRefresh, client: client))
            let newRefresh = try #require(second["refresh_token"] as? String)
            let newAccess = try #require(second["access_token"] as? String)
            #expect(newRefresh != oldRefresh)
            #expect(newAccess != first["access_token"] as? String)
            #expect(try await flow.userInfo(newAccess).status == .ok)
            // The replay: an attacker's copy of the old token, or the client's.
            #expect(OIDCTestFlow.oauthError(try await flow.refresh(oldRefresh, client: client)) == "invalid_grant")
            #expect(OIDCTestFlow.oauthError(try await flow.refresh(newRefresh, client: client)) == "invalid_grant", "the whole grant is revoked")
            #expect(try await flow.userInfo(newAccess).status == .unauthorized)
        }
    }

    @Test("a refresh asking a wider scope is invalid_scope and leaves the token usable; a narrower one gets the narrower scope (S4-7)")
    func scopeOnRefresh() async throws {
        try await OIDCTestFlow.run { flow in
            let client = try await flow.client()
            let (_, refresh) = try await Self.offlineTokens(flow, client: client)
            let wider = try await flow.refresh(refresh, client: client, scope: "openid email")
            #expect(wider.status == .badRequest && OIDCTestFlow.oauthError(wider) == "invalid_scope", "\(wider.text)")
            // Nothing rotated, nothing revoked: the same token still refreshes.
            let narrower = try flow.tokens(try await flow.refresh(refresh, client: client, scope: "openid"))
            #expect(narrower["scope"] as? String == "openid")
            // The new refresh token keeps the whole grant's scope.
            let next = try #require(narrower["refresh_token"] as? String)
            let full = try flow.tokens(try await flow.refresh(next, client: client))
            #expect(Set((full["scope"] as? String ?? "").split(separator: " ").map(String.init)) == ["openid", "profile", "offline_access"])
        }
    }
}
