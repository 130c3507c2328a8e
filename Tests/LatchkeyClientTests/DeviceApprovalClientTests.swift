import AsyncHTTPClient
import Foundation
import LatchkeyClient
import NIOCore
import SoftAuthenticator
import Testing

/// `PasskeyClient`'s side of letting a new device in (what `latchkey approve CODE` runs): the request is
/// found by the code the new device shows, described, approved with the client's passkey (user verified),
/// and the new device's poll then gets its restricted session; a denied one is told so.
@Suite("Approving a new device from the client")
struct DeviceApprovalClientTests {
    /// The new device's two calls, as raw HTTP: it has no session and no client of its own yet.
    struct NewDevice {
        let server: URL
        let userAgent = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36"

        func post(_ path: String, _ body: [String: String]?) async throws -> (Int, [String: Any]) {
            var request = HTTPClientRequest(url: server.absoluteString + path)
            request.method = .POST
            request.headers.add(name: "User-Agent", value: userAgent)
            if let body {
                request.headers.add(name: "Content-Type", value: "application/json")
                request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
            }
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
            let data = Data((try await response.body.collect(upTo: 1 << 16)).readableBytesView)
            return (Int(response.status.code), (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:])
        }
    }

    @Test("find, approve, and the new device's poll gets its session once; a denied request says so")
    func approveAndDeny() async throws {
        try await withLiveServer { server in
            let client = makeClient(server)
            try await client.register(displayName: "Ada")
            let device = NewDevice(server: server)

            let (created, asked) = try await device.post("/api/device-requests", nil)
            #expect(created == 201)
            let id = try #require(asked["id"] as? String), code = try #require(asked["code"] as? String)
            let secret = try #require(asked["secret"] as? String)
            let found = try await client.deviceRequest(code: code.lowercased().replacingOccurrences(of: "-", with: " "))
            #expect(found.id == id && found.device == "Chrome on Linux" && found.clientAddress == "127.0.0.1")
            #expect(found.expiresAt.timeIntervalSince(found.createdAt) == 300)

            try await client.approveDeviceRequest(found)
            let (_, approved) = try await device.post("/api/device-requests/\(id)/poll", ["secret": secret])
            #expect(approved["status"] as? String == "approved")
            #expect((approved["token"] as? String)?.hasPrefix("rcv_") == true)
            let (_, again) = try await device.post("/api/device-requests/\(id)/poll", ["secret": secret])
            #expect(again["status"] as? String == "used" && again["token"] == nil)
            await #expect(throws: ClientError.self) { try await client.deviceRequest(code: code) }

            let (_, other) = try await device.post("/api/device-requests", nil)
            let denied = try await client.deviceRequest(code: try #require(other["code"] as? String))
            try await client.denyDeviceRequest(denied)
            let (_, told) = try await device.post("/api/device-requests/\(denied.id)/poll", ["secret": try #require(other["secret"] as? String)])
            #expect(told["status"] as? String == "denied")
        }
    }
}
