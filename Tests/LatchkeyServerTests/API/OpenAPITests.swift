import Foundation
import Hummingbird
import Testing
@testable import LatchkeyServer

/// The API document: served in both forms, the same as openapi.yaml at the repository's root, and held to
/// the router (every route documented, every documented operation served). That the answers match the
/// document is schemathesis's job (Tests/System/OpenAPI); that the JSON is the YAML, too (Swift has no YAML parser).
@Suite("The OpenAPI document")
struct OpenAPITests {
    static let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../openapi.yaml")

    @Test("GET /openapi.yaml is openapi.yaml, byte for byte, with an ETag that revalidates")
    func yaml() async throws {
        try await TestServer.run { api in
            let reply = try await api.send(.get, "/openapi.yaml")
            #expect(reply.status == .ok)
            #expect(reply.headers[.contentType] == "application/yaml; charset=utf-8")
            #expect(reply.data == (try Data(contentsOf: Self.source)), "run scripts/openapi-json")
            let etag = try #require(reply.headers[.eTag])
            #expect(try await api.send(.get, "/openapi.yaml", headers: [.ifNoneMatch: etag]).status == .notModified)
        }
    }

    @Test("GET /openapi.json is an OpenAPI 3.1 document of the same routes")
    func json() async throws {
        try await TestServer.run { api in
            let reply = try await api.send(.get, "/openapi.json")
            #expect(reply.status == .ok)
            #expect(reply.headers[.contentType] == "application/json; charset=utf-8")
            let document = try #require(reply.json)
            #expect(document["openapi"] as? String == "3.1.0")
            let paths = try #require(document["paths"] as? [String: Any])
            #expect(OpenAPIController.operations(in: paths) == (try OpenAPIController.load().operations))
            #expect(OpenAPIController.operations(in: paths).contains("PATCH /api/account/passkeys/{id}"))
        }
    }

    @Test("every documented operation reaches a handler of the running server")
    func documentedOperationsAreServed() async throws {
        let operations = try OpenAPIController.load().operations
        #expect(operations.count >= 20)
        try await TestServer.run { api in
            for operation in operations.sorted() {
                let parts = operation.split(separator: " ", maxSplits: 1).map(String.init)
                let path = parts[1].replacingOccurrences(of: "{id}", with: "AAAA")
                let reply = try await api.send(HTTPRequest.Method(rawValue: parts[0]) ?? .get, path)
                #expect(reply.errorCode != "not_found" && reply.errorCode != "method_not_allowed", "\(operation): \(reply.status)")
            }
        }
    }

    /// Found by schemathesis's fuzzing only by chance (a cookie without `Origin` on `PUT /api/account/language`),
    /// so held here for every operation: the session cookie on anything but GET/HEAD is checked for its
    /// `Origin` (RequestAuthentication.checkSameSite), and that refusal is a 403 the document must name.
    @Test("every state change that accepts the session cookie documents the 403 of a cookie without Origin")
    func cookieStateChangesDocumentForbidden() throws {
        let data = try Data(contentsOf: Self.source.deletingLastPathComponent().appendingPathComponent("Sources/LatchkeyServer/Public/openapi.json"))
        let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        var checked = 0
        for (path, item) in paths {
            for (method, value) in item where !["get", "head", "parameters", "summary", "description"].contains(method) {
                let operation = try #require(value as? [String: Any], "\(method) \(path)")
                let security = (operation["security"] ?? document["security"]) as? [[String: Any]] ?? []
                guard security.contains(where: { $0["sessionCookie"] != nil }) else { continue }
                let responses = try #require(operation["responses"] as? [String: Any])
                #expect(responses["403"] != nil, "\(method.uppercased()) \(path) takes the session cookie but documents no 403")
                checked += 1
            }
        }
        #expect(checked >= 20)
    }

    @Test("a route the document lacks, or an operation the router lacks, stops the server from starting")
    func routerMustMatchDocument() throws {
        let controller = try OpenAPIController.load()
        let router = Router(context: APIRequestContext.self)
        router.get("/undocumented") { _, _ in "" }
        do {
            try controller.register(on: router)
            Issue.record("registered a router that has an undocumented route")
        } catch let error as ServerConfiguration.Invalid {
            #expect(error.description.contains("GET /undocumented is served but not documented"))
            #expect(error.description.contains("GET /healthz is documented but not served"))
        }
        #expect(OpenAPIController.differences(routes: ["GET /a", "POST /b/{id}"], operations: ["GET /a", "POST /b/{id}"]).isEmpty)
    }
}
