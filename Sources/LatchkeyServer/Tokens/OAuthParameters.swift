import Foundation
import Hummingbird
import LatchkeyAPI

/// The parameters of an authorization request's query or of an `application/x-www-form-urlencoded` body
/// (RFC 6749 §3.1, §3.2, Appendix B; RFC 7662 §2.1), read behind bounds: at most 8 KiB (or what the
/// caller allows, never more than the 64 KiB a body may be) and 40 parameters, each name and value
/// properly percent-encoded, none repeated ("MUST NOT be included more than once"), and empty values
/// treated as absent (RFC 6749 §3.1). The one form reader: the token, UserInfo and revocation endpoints
/// and introspection all read their bodies through `form(of:maxBytes:)`.
struct OAuthParameters: Sendable, Equatable {
    static let maxBytes = 8 * 1024
    static let maxCount = 40

    private(set) var values: [String: String] = [:]


    subscript(_ name: String) -> String? { values[name] }

    /// Why the text could not be read, as the end of a sentence; `badlyEncoded` names the parameter whose
    /// value is not properly percent-encoded, when that was the fault.
    struct Malformed: Error, Sendable, Equatable {
        let reason: String
        var badlyEncoded: String? = nil
    }

    /// Why a request's body was not read as a form.
    enum FormProblem: Error, Sendable, Equatable {
        /// Its Content-Type is not `application/x-www-form-urlencoded`.
        case notAForm
        case malformed(Malformed)
    }

    init(_ values: [String: String]) { self.values = values }

    init(parsing text: Substring, maxBytes: Int = Self.maxBytes) throws(Malformed) {
        guard text.utf8.count <= maxBytes else { throw Malformed(reason: "is longer than \(maxBytes) bytes") }
        var count = 0
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            count += 1
            guard count <= Self.maxCount else { throw Malformed(reason: "has more than \(Self.maxCount) parameters") }
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decode(parts[0]), !name.isEmpty else { throw Malformed(reason: "has a parameter whose name is not properly encoded") }
            guard let value = parts.count == 2 ? Self.decode(parts[1]) : "" else {
                throw Malformed(reason: "has a value of \(Self.named(name)) that is not properly percent-encoded", badlyEncoded: name)
            }
            guard values[name] == nil else { throw Malformed(reason: "has \(Self.named(name)) more than once") }
            if !value.isEmpty { values[name] = value }
        }
    }

    /// The parameters of `request`'s form body: the Content-Type checked first, then the body collected
    /// (`RequestBody.collect`: 64 KiB at most, else 413 `body_too_large`, thrown), then parsed with
    /// `maxBytes` (8 KiB unless the caller allows more: introspection is asked about tokens of any size,
    /// answering inactive for those over 4 KiB).
    static func form(of request: Request, maxBytes: Int = Self.maxBytes) async throws -> Result<OAuthParameters, FormProblem> {
        guard RequestBody.contentType(of: request, isOneOf: .form) else { return .failure(.notAForm) }
        let buffer = try await RequestBody.collect(request)
        do {
            return .success(try OAuthParameters(parsing: Substring(String(decoding: buffer.readableBytesView, as: UTF8.self)), maxBytes: maxBytes))
        } catch {
            return .failure(.malformed(error))
        }
    }

    /// A parameter as a sentence names it: by its name when it is one the endpoints read — a fixed list,
    /// so the words are always Latchkey's — and as "a parameter" otherwise. A caller's own name went into
    /// the error page's sentence before, and with it HTML (review 4, S4-1): never echo it.
    static func named(_ name: String) -> String {
        knownNames.contains(name) ? "the parameter \(name)" : "a parameter"
    }

    /// Every parameter an authorization, logout, token, revocation, introspection or UserInfo request has
    /// a meaning for (OpenID Connect Core §3.1.2.1, RP-Initiated Logout §2, RFC 6749, 7009, 7636, 7662).
    static let knownNames: Set<String> = [
        "response_type", "response_mode", "client_id", "redirect_uri", "scope", "state", "nonce", "prompt", "max_age",
        "display", "ui_locales", "login_hint", "id_token_hint", "acr_values", "claims", "request", "request_uri",
        "code_challenge", "code_challenge_method", "post_logout_redirect_uri", "logout_hint", "grant_type", "code",
        "code_verifier", "refresh_token", "client_secret", "client_assertion", "client_assertion_type", "token",
        "token_type_hint", "access_token", "after",
    ]

    /// `+` is a space in form encoding; the rest is percent-decoding, refusing malformed escapes and
    /// invalid UTF-8.
    private static func decode(_ text: Substring) -> String? {
        String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }

    /// Form-encodes `pairs` for a redirect's query (RFC 6749 Appendix B): everything but unreserved
    /// characters escaped.
    static func encode(_ pairs: [(String, String)]) -> String {
        pairs.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
    }

    static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}
