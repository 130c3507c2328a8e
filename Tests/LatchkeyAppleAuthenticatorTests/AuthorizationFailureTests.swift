import LatchkeyAppleAuthenticator
import LatchkeyClient
import Testing

@Suite("ASAuthorizationError codes → ClientError")
struct AuthorizationFailureTests {
    @Test("the codes are AuthenticationServices' raw values")
    func rawValues() {
        #expect(AuthorizationFailure.unknown.rawValue == 1000)
        #expect(AuthorizationFailure.canceled.rawValue == 1001)
        #expect(AuthorizationFailure.failed.rawValue == 1004)
        #expect(AuthorizationFailure.matchedExcludedCredential.rawValue == 1006)
        #expect(AuthorizationFailure.deviceNotConfiguredForPasskeyCreation.rawValue == 1010)
        #expect(AuthorizationFailure.allCases.map(\.rawValue) == Array(1000...1010))
    }

    @Test("each failure is a refusal that says why, with the system's message")
    func clientErrors() {
        #expect(AuthorizationFailure.clientError(code: 1001, message: "The operation couldn’t be completed.")
            == .authenticatorRefused("cancelled (or no passkey for this server on this device): The operation couldn’t be completed."))
        #expect(AuthorizationFailure.clientError(code: 1006, message: "m")
            == .authenticatorRefused("this device already holds a passkey for this account: m"))
        #expect(AuthorizationFailure.clientError(code: 4242, message: "m") == .authenticatorRefused("AuthenticationServices error 4242: m"))
    }
}
