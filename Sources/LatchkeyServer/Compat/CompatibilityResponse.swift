import Foundation
import Hummingbird
import LatchkeyAPI
import NIOCore

/// How the compatibility APIs answer: their refusals in the shape their clients read, and bodies read
/// with the same limits as Latchkey's own.
enum CompatibilityResponse {
    /// The seed servers' error shape, `{"error": "sentence"}`, plus Latchkey's stable `code`: both clients
    /// read a flat object of strings (PassKeysDemo decodes `[String: String]`, Hanko's page shows `error`).
    struct ErrorJSON: Encodable {
        let error: String
        let code: String
    }

    /// Runs a handler and turns a refusal (`APIError`) into the compatibility shape with the same status.
    /// Anything else (a database that is down) still reaches the error middleware, which answers for it.
    static func answering(_ handler: () async throws -> Response) async throws -> Response {
        do {
            return try await handler()
        } catch let refusal as APIError {
            var response = try JSONResponse.make(refusal.status, ErrorJSON(error: refusal.message, code: refusal.code))
            if refusal.kind == .unavailable { response.headers[.retryAfter] = "2" }
            return response
        }
    }

    /// A bare text body (PassKeysDemo's login answers with the token alone).
    static func text(_ text: String) -> Response {
        Response(
            status: .ok, headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// A JSON body read as Latchkey reads its own (64 KiB at most, the strict depth-limited parser).
    /// `plainText`: also accept `text/plain`, which is what `fetch` sends for a string body when the page
    /// sets no type (Hanko's page does so); such a request is only ever taken together with an Origin check.
    static func body<T: JSONReadable>(_ type: T.Type, of request: Request, plainText: Bool = false) async throws -> T {
        try await RequestBody.decode(type, from: request, accepting: plainText ? [.json, .plainText] : .json)
    }
}
