import Foundation
import WebAuthn

/// Reading a JSON request body: at most 64 KiB, `application/json`, parsed by the project's strict,
/// depth-limited parser, and every shape error reported as a 400 that names the member (a rule broken
/// by a well-formed value is the caller's 422). This file holds what needs no HTTP types (the parse and
/// the field errors), so the fuzz target for request bodies (`Fuzz/`) builds it without Hummingbird;
/// LatchkeyServer's `RequestBody+Request.swift` reads the body off the request.
package enum RequestBody {
    package static let limit = 64 * 1024

    package static func decode<T: JSONReadable>(_ type: T.Type, from data: Data) throws -> T {
        let document: JSONValue
        do {
            document = try JSONValue.parse(data)
        } catch {
            throw APIError(.malformedJSON, "The body is not valid JSON: \(error.reason) at byte \(error.offset).")
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
        case .missing: return APIError(.missingField, "The field \(field) is missing.")
        case .wrongType: return APIError(.invalidType, "The field \(field) has the wrong type.")
        case .null: return APIError(.invalidType, "The field \(field) must not be null.")
        }
    }
}
