import Foundation
import Hummingbird
import NIOCore

/// A request decoder for an application that embeds Latchkey: Hummingbird's `request.decode(as:)`
/// with Latchkey's gate in front — the body at most `limit` bytes, then accepted by Latchkey's strict
/// JSON parser (nesting ≤ 64) before Foundation's `JSONDecoder` reads it. Hummingbird's default
/// decoder hands the bytes straight to Foundation, whose scanner traps on a document nested 513 deep:
/// one request from any signed-in user would end the whole process (third review, finding 9).
///
/// Use it as the request context's decoder:
///
/// ```swift
/// struct AppContext: LatchkeyRequestContext {
///     var requestDecoder: LatchkeyJSONRequestDecoder { LatchkeyJSONRequestDecoder() }
///     …
/// }
/// ```
///
/// A refused body is a 413 (too large) or a 400 whose message says what was wrong.
public struct LatchkeyJSONRequestDecoder: RequestDecoder, Sendable {
    /// The largest body read, in bytes.
    public let limit: Int
    private let decoder: GatedJSONDecoder

    public init(limit: Int = 64 * 1024, dateDecodingStrategy: JSONDecoder.DateDecodingStrategy = .iso8601) {
        self.limit = limit
        self.decoder = GatedJSONDecoder(limit: limit, dateDecodingStrategy: dateDecodingStrategy)
    }

    public func decode<T: Decodable>(_ type: T.Type, from request: Request, context: some RequestContext) async throws -> T {
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: min(limit, context.maxUploadSize))
        } catch is NIOTooManyBytesError {
            throw HTTPError(.contentTooLarge, message: "The request body is larger than \(min(limit, context.maxUploadSize)) bytes.")
        }
        do {
            return try decoder.decode(type, from: Data(buffer: buffer))
        } catch let refusal as GatedJSONDecoder.Refusal {
            throw HTTPError(.badRequest, message: "The body is not acceptable JSON: \(refusal.description).")
        } catch is DecodingError {
            throw HTTPError(.badRequest, message: "The body does not have the expected fields and types.")
        }
    }
}
