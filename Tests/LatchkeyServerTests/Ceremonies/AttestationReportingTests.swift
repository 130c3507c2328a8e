import Foundation
import HTTPTypes
import NIOCore
import SoftAuthenticator
import Testing
import WebAuthn
@testable import LatchkeyServer

/// A passkey says whether its attestation chain reached a configured anchor.
@Suite("Whether a passkey's attestation was verified")
struct AttestationReportingTests {
    @Test("a passkey says whether its attestation was verified; without anchors it was not (SECURITY-FINDINGS.md, finding 16)")
    func attestationVerifiedFlag() async throws {
        try await TestServer.run(TestServer.configuration { $0.attestation = .direct }) { api in
            let session = try await api.register("Ada", with: SoftAuthenticator(store: InMemoryCredentialStore()))
            let passkey = try #require(try await api.send(.get, "/api/account/passkeys", token: session.token).array?.first)
            #expect(passkey["attestationVerified"] as? Bool == false)
            #expect(passkey["attestationFormat"] as? String != nil)
        }
    }
}
