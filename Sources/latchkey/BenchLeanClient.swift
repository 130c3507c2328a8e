import Foundation
@_spi(Benchmark) import LatchkeyServer
import SoftAuthenticator
import WebAuthn

#if canImport(Glibc)
import Glibc
#endif

/// The benchmark's default load generator: one blocking keep-alive socket and one thread per simulated
/// user, requests written by hand, responses read by Content-Length, JSON read with WebAuthn's parser.
/// AsyncHTTPClient (`--client async-http-client`) is the right client for an application, but on a
/// 2-core machine it takes half the machine away from the server it is measuring; this client does the
/// same login — options, SoftAuthenticator signing, verify — with little more than the signature.
struct LeanLoadGenerator {
    let target: BenchTarget
    /// A recovery admin key, for `.recovery`.
    var adminKey: String? = nil
    var origin: String { target.origin }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs `users.count` threads until `end`; each returns its latencies in seconds.
    func run(users: [SoftAuthenticator], until end: Date, iteration: BenchCommand.Iteration) async throws -> [Double] {
        try await withThrowingTaskGroup(of: [Double].self) { group in
            for user in users {
                group.addTask {
                    try await withCheckedThrowingContinuation { continuation in
                        let thread = Thread {
                            continuation.resume(with: Result { try loop(user: user, until: end, iteration: iteration) })
                        }
                        thread.start()
                    }
                }
            }
            return try await group.reduce(into: [Double]()) { $0 += $1 }
        }
    }

    private func loop(user: SoftAuthenticator, until end: Date, iteration: BenchCommand.Iteration) throws -> [Double] {
        let connection = try LeanHTTPConnection(target: target)
        // A recovery is for an account: this user's, learnt from one login before the clock starts.
        let accountId = iteration == .recovery ? try Self.accountId(in: login(user, on: connection)) : ""
        // The forward-auth check is asked with a browser's session cookie: this user's, from one login before the clock starts.
        let cookie = iteration == .forwardAuth ? "latchkey_session=" + (try Self.token(in: login(user, on: connection))) : ""
        var samples: [Double] = []
        while Date() < end {
            let began = DispatchTime.now().uptimeNanoseconds
            switch iteration {
            case .login: try login(user, on: connection)
            // A new authenticator each time: one that kept every passkey it made would search a longer list
            // at each later sign-in, and slow the floor and login measured after this (issue 16).
            case .registration: try register(SoftAuthenticator(store: InMemoryCredentialStore()), on: connection)
            case .floor: try floor(user, on: connection)
            case .oidc: try oidcFlow(user, on: connection)
            case .recovery: try recover(accountId, on: connection)
            case .forwardAuth:
                _ = try connection.send("GET", "/api/forward-auth", headers: [
                    ("Cookie", cookie), ("X-Forwarded-Proto", "http"), ("X-Forwarded-Host", "app.localhost"), ("X-Forwarded-Uri", "/dashboard?panel=1"),
                ], expecting: 200)
            case .forwardAuthFloor: _ = try connection.send("GET", "/healthz", expecting: 200)
            }
            samples.append(Double(DispatchTime.now().uptimeNanoseconds - began) / 1e9)
        }
        return samples
    }

    /// A whole OpenID Connect sign-in: a passkey login (its session stands for the browser's), the
    /// authorization decision (a first-party client: straight to the code), the code for tokens, and the
    /// UserInfo request a relying party makes with the access token.
    private func oidcFlow(_ user: SoftAuthenticator, on connection: LeanHTTPConnection) throws {
        let session = try login(user, on: connection)
        guard case .object(let signedIn) = try JSONValue.parse(session), case .string(let token)? = signedIn["token"] else {
            throw Failure(description: "the login answered without a token")
        }
        let query = "response_type=code&client_id=\(BenchOIDCClient.id)&scope=openid%20profile&nonce=n&redirect_uri="
            + (BenchOIDCClient.redirectURI.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
        let decision = try connection.send(
            "POST", "/api/oidc/authorization", body: Array("{\"query\":\(JSONValue.quoted(query))}".utf8), authorization: "Bearer \(token)", expecting: 200)
        guard case .object(let reply) = try JSONValue.parse(decision), case .string(let redirect)? = reply["redirect"],
              let code = URLComponents(string: redirect)?.queryItems?.first(where: { $0.name == "code" })?.value
        else { throw Failure(description: "the authorization answered without a code: \(String(decoding: decision, as: UTF8.self))") }
        let form = "grant_type=authorization_code&code=\(code)&redirect_uri="
            + (BenchOIDCClient.redirectURI.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
        let basic = "Basic " + Data("\(BenchOIDCClient.id):\(BenchCommand.oidcSecret)".utf8).base64EncodedString()
        let tokens = try connection.send(
            "POST", "/oidc/token", body: Array(form.utf8), contentType: "application/x-www-form-urlencoded", authorization: basic, expecting: 200)
        guard case .object(let issued) = try JSONValue.parse(tokens), case .string(let access)? = issued["access_token"] else {
            throw Failure(description: "the token endpoint answered without an access token")
        }
        _ = try connection.send("GET", "/oidc/userinfo", authorization: "Bearer \(access)", expecting: 200)
    }

    /// A whole recovery: an operator issues a grant for the account (the admin API, as `latchkey admin
    /// recovery issue` would), the person exchanges its code for a restricted session and adds a new passkey
    /// with it (a new authenticator each time, as a lost device's replacement would be).
    private func recover(_ accountId: String, on connection: LeanHTTPConnection) throws {
        guard let adminKey else { throw Failure(description: "--recovery needs the benchmark's admin key") }
        let issued = try connection.send(
            "POST", "/api/admin/accounts/\(accountId)/recovery", body: Array("{}".utf8), authorization: "Bearer \(adminKey)", expecting: 201)
        guard case .object(let grant) = try JSONValue.parse(issued), case .string(let code)? = grant["code"] else {
            throw Failure(description: "the recovery grant came without a code")
        }
        let exchanged = try connection.send("POST", "/api/recovery/exchange", body: Array("{\"code\":\(JSONValue.quoted(code))}".utf8), expecting: 201)
        guard case .object(let session) = try JSONValue.parse(exchanged), case .string(let token)? = session["token"] else {
            throw Failure(description: "the exchange answered without a token")
        }
        let options = try connection.send(
            "POST", "/api/registration/options", body: Array("{}".utf8), authorization: "Bearer \(token)", expecting: 200)
        let creation = try Self.creationOptions(options)
        let credential = try SoftAuthenticator(store: InMemoryCredentialStore()).makeCredential(creation, origin: origin)
        _ = try connection.send(
            "POST", "/api/registration/verify", body: Array(try JSONEncoder().encode(["credential": credential])), authorization: "Bearer \(token)",
            expecting: 201)
    }

    /// `account.id` in a login's answer.
    private static func accountId(in session: [UInt8]) throws -> String {
        guard case .object(let signedIn) = try JSONValue.parse(session), case .object(let account)? = signedIn["account"],
              case .string(let id)? = account["id"]
        else { throw Failure(description: "the login answered without account.id") }
        return id
    }

    /// The session token of a login's answer.
    private static func token(in session: [UInt8]) throws -> String {
        guard case .object(let top) = try JSONValue.parse(session), case .string(let token)? = top["token"] else {
            throw Failure(description: "the login answered without a token")
        }
        return token
    }

    @discardableResult
    private func login(_ user: SoftAuthenticator, on connection: LeanHTTPConnection) throws -> [UInt8] {
        let options = try connection.send("POST", "/api/login/options", expecting: 200)
        guard case .object(let top) = try JSONValue.parse(options), case .object(let publicKey)? = top["publicKey"],
              case .string(let challenge)? = publicKey["challenge"]
        else { throw Failure(description: "login options without publicKey.challenge") }
        var rpId: String?
        if case .string(let id)? = publicKey["rpId"] { rpId = id }
        var userVerification: String?
        if case .string(let uv)? = publicKey["userVerification"] { userVerification = uv }
        let credential = try user.getAssertion(
            PublicKeyCredentialRequestOptionsJSON(challenge: challenge, rpId: rpId, allowCredentials: [], userVerification: userVerification),
            origin: origin)
        return try connection.send("POST", "/api/login/verify", body: Array(Self.verifyBody(credential).utf8), expecting: 200)
    }

    /// A new account: options, a new passkey from `user`, verify.
    private func register(_ user: SoftAuthenticator, on connection: LeanHTTPConnection) throws {
        let options = try connection.send("POST", "/api/registration/options", body: Array(#"{"displayName":"bench-new"}"#.utf8), expecting: 200)
        let creation = try Self.creationOptions(options)
        let credential = try user.makeCredential(creation, origin: origin)
        _ = try connection.send("POST", "/api/registration/verify", body: Array(try JSONEncoder().encode(["credential": credential])), expecting: 201)
    }

    private struct CreationOptions: Decodable { let publicKey: PublicKeyCredentialCreationOptionsJSON }

    /// `publicKey` of a registration options answer, through the strict parser's depth and size gate
    /// before Foundation's decoder (`GatedJSONDecoder`): the bytes come from whatever server is driven.
    private static func creationOptions(_ body: [UInt8]) throws -> PublicKeyCredentialCreationOptionsJSON {
        try GatedJSONDecoder(limit: 64 * 1024).decode(CreationOptions.self, from: Data(body)).publicKey
    }

    /// The same client work around two requests that cost the server nothing but HTTP.
    private func floor(_ user: SoftAuthenticator, on connection: LeanHTTPConnection) throws {
        _ = try connection.send("GET", "/healthz", expecting: 200)
        let credential = try user.getAssertion(BenchCommand.Iteration.floorOptions(origin: origin), origin: origin)
        _ = Self.verifyBody(credential)
        _ = try connection.send("GET", "/healthz", expecting: 200)
    }

    /// `{"credential": …}` for the verify request, written directly.
    static func verifyBody(_ credential: AuthenticationResponseJSON) -> String {
        var response = "\"clientDataJSON\":\(JSONValue.quoted(credential.response.clientDataJSON)),\"authenticatorData\":\(JSONValue.quoted(credential.response.authenticatorData)),\"signature\":\(JSONValue.quoted(credential.response.signature))"
        if let userHandle = credential.response.userHandle { response += ",\"userHandle\":\(JSONValue.quoted(userHandle))" }
        var body = "{\"credential\":{\"id\":\(JSONValue.quoted(credential.id)),\"rawId\":\(JSONValue.quoted(credential.rawId)),\"type\":\(JSONValue.quoted(credential.type)),\"response\":{\(response)}"
        if let attachment = credential.authenticatorAttachment { body += ",\"authenticatorAttachment\":\(JSONValue.quoted(attachment))" }
        body += ",\"clientExtensionResults\":{}}}"
        return body
    }
}

/// One blocking HTTP/1.1 keep-alive connection to the target's IPv4 address, opened again when the
/// server ends it with `Connection: close` (nginx does after `keepalive_requests`, 1000 by default).
final class LeanHTTPConnection {
    private var socket: Int32 = -1
    private let target: BenchTarget
    private let host: String
    /// Received bytes not yet consumed.
    private var pending: [UInt8] = []
    /// The last response said `Connection: close`: the next request needs a new connection.
    private var closing = false

    init(target: BenchTarget) throws {
        self.target = target
        host = target.host
        try open()
    }

    private func open() throws {
        let port = target.port
        pending = []
        closing = false
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw LeanLoadGenerator.Failure(description: "socket() failed: errno \(errno)") }
        var noDelay: Int32 = 1
        setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr(target.address)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(socket)
            throw LeanLoadGenerator.Failure(description: "connect to port \(port) failed: errno \(errno)")
        }
    }

    deinit { close(socket) }

    /// Sends one request and returns the response body; any other status than `expected` is an error.
    func send(
        _ method: String, _ path: String, body: [UInt8]? = nil, contentType: String = "application/json", authorization: String? = nil,
        headers: [(String, String)] = [], expecting expected: Int
    ) throws -> [UInt8] {
        if closing {
            close(socket)
            try open()
        }
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(host)\r\nContent-Length: \(body?.count ?? 0)\r\n"
        if body != nil { head += "Content-Type: \(contentType)\r\n" }
        if let authorization { head += "Authorization: \(authorization)\r\n" }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        try write(Array(head.utf8) + (body ?? []))
        let (status, responseBody) = try readResponse()
        guard status == expected else {
            throw LeanLoadGenerator.Failure(description: "\(path) answered \(status): \(String(decoding: responseBody, as: UTF8.self))")
        }
        return responseBody
    }

    private func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { throw LeanLoadGenerator.Failure(description: "send failed: errno \(errno)") }
            offset += written
        }
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { throw LeanLoadGenerator.Failure(description: "the server closed the connection") }
        pending.append(contentsOf: chunk[..<count])
    }

    /// Status and body of the next response (bodies framed by Content-Length, as the server sends them).
    private func readResponse() throws -> (Int, [UInt8]) {
        let separator: [UInt8] = [13, 10, 13, 10]
        var headEnd: Int?
        while headEnd == nil {
            try fill()
            headEnd = pending.firstRange(of: separator)?.upperBound
        }
        guard let headEnd else { throw LeanLoadGenerator.Failure(description: "no response head") }
        let head = String(decoding: pending[..<headEnd], as: UTF8.self).lowercased()
        let lines = head.split(separator: "\r\n")
        guard let statusLine = lines.first, statusLine.split(separator: " ").count >= 2,
              let status = Int(statusLine.split(separator: " ")[1])
        else { throw LeanLoadGenerator.Failure(description: "malformed status line") }
        guard !head.contains("transfer-encoding: chunked") else { throw LeanLoadGenerator.Failure(description: "chunked responses are not supported") }
        closing = lines.contains { $0.hasPrefix("connection:") && $0.contains("close") }
        let length = lines.lazy.compactMap { line -> Int? in
            guard line.hasPrefix("content-length:") else { return nil }
            return Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
        }.first ?? 0
        while pending.count < headEnd + length { try fill() }
        let body = Array(pending[headEnd..<headEnd + length])
        pending.removeFirst(headEnd + length)
        return (status, body)
    }
}
