import Foundation
import Hummingbird
import NIOCore
import WebAuthn

/// Reading the body off a Hummingbird request, then `decode(_:from: Data)` (RequestBody.swift).
extension RequestBody {
    /// The body, or nil when there is none (an optional body).
    static func read(_ request: Request) async throws -> Data? {
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: limit)
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw APIError.bodyTooLarge
        } catch is NIOTooManyBytesError {
            throw APIError.bodyTooLarge
        }
        guard buffer.readableBytes > 0 else { return nil }
        let contentType = request.headers[.contentType]?.lowercased() ?? ""
        guard contentType.hasPrefix("application/json") else {
            throw APIError.jsonContentTypeRequired
        }
        return Data(buffer: buffer)
    }

    /// The body, read by the strict parser (depth ≤ 64, size ≤ 64 KiB, both enforced before anything else
    /// looks at it) and then by the type itself; a missing body is a 400.
    static func decode<T: JSONReadable>(_ type: T.Type, from request: Request) async throws -> T {
        guard let data = try await read(request) else {
            throw APIError.missingBody
        }
        return try decode(type, from: data)
    }
}
