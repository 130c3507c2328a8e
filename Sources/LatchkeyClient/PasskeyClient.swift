import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import WebAuthn

/// The Swift client of Latchkey's HTTP API: PassKeysDemo's PKD_Handler done right and platform-neutral.
/// It runs the ceremonies with any `Authenticator`, keeps the session token in a `TokenStore`, and turns
/// every failure into a `ClientError`. It never logs tokens.
public struct PasskeyClient: Sendable {
    public let server: URL
    public let origin: String
    let authenticator: any Authenticator
    let tokenStore: any TokenStore
    let http: HTTPClient
    let timeout: TimeAmount

    /// - Parameters:
    ///   - server: the Latchkey server's base URL (`https://login.example.com`).
    ///   - authenticator: what makes and uses the passkeys (AuthenticationServices on an iPhone, the
    ///     software authenticator on Linux and in tests).
    ///   - tokenStore: where the session token is kept between runs.
    ///   - origin: what the authenticator puts in clientDataJSON; default the server URL's origin.
    ///   - http: the HTTP client to use (its lifetime is the caller's); default the shared one.
    ///   - timeout: how long one request may take.
    public init(
        server: URL, authenticator: some Authenticator, tokenStore: some TokenStore, origin: String? = nil,
        http: HTTPClient = .shared, timeout: TimeAmount = .seconds(30)
    ) {
        self.server = server
        self.origin = origin ?? Self.origin(of: server)
        self.authenticator = authenticator
        self.tokenStore = tokenStore
        self.http = http
        self.timeout = timeout
    }

    static func origin(of url: URL) -> String {
        guard let scheme = url.scheme, let host = url.host else { return url.absoluteString }
        let defaultPort = (scheme == "https" && url.port == 443) || (scheme == "http" && url.port == 80)
        return "\(scheme)://\(host)" + (url.port.map { defaultPort ? "" : ":\($0)" } ?? "")
    }

    // MARK: - Ceremonies

    /// Creates an account with a new passkey named `displayName` (also the account's display name) and logs in.
    @discardableResult
    public func register(displayName: String) async throws(ClientError) -> Account {
        try await ensureLoggedOut()
        let options: OptionsEnvelope<PublicKeyCredentialCreationOptionsJSON> = try await call(
            .POST, "/api/registration/options", body: ["displayName": displayName], authenticated: false)
        let credential = try await authenticatorCall { try await authenticator.create(options.publicKey, origin: origin) }
        let session: SessionEnvelope = try await call(.POST, "/api/registration/verify", body: ["credential": credential], authenticated: false)
        try storeToken(session.token)
        return session.account
    }

    /// Logs in with a passkey the authenticator holds for this server (discoverable login).
    @discardableResult
    public func login() async throws(ClientError) -> Account {
        try await login(prf: nil).account
    }

    /// Logs in and evaluates the passkey's PRF (WebAuthn L3 §10.1.4) with `prf`'s inputs, or with the
    /// salt the server is configured with (`--prf-salt`) when `prf` is nil; `prfByCredential` gives
    /// inputs for particular passkeys (by base64url id; the login is then limited to those). Returns the
    /// outputs the passkey gave, as the server handed them back with the session; nil when it gave none
    /// (a passkey without PRF, an authenticator that does not do it, or no inputs at all). The server
    /// never keeps them.
    public func login(prf: PRFValues?, prfByCredential: [String: PRFValues] = [:]) async throws(ClientError) -> (account: Account, prf: PRFValues?) {
        try await ensureLoggedOut()
        let options: OptionsEnvelope<PublicKeyCredentialRequestOptionsJSON>
        if prf == nil, prfByCredential.isEmpty {
            options = try await call(.POST, "/api/login/options", authenticated: false)
        } else {
            let inputs = PRFInputsJSON(
                eval: prf.map(Self.json), evalByCredential: prfByCredential.isEmpty ? nil : prfByCredential.mapValues(Self.json))
            options = try await call(.POST, "/api/login/options", body: ["prf": inputs], authenticated: false)
        }
        let credential = try await authenticatorCall { try await authenticator.get(options.publicKey, origin: origin) }
        let session: SessionEnvelope = try await call(.POST, "/api/login/verify", body: ["credential": credential], authenticated: false)
        try storeToken(session.token)
        guard let results = session.prf else { return (session.account, nil) }
        func output(_ text: String) throws(ClientError) -> [UInt8] {
            guard let bytes = Base64URL.decode(text), bytes.count == 32 else {
                throw ClientError.invalidResponse("POST /api/login/verify returned PRF outputs that are not 32 bytes of base64url")
            }
            return bytes
        }
        return (session.account, PRFValues(first: try output(results.first), second: try results.second.map { text throws(ClientError) in try output(text) }))
    }

    private static func json(_ values: PRFValues) -> PRFValuesJSON {
        PRFValuesJSON(first: Base64URL.encode(values.first), second: values.second.map { Base64URL.encode($0) })
    }

    /// Ends this session on the server and forgets the token.
    public func logout() async throws(ClientError) {
        try await callWithoutResult(.POST, "/api/logout")
        try forgetToken()
    }

    // MARK: - Account

    public func account() async throws(ClientError) -> Account {
        try await call(.GET, "/api/account")
    }

    @discardableResult
    public func update(displayName: String? = nil, credo: String? = nil) async throws(ClientError) -> Account {
        var body: [String: String] = [:]
        if let displayName { body["displayName"] = displayName }
        if let credo { body["credo"] = credo }
        return try await call(.PATCH, "/api/account", body: body)
    }

    /// Deletes the account, its passkeys on the server and its sessions, and forgets the token.
    public func deleteAccount() async throws(ClientError) {
        try await callWithoutResult(.DELETE, "/api/account")
        try forgetToken()
    }

    /// The account's history, newest first: sign-ins (and refused ones), passkeys added, renamed and
    /// removed, sign-outs, an operator's actions. `cursor` is the `next` of the page before; `limit` is
    /// 1 to 500 (the server answers at most 100 a page, 50 without one).
    public func events(cursor: String? = nil, limit: Int? = nil) async throws(ClientError) -> AccountEventPage {
        var query: [String] = []
        if let limit { query.append("limit=\(limit)") }
        if let cursor { query.append("cursor=\(cursor.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")") }
        return try await call(.GET, "/api/account/events" + (query.isEmpty ? "" : "?" + query.joined(separator: "&")))
    }

    // MARK: - Letting a new device in

    /// A new device's request to sign in to this account, found by the code it shows (8 letters; case,
    /// spaces and the dash do not matter): which browser asked, from where, when.
    public func deviceRequest(code: String) async throws(ClientError) -> DeviceRequest {
        try await call(.POST, "/api/account/device-requests/find", body: ["code": code])
    }

    /// Lets the device of `request` in, confirmed with a fresh passkey assertion (the authenticator must
    /// verify the user): its next poll gets a session that can add its own passkey.
    public func approveDeviceRequest(_ request: DeviceRequest) async throws(ClientError) {
        let options: OptionsEnvelope<PublicKeyCredentialRequestOptionsJSON> = try await call(.POST, "/api/account/confirm/options")
        let credential = try await authenticatorCall { try await authenticator.get(options.publicKey, origin: origin) }
        _ = try await send(.POST, "/api/account/device-requests/\(try pathComponent(request.id))/approve", body: ["credential": credential], authenticated: true)
    }

    /// Refuses the device of `request`.
    public func denyDeviceRequest(_ request: DeviceRequest) async throws(ClientError) {
        try await callWithoutResult(.POST, "/api/account/device-requests/\(try pathComponent(request.id))/deny")
    }

    // MARK: - Passkeys

    public func passkeys() async throws(ClientError) -> [Passkey] {
        try await call(.GET, "/api/account/passkeys")
    }

    /// What to pass to the platform's passkey manager so that it shows the account's current names and
    /// only the passkeys the server still accepts.
    public func signals() async throws(ClientError) -> Signals {
        try await call(.GET, "/api/account/signals")
    }

    /// Adds another passkey to the logged-in account.
    @discardableResult
    public func addPasskey(name: String?) async throws(ClientError) -> Passkey {
        let options: OptionsEnvelope<PublicKeyCredentialCreationOptionsJSON> = try await call(
            .POST, "/api/registration/options", body: name.map { ["name": $0] } ?? [:])
        let credential = try await authenticatorCall { try await authenticator.create(options.publicKey, origin: origin) }
        let added: PasskeyEnvelope = try await call(.POST, "/api/registration/verify", body: ["credential": credential])
        return added.passkey
    }

    @discardableResult
    public func renamePasskey(id: String, name: String) async throws(ClientError) -> Passkey {
        try await call(.PATCH, "/api/account/passkeys/\(try pathComponent(id))", body: ["name": name])
    }

    public func removePasskey(id: String) async throws(ClientError) {
        try await callWithoutResult(.DELETE, "/api/account/passkeys/\(try pathComponent(id))")
    }

    /// Whether a token is stored for this server (it may still have expired on the server).
    public func hasSession() throws(ClientError) -> Bool {
        do {
            return try tokenStore.token(for: server) != nil
        } catch {
            throw ClientError.invalidResponse("the session store cannot be read: \(error)")
        }
    }

    // MARK: - Plumbing

    private struct OptionsEnvelope<Options: Decodable>: Decodable { let publicKey: Options }
    private struct SessionEnvelope: Decodable {
        let token: String
        let account: Account
        let prf: PRFValuesJSON?
    }
    private struct PasskeyEnvelope: Decodable { let passkey: Passkey }
    private struct ErrorEnvelope: Decodable {
        struct Detail: Decodable {
            let code: String
            let message: String
        }
        let error: Detail
    }

    /// Register and login are for logged-out users; a stale token (expired or revoked) is dropped.
    private func ensureLoggedOut() async throws(ClientError) {
        guard try storedToken() != nil else { return }
        do {
            _ = try await account()
        } catch ClientError.notLoggedIn {
            return
        }
        throw ClientError.alreadyLoggedIn
    }

    private func pathComponent(_ id: String) throws(ClientError) -> String {
        guard let bytes = Base64URL.decode(id), !bytes.isEmpty else {
            throw ClientError.refused(status: 400, code: "invalid_passkey_id", message: "The passkey id must be base64url.")
        }
        return Base64URL.encode(bytes)
    }

    private func authenticatorCall<T>(_ body: () async throws -> T) async throws(ClientError) -> T {
        do {
            return try await body()
        } catch let error as ClientError {
            throw error
        } catch {
            throw ClientError.authenticatorRefused("\(error)")
        }
    }

    private func storedToken() throws(ClientError) -> String? {
        do {
            return try tokenStore.token(for: server)
        } catch let error as ClientError {
            throw error
        } catch {
            throw ClientError.invalidResponse("the session store cannot be read: \(error)")
        }
    }

    private func storeToken(_ token: String) throws(ClientError) {
        do {
            try tokenStore.save(token, for: server)
        } catch {
            throw ClientError.invalidResponse("the session token cannot be saved: \(error)")
        }
    }

    private func forgetToken() throws(ClientError) {
        do {
            try tokenStore.remove(for: server)
        } catch {
            throw ClientError.invalidResponse("the session token cannot be removed: \(error)")
        }
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }()

    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()

    private func call<Result: Decodable>(
        _ method: HTTPMethod, _ path: String, body: (some Encodable)? = Optional<[String: String]>.none, authenticated: Bool = true
    ) async throws(ClientError) -> Result {
        let data = try await send(method, path, body: body, authenticated: authenticated)
        do {
            // A server's body is input like any other: through the depth-limited gate before Foundation.
            try JSONValue.validate(data)
            return try Self.decoder.decode(Result.self, from: data)
        } catch {
            throw ClientError.invalidResponse("\(method.rawValue) \(path) returned an unexpected body")
        }
    }

    private func callWithoutResult(_ method: HTTPMethod, _ path: String) async throws(ClientError) {
        _ = try await send(method, path, body: Optional<[String: String]>.none, authenticated: true)
    }

    private func send(_ method: HTTPMethod, _ path: String, body: (some Encodable)?, authenticated: Bool) async throws(ClientError) -> Data {
        var request = HTTPClientRequest(url: server.absoluteString.trimmingTrailingSlash + path)
        request.method = method
        request.headers.add(name: "Accept", value: "application/json")
        var sentToken: String?
        if authenticated {
            guard let token = try storedToken() else { throw ClientError.notLoggedIn }
            request.headers.add(name: "Authorization", value: "Bearer \(token)")
            sentToken = token
        }
        if let body {
            do {
                request.body = .bytes(ByteBuffer(bytes: try Self.encoder.encode(body)))
            } catch {
                throw ClientError.invalidResponse("the request could not be encoded")
            }
            request.headers.add(name: "Content-Type", value: "application/json")
        }
        let status: Int
        let data: Data
        do {
            let response = try await http.execute(request, timeout: timeout)
            status = Int(response.status.code)
            let buffer = try await response.body.collect(upTo: 1 << 20)
            data = Data(buffer.readableBytesView)
        } catch {
            throw ClientError.unreachable("\(server.absoluteString): \(Self.describe(error))")
        }
        guard (200..<300).contains(status) else {
            guard (try? JSONValue.validate(data)) != nil, let envelope = try? Self.decoder.decode(ErrorEnvelope.self, from: data) else {
                throw ClientError.invalidResponse("\(method.rawValue) \(path) answered \(status) without the API's error body")
            }
            if status == 401, envelope.error.code == "not_authenticated", sentToken != nil {
                // The session expired or was revoked: forget it, so the next command says "log in".
                try? tokenStore.remove(for: server)
                throw ClientError.notLoggedIn
            }
            throw ClientError.refused(status: status, code: envelope.error.code, message: envelope.error.message)
        }
        return data
    }

    private static func describe(_ error: any Error) -> String {
        let text = String(describing: error)
        if text.contains("connectionRefused") || text.contains("Connection refused") { return "connection refused" }
        if text.contains("deadlineExceeded") || text.contains("timeout") { return "timed out" }
        return text
    }
}

private extension String {
    var trimmingTrailingSlash: String { hasSuffix("/") ? String(dropLast()) : self }
}
