import Foundation
import JWTKit
import WebAuthn

/// Foundation's `JSONDecoder` behind Latchkey's own strict parser: a document reaches Foundation only
/// after `JSONValue.validate` has accepted it (nesting ≤ 64, well-formed UTF-8 and syntax) and only
/// when it is at most `limit` bytes.
///
/// Why: Foundation's JSON scanner recurses once per `[` and traps (SIGILL, the whole server) on a
/// document nested 513 deep — the first security review's crash. Latchkey's own bodies never reach it,
/// but dependencies decode on our behalf: JWTKit decodes a token's header (before any key lookup or
/// signature check) and payload with whatever `JWTJSONDecoder` its key collection holds, and defaults
/// to a bare `JSONDecoder`. Every `JWTKeyCollection` the server builds uses this one instead
/// (`JWTKeyCollection.gated()`), and the embedding API offers `LatchkeyJSONRequestDecoder`, the same
/// gate for Hummingbird's `request.decode`.
public struct GatedJSONDecoder: JWTJSONDecoder {
    /// Why a document was refused before Foundation saw it.
    public struct Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// The most bytes handed to Foundation; JWT headers and payloads of this server are under 1 KiB.
    public let limit: Int
    private let decoder: JSONDecoder

    /// - Parameters:
    ///   - limit: the largest document accepted, in bytes.
    ///   - dateDecodingStrategy: JWTKit's claims are seconds since 1970.
    public init(limit: Int = 8 * 1024, dateDecodingStrategy: JSONDecoder.DateDecodingStrategy = .secondsSince1970) {
        self.limit = limit
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = dateDecodingStrategy
        self.decoder = decoder
    }

    public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try Self.check(data, limit: limit)
        return try decoder.decode(type, from: data)
    }

    /// Throws unless `bytes` may be handed to Foundation: at most `limit` bytes, and a document the
    /// strict parser accepts.
    public static func check(_ bytes: some Collection<UInt8>, limit: Int) throws(Refusal) {
        guard bytes.count <= limit else { throw Refusal(description: "the JSON document is larger than \(limit) bytes") }
        do {
            try JSONValue.validate(bytes)
        } catch {
            throw Refusal(description: "the JSON document is malformed: \(error.reason) at byte \(error.offset)")
        }
    }
}

extension JWTKeyCollection {
    /// An empty key collection whose parser decodes headers and payloads through `GatedJSONDecoder`.
    static func gated() -> JWTKeyCollection {
        JWTKeyCollection(defaultJWTParser: DefaultJWTParser(jsonDecoder: GatedJSONDecoder()))
    }
}
