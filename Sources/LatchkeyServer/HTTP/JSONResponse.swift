import Foundation
import Hummingbird
import LatchkeyAPI

/// JSON responses in the API's one style: camelCase members, ISO 8601 dates, sorted keys.
enum JSONResponse {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    static func make(_ status: HTTPResponse.Status, _ value: some Encodable, headers: HTTPFields = [:]) throws -> Response {
        json(status, ByteBuffer(bytes: try encoder.encode(value)), headers: headers)
    }

    /// The same response for a body that writes its own JSON (see `JSONWritable`).
    static func make(_ status: HTTPResponse.Status, _ value: some Encodable & JSONWritable, headers: HTTPFields = [:]) throws -> Response {
        json(status, ByteBuffer(bytes: JSONWriter.encode(value)), headers: headers)
    }

    private static func json(_ status: HTTPResponse.Status, _ body: ByteBuffer, headers: HTTPFields) -> Response {
        var fields = headers
        fields[.contentType] = "application/json; charset=utf-8"
        fields[.cacheControl] = "no-store"
        return Response(status: status, headers: fields, body: .init(byteBuffer: body))
    }

    static func empty(_ status: HTTPResponse.Status = .noContent, headers: HTTPFields = [:]) -> Response {
        var fields = headers
        fields[.cacheControl] = "no-store"
        return Response(status: status, headers: fields)
    }
}

/// The body of every error response: `{"error": {"code", "message"}}`.
struct ErrorBody: Encodable {
    struct Detail: Encodable {
        let code: String
        let message: String
    }

    let error: Detail
}

extension APIError: HTTPResponseError {
    package var status: HTTPResponse.Status {
        switch kind {
        case .badRequest: .badRequest
        case .unauthorized: .unauthorized
        case .forbidden: .forbidden
        case .notFound: .notFound
        case .methodNotAllowed: .methodNotAllowed
        case .conflict: .conflict
        case .tooLarge: .contentTooLarge
        case .invalidField: .unprocessableContent
        case .rateLimited: .tooManyRequests
        case .internalError: .internalServerError
        case .unavailable: .serviceUnavailable
        }
    }

    package func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = try JSONResponse.make(status, ErrorBody(error: .init(code: code, message: message)))
        // A database that is restarting is back within seconds; clients and proxies may retry then.
        if kind == .unavailable { response.headers[.retryAfter] = "2" }
        return response
    }
}

extension ErrorBody: JSONWritable {
    func write(to json: inout JSONWriter) {
        json.object { json in
            json.member("error") { json in
                json.object { json in
                    json.member("code", error.code)
                    json.member("message", error.message)
                }
            }
        }
    }
}
