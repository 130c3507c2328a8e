import Foundation
import SoftAuthenticator
import Testing
@testable import LatchkeyServer

@Suite("Concurrency")
struct ConcurrencyTests {
    /// Registers with `phone`, then sends one login response 50 times at once: exactly one may succeed.
    static func finishOneLoginFiftyTimes(_ api: APIClient, with phone: SoftAuthenticator) async throws {
        _ = try await api.register("Ada", with: phone)
        let response = try await api.loginResponse(with: phone)
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<50 {
                group.addTask { Int(try await api.send(.post, "/api/login/verify", json: ["credential": response]).status.code) }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.filter { $0 == 200 }.count == 1)
        #expect(statuses.filter { $0 == 401 }.count == 49)
    }

    @Test("50 concurrent finishes of one login challenge: exactly one success")
    func oneChallengeOneSuccess() async throws {
        try await TestServer.run { api in
            let phone = SoftAuthenticator(store: InMemoryCredentialStore())
            try await Self.finishOneLoginFiftyTimes(api, with: phone)
        }
    }

    @Test("over real connections, on one event loop or several, 50 concurrent finishes of one login challenge: exactly one success",
          arguments: [1, 3])
    func oneChallengeOneSuccessLive(threads: Int) async throws {
        try await TestServer.run(TestServer.configuration { $0.threads = threads }, over: .live) { api in
            let phone = SoftAuthenticator(store: InMemoryCredentialStore())
            try await Self.finishOneLoginFiftyTimes(api, with: phone)
            // The winner's session works over the same server.
            let again = try await api.loginResponse(with: phone)
            #expect(try await api.send(.post, "/api/login/verify", json: ["credential": again]).status == .ok)
        }
    }

    @Test("50 concurrent finishes of one registration challenge: exactly one account")
    func oneRegistrationOneAccount() async throws {
        try await TestServer.withApplication { api, latchkey in
            let options = try api.creationOptions(try await api.send(.post, "/api/registration/options", object: ["displayName": "Ada"]))
            let credential = try SoftAuthenticator(store: InMemoryCredentialStore()).makeCredential(options, origin: TestServer.origin)
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<50 {
                    group.addTask { Int(try await api.send(.post, "/api/registration/verify", json: ["credential": credential]).status.code) }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 201 }.count == 1)
            let accounts = try await latchkey.store.connections.withConnection { db in
                try await db.raw("SELECT COUNT(*) AS n FROM accounts").first()?.decode(column: "n", as: Int.self)
            }
            #expect(accounts == 1)
        }
    }
}
