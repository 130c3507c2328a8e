import Foundation
import HTTPTypes
import SoftAuthenticator
import Testing
@testable import LatchkeyServer

/// Letting a new device in from a signed-in one, in process (`DeviceApprovalService` behind its routes):
/// a request may name the account it is for, and then no other account can find, approve or deny it; the
/// new device is told whose account let it in, by what the approver cannot choose (the fourth review,
/// S4-12); one address holds at most `perRequester` live requests (S4-3).
@Suite("Device approval: owned requests, the approver shown, a bound per address")
struct DeviceApprovalTests {
    struct Person {
        let session: APIClient.Session
        let authenticator: SoftAuthenticator
    }

    static func person(_ api: APIClient, _ name: String, username: String) async throws -> Person {
        let authenticator = SoftAuthenticator(store: InMemoryCredentialStore())
        let session = try await api.register(name, with: authenticator)
        let named = try await api.send(.patch, "/api/account", object: ["username": username], token: session.token)
        try #require(named.status == .ok, "\(named.text)")
        return Person(session: session, authenticator: authenticator)
    }

    /// The confirming assertion and the approval: the reply of `…/approve`.
    static func approve(_ api: APIClient, _ id: String, by person: Person) async throws -> APIClient.Reply {
        let options = try api.requestOptions(try await api.send(.post, "/api/account/confirm/options", body: Data("{}".utf8), token: person.session.token))
        let credential = try person.authenticator.getAssertion(options, origin: TestServer.origin)
        return try await api.send(.post, "/api/account/device-requests/\(id)/approve", json: ["credential": credential], token: person.session.token)
    }

    @Test("a request for ada is ada's alone; the new device learns the approver's username and id")
    func ownedRequests() async throws {
        try await TestServer.run { api in
            let ada = try await Self.person(api, "Ada", username: "ada")
            let mallory = try await Self.person(api, "Ada", username: "mallory")
            let invalid = try await api.send(.post, "/api/device-requests", object: ["username": "not a name!"])
            #expect(invalid.status == .unprocessableContent && invalid.errorCode == "username_invalid", "\(invalid.text)")

            let made = try await api.send(.post, "/api/device-requests", object: ["username": "Ada"])
            try #require(made.status == .created, "\(made.text)")
            let id = try #require(made.json?["id"] as? String), code = try #require(made.json?["code"] as? String)
            let secret = try #require(made.json?["secret"] as? String)

            let found = try await api.send(.post, "/api/account/device-requests/find", object: ["code": code], token: mallory.session.token)
            #expect(found.status == .notFound && found.errorCode == "unknown_device_request")
            #expect(try await Self.approve(api, id, by: mallory).status == .notFound)
            let denied = try await api.send(.post, "/api/account/device-requests/\(id)/deny", body: Data("{}".utf8), token: mallory.session.token)
            #expect(denied.status == .notFound)

            let seen = try await api.send(.post, "/api/account/device-requests/find", object: ["code": code], token: ada.session.token)
            #expect(seen.status == .ok && seen.json?["forUsername"] as? String == "ada", "\(seen.text)")
            let approved = try await Self.approve(api, id, by: ada)
            #expect(approved.status == .noContent, "\(approved.text)")
            let polled = try await api.send(.post, "/api/device-requests/\(id)/poll", object: ["secret": secret])
            let account = try #require(polled.json?["account"] as? [String: Any], "\(polled.text)")
            #expect(account["id"] as? String == ada.session.accountId && account["username"] as? String == "ada")
            #expect(account["displayName"] as? String == "Ada")
        }
    }

    @Test("one address holds at most 10 live requests: its eleventh replaces its oldest; another address is not affected")
    func perAddress() async throws {
        try await TestServer.run { api in
            var first: (id: String, secret: String)?
            for _ in 0..<25 {
                let made = try await api.send(.post, "/api/device-requests")
                try #require(made.status == .created, "\(made.text)")
                if first == nil { first = (try #require(made.json?["id"] as? String), try #require(made.json?["secret"] as? String)) }
            }
            let oldest = try #require(first)
            let gone = try await api.send(.post, "/api/device-requests/\(oldest.id)/poll", object: ["secret": oldest.secret])
            #expect(gone.status == .notFound, "\(gone.text)")
        }
    }
}
