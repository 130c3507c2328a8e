import Foundation
import Hummingbird
import NIOCore
import WebAuthn

/// Reading a JSON request body: at most 64 KiB, `application/json`, parsed by the project's strict,
/// depth-limited parser, and every shape error reported as a 400 that names the member (a rule broken
/// by a well-formed value is the caller's 422).
enum RequestBody {
    static let limit = 64 * 1024

    /// The body, or nil when there is none (an optional body).
    static func read(_ request: Request) async throws -> Data? {
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: limit)
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw APIError(.tooLarge, "body_too_large", "The request body is larger than 64 KiB.")
        } catch is NIOTooManyBytesError {
            throw APIError(.tooLarge, "body_too_large", "The request body is larger than 64 KiB.")
        }
        guard buffer.readableBytes > 0 else { return nil }
        let contentType = request.headers[.contentType]?.lowercased() ?? ""
        guard contentType.hasPrefix("application/json") else {
            throw APIError(.badRequest, "unsupported_content_type", "Send the body as Content-Type: application/json.")
        }
        return Data(buffer: buffer)
    }

    /// The body, read by the strict parser (depth ≤ 64, size ≤ 64 KiB, both enforced before anything else
    /// looks at it) and then by the type itself; a missing body is a 400.
    static func decode<T: JSONReadable>(_ type: T.Type, from request: Request) async throws -> T {
        guard let data = try await read(request) else {
            throw APIError(.badRequest, "missing_body", "This request needs a JSON body.")
        }
        return try decode(type, from: data)
    }

    static func decode<T: JSONReadable>(_ type: T.Type, from data: Data) throws -> T {
        let document: JSONValue
        do {
            document = try JSONValue.parse(data)
        } catch {
            throw APIError(.badRequest, "malformed_json", "The body is not valid JSON: \(error.reason) at byte \(error.offset).")
        }
        do {
            return try T(json: try JSONShapeReader(document))
        } catch {
            throw fieldError(error.problem, at: error.path)
        }
    }

    /// The 400 for a member that is missing, mistyped or null, naming it by its path.
    private static func fieldError(_ problem: JSONShapeError.Problem, at path: [String]) -> APIError {
        let field = path.joined(separator: ".")
        switch problem {
        case .missing: return APIError(.badRequest, "missing_field", "The field \(field) is missing.")
        case .wrongType: return APIError(.badRequest, "invalid_type", "The field \(field) has the wrong type.")
        case .null: return APIError(.badRequest, "invalid_type", "The field \(field) must not be null.")
        }
    }
}
