import Foundation
import Hummingbird
import LatchkeyAPI

/// A value Latchkey's API answers with. It writes itself as the response — JSON in the API's one style
/// (`JSONResponse`), `Cache-Control: no-store`, 200 — so a handler returns the value and never builds a
/// `Response`. A body that writes its own JSON (`JSONWritable`, the login's hot path) is written by the
/// `JSONWriter`, any other by the encoder: which one is fixed where the type declares its conformance.
protocol APIResponseBody: Encodable, ResponseGenerator {}

extension APIResponseBody {
    func response(from request: Request, context: some RequestContext) throws -> Response {
        try JSONResponse.make(.ok, self)
    }
}

extension APIResponseBody where Self: JSONWritable {
    func response(from request: Request, context: some RequestContext) throws -> Response {
        try JSONResponse.make(.ok, self)
    }
}

/// A body sent with another status than 200, or with headers of its own (the session cookie).
struct APIReply<Body: APIResponseBody>: ResponseGenerator {
    var status: HTTPResponse.Status = .ok
    var headers: HTTPFields = [:]
    let body: Body

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = try body.response(from: request, context: context)
        response.status = status
        for field in headers { response.headers[field.name] = field.value } // replaces the body's own (Cache-Control)
        return response
    }
}

/// A bare JSON array of bodies (`GET /api/account/passkeys`, `assetlinks.json`).
struct JSONArrayBody<Element: Encodable & Sendable>: APIResponseBody {
    let elements: [Element]

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(elements)
    }
}

/// 204 with nothing in it (and headers such as the cookie's removal).
struct NoContent: ResponseGenerator {
    var headers: HTTPFields = [:]

    func response(from request: Request, context: some RequestContext) throws -> Response {
        JSONResponse.empty(headers: headers)
    }
}
