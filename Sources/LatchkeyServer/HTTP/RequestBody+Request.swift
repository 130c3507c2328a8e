import Foundation
import Hummingbird
import LatchkeyAPI
import NIOCore
import WebAuthn

/// Reading a body off a Hummingbird request — the one place bodies are collected (64 KiB at most, one
/// 413) and their media type matched — then `decode(_:from: Data)` (RequestBody.swift) for JSON. Latchkey's
/// API takes JSON, the compatibility APIs also `text/plain` (Hanko's page), and introspection a form
/// (RFC 7662).
/// Hummingbird has a `RequestBody` of its own (`request.body`); inside this module the name means
/// LatchkeyAPI's, as it did when that file was part of this module.
typealias RequestBody = LatchkeyAPI.RequestBody

extension RequestBody {
    /// The media types a route takes its body in.
    struct MediaTypes: OptionSet, Sendable {
        let rawValue: Int
        static let json = MediaTypes(rawValue: 1)
        /// `text/plain`, or no Content-Type at all: what `fetch` sends for a string body.
        static let plainText = MediaTypes(rawValue: 2)
        static let form = MediaTypes(rawValue: 4)
    }

    /// The body, at most `limit` bytes; a larger one is 413 `body_too_large`.
    static func collect(_ request: Request) async throws -> ByteBuffer {
        do {
            return try await request.body.collect(upTo: limit)
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw APIError.bodyTooLarge
        } catch is NIOTooManyBytesError {
            throw APIError.bodyTooLarge
        }
    }

    /// Whether the request's Content-Type is one of `types`.
    static func contentType(of request: Request, isOneOf types: MediaTypes) -> Bool {
        let contentType = request.headers[.contentType]?.lowercased() ?? ""
        return (types.contains(.json) && contentType.hasPrefix("application/json"))
            || (types.contains(.plainText) && (contentType.isEmpty || contentType.hasPrefix("text/plain")))
            || (types.contains(.form) && contentType.hasPrefix("application/x-www-form-urlencoded"))
    }

    /// The JSON body, or nil when there is none (an optional body).
    static func read(_ request: Request) async throws -> Data? {
        let buffer = try await collect(request)
        guard buffer.readableBytes > 0 else { return nil }
        guard contentType(of: request, isOneOf: .json) else { throw APIError.jsonContentTypeRequired }
        return Data(buffer: buffer)
    }

    /// The body, read by the strict parser (depth ≤ 64, size ≤ 64 KiB, both enforced before anything else
    /// looks at it) and then by the type itself; a missing body is a 400. `types` beside JSON: the
    /// compatibility APIs also take `text/plain`.
    static func decode<T: JSONReadable>(_ type: T.Type, from request: Request, accepting types: MediaTypes = .json) async throws -> T {
        let buffer = try await collect(request)
        guard buffer.readableBytes > 0 else { throw APIError.missingBody }
        guard contentType(of: request, isOneOf: types) else { throw APIError.jsonContentTypeRequired }
        return try decode(type, from: Data(buffer: buffer))
    }
}
