import Foundation
import HTTPTypes
import LatchkeyAPI
@testable import LatchkeyDatabase
import NIOCore
import SoftAuthenticator
import Testing
@testable import LatchkeyServer

/// Numbers from outside are range-checked before anything converts them (the fourth review, S4-2: one
/// admin request with `ttlSeconds: 2^63 - 1` trapped in a Double → Int conversion and killed the server).
/// The extreme numbers of every kind — ±2^63, beyond it, 1e308, past a Double, -0, fractions — answer 4xx
/// naming the field; the server keeps serving.
@Suite("Numbers from outside: range-checked before they are converted")
struct InputRangeTests {
    static let extremes = [
        "9223372036854775807", "-9223372036854775808", "9223372036854775808", "18446744073709551616", "1e308", "-1e308", "1e309",
        "-0", "0", "0.5", "86400.5", "299", "86401", "99999999999999999999999999999999999999",
    ]

    @Test("POST /api/admin/accounts/{id}/recovery: every extreme ttlSeconds is 400 or 422 naming the field, and the server lives")
    func recoveryLifetimes() async throws {
        try await TestServer.withApplication { (api, application) async throws in
            let session = try await api.register("Ada", with: SoftAuthenticator(store: InMemoryCredentialStore()))
            let account = session.accountId
            let key = try await OIDCClientFactsTests.adminKey(application.store, scope: .recovery)
            for number in Self.extremes {
                let reply = try await api.send(.post, "/api/admin/accounts/\(account)/recovery", body: Data(#"{"ttlSeconds": \#(number)}"#.utf8), token: key)
                #expect(reply.status == .badRequest || reply.status == .unprocessableContent, "\(number): \(reply.status) \(reply.text)")
                #expect(reply.text.contains("ttlSeconds"), "\(number): \(reply.text)")
            }
            let issued = try await api.send(.post, "/api/admin/accounts/\(account)/recovery", body: Data(#"{"ttlSeconds": 86400}"#.utf8), token: key)
            #expect(issued.status == .created, "\(issued.text)")
        }
    }

    @Test("the recovery service refuses a lifetime no whole number holds, without converting it")
    func nonFiniteLifetimes() async throws {
        try await TestServer.withApplication { (api, application) async throws in
            let session = try await api.register("Ada", with: SoftAuthenticator(store: InMemoryCredentialStore()))
            let account = session.accountId
            let recovery = RecoveryService(store: application.store, configuration: TestServer.configuration(), now: { Date() })
            for lifetime in [TimeInterval.infinity, -.infinity, .nan, 0x1p63, 1e308, -0.0, .leastNonzeroMagnitude] {
                await #expect(throws: APIError.self, "\(lifetime)") {
                    _ = try await recovery.issue(accountId: account, lifetime: lifetime, origin: .test)
                }
            }
        }
    }

    @Test("a stored time saturates instead of trapping on a date no column holds")
    func timestamps() {
        #expect(Timestamp.milliseconds(Date(timeIntervalSince1970: 1.5)) == 1500)
        #expect(Timestamp.milliseconds(Date(timeIntervalSince1970: 1e300)) == .max)
        #expect(Timestamp.milliseconds(Date(timeIntervalSince1970: -1e300)) == .min)
        #expect(Timestamp.milliseconds(Date(timeIntervalSince1970: .infinity)) == .max)
        #expect(Timestamp.milliseconds(Date(timeIntervalSince1970: .nan)) == 0)
    }

    @Test("a database time-out saturates instead of trapping: NaN, infinity and 1e308 are the longest wait, a negative one none")
    func databaseTimeouts() {
        typealias Limits = DatabaseConnections.Limits
        #expect(Limits.timeAmount(seconds: 5) == .milliseconds(5000))
        #expect(Limits.timeAmount(seconds: 0.1) == .milliseconds(100))
        #expect(Limits.timeAmount(seconds: 1e308) == .milliseconds(.max))
        #expect(Limits.timeAmount(seconds: .infinity) == .milliseconds(.max))
        #expect(Limits.timeAmount(seconds: .nan) == .milliseconds(.max))
        #expect(Limits.timeAmount(seconds: -1) == .zero)
        #expect(Limits(timeout: .nan).timeAmount == .milliseconds(.max))
    }
}
