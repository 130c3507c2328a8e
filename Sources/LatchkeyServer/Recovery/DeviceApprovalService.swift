import Crypto
import Foundation
import LatchkeyAPI
import LatchkeyTransport
import WebAuthn

/// Letting a new device in from a signed-in one, with no operator and no email: the new device asks
/// (`request`) and shows a short code while it keeps a secret; the person, signed in elsewhere, finds the
/// request by the code (`find`), sees which browser and address asked and when, and approves it with a
/// fresh passkey assertion (`approve`, user verification, at most a minute old) or denies it; the new
/// device, polling with its secret (`poll`), then gets a restricted session — the kind a recovery grant
/// gives — and adds its own passkey. Only the hashes of the code and the secret are stored; requests
/// live five minutes, and at most `liveLimit` are live at once (an anonymous caller's requests are
/// bounded in number and in life).
struct DeviceApprovalService: Sendable {
    let store: Store
    let ceremonies: CeremonyService
    let now: @Sendable () -> Date

    static let lifetime: TimeInterval = 5 * 60
    static let confirmationLifetime: TimeInterval = 60
    static let liveLimit = 10_000
    /// Live requests one requester (an address, an IPv6 /64) holds: a new one replaces its oldest. With
    /// the global limit, 1 000 addresses are needed to fill the table, not 4 (review 4, S4-3).
    static let perRequester = 10
    static let codeLength = 8

    /// The short code a person compares and types: 8 letters of base32, shown as two groups.
    static func code() -> String {
        let letters = RandomBytes.make(codeLength).map { RecoveryCode.alphabet[Int($0) & 31] }
        return String(letters[..<4]) + "-" + String(letters[4...])
    }

    static func normalized(_ code: String) -> String? {
        guard code.utf8.count <= 32 else { return nil }
        let letters = code.uppercased().filter { $0 != "-" && $0 != " " }
        guard letters.count == codeLength, letters.allSatisfy(RecoveryCode.alphabet.contains) else { return nil }
        return String(letters)
    }


    // MARK: The new device

    /// A new request; `username`, when the person gives it, is the only account that may find, approve or
    /// deny it.
    func request(username: String? = nil, origin: AuditOrigin) async throws -> DeviceRequestCreatedJSON {
        let forUsername = try username.map { name throws(APIError) in try InputRules.username(name) }
        let at = now()
        for _ in 0..<5 {
            let code = Self.code()
            let secret = Base64URL.encode(RandomBytes.make(32))
            let record = DeviceRequestRecord(
                id: UUID().uuidString.lowercased(), codeHash: SecretDigest.of(Self.normalized(code) ?? code), secretHash: SecretDigest.of(secret),
                createdAt: at, expiresAt: at + Self.lifetime, userAgent: origin.userAgent, clientAddress: origin.clientAddress,
                forUsername: forUsername)
            let requester = origin.clientAddress.flatMap { RateLimitClient(text: $0)?.requesterKey } ?? "unknown"
            if try await store.deviceRequests.insert(record, requester: requester, perRequester: Self.perRequester, liveLimit: Self.liveLimit) {
                return DeviceRequestCreatedJSON(id: record.id, code: code, secret: secret, expiresAt: record.expiresAt, pollInterval: 2)
            }
            // Either the live limit is reached or the code is taken by a live request: a fresh code tells which.
        }
        throw APIError(.tooManyDeviceRequests, "Too many sign-in requests are waiting right now; try again in a few minutes.")
    }

    /// The request's state for the device holding its secret; an approved request's session, once.
    func poll(id: String, secret: String) async throws -> DeviceRequestStatusJSON {
        guard let request = try await store.deviceRequests.request(id: id), ConstantTime.equal(SecretDigest.of(secret), request.secretHash) else {
            throw APIError(.unknownDeviceRequest, "There is no sign-in request with this id and secret.")
        }
        let at = now()
        if request.deniedAt != nil { return DeviceRequestStatusJSON(status: "denied") }
        guard request.approvedAt != nil else {
            return DeviceRequestStatusJSON(status: request.expiresAt > at ? "pending" : "expired")
        }
        let token = SessionToken.generateRecovery()
        let session = NewSession(
            tokenHash: token.hash, accountId: request.accountId ?? "", credentialId: nil, createdAt: at,
            expiresAt: at + RecoveryService.sessionLifetime, userVerified: false)
        guard let accountId = try await store.deviceRequests.issueSession(id: id, session: session),
              let account = try await store.account(id: accountId)
        else { return DeviceRequestStatusJSON(status: request.sessionIssuedAt != nil ? "used" : "expired") }
        // The new device shows whose account let it in — the username and the id's start, which the
        // approver cannot choose to look like someone else's — and asks before it adds its passkey there.
        let username = try await store.accountProfile(id: account.id)?.username
        return DeviceRequestStatusJSON(
            status: "approved", token: token.value, expiresAt: session.expiresAt,
            account: DeviceAccountJSON(id: account.id, displayName: account.displayName, username: username))
    }

    // MARK: The signed-in device

    func find(code: String, caller: AccountRecord) async throws -> DeviceRequestJSON {
        guard let normalized = Self.normalized(code), let request = try await store.deviceRequests.live(codeHash: SecretDigest.of(normalized), now: now())
        else { throw APIError.unknownDeviceRequest }
        try await checkOwner(of: request, caller: caller)
        return DeviceRequestJSON(request)
    }

    /// A request that names an account is that account's alone: any other gets the answer for no request
    /// at all (review 4, S4-12).
    private func checkOwner(of request: DeviceRequestRecord, caller: AccountRecord) async throws {
        guard let wanted = request.forUsername else { return }
        guard try await store.accountProfile(id: caller.id)?.username == wanted else { throw APIError.unknownDeviceRequest }
    }

    /// Options for the confirming assertion: the account's own passkeys, user verification required, a
    /// minute to answer.
    func confirmationOptions(account: AccountRecord) async throws -> PublicKeyCredentialRequestOptionsJSON {
        try await ceremonies.confirmationOptions(accountId: account.id, lifetime: Self.confirmationLifetime)
    }

    func approve(id: String, credential: AuthenticationResponseJSON, caller: AccountRecord, origin: AuditOrigin) async throws {
        guard let request = try await store.deviceRequests.request(id: id) else { throw APIError.unknownDeviceRequest }
        try await checkOwner(of: request, caller: caller)
        try await ceremonies.confirm(credential, accountId: caller.id) { challenge, credentialId, decide in
            let outcome = try await store.deviceRequests.approve(
                id: id, accountId: caller.id, challenge: challenge, credentialId: credentialId, at: now(),
                event: origin.event(.deviceApproved, at: now(), account: caller.id, credential: credentialId, detail: [
                    "requestId": .text(id), "device": .text(UserAgentSummary.describe(request.userAgent) ?? "unknown"),
                    "address": .text(request.clientAddress ?? "unknown"), "requestedAt": .text(request.createdAt.formatted(.iso8601)),
                ]),
                decide: decide)
            if case .requestGone = outcome { throw APIError.unknownDeviceRequest }
            return outcome
        }
    }

    func deny(id: String, caller: AccountRecord, origin: AuditOrigin) async throws {
        guard let request = try await store.deviceRequests.request(id: id) else { throw APIError.unknownDeviceRequest }
        try await checkOwner(of: request, caller: caller)
        guard try await store.deviceRequests.deny(id: id, at: now(), event: origin.event(
            .deviceDenied, at: now(), account: caller.id, detail: ["requestId": .text(id)]))
        else { throw APIError.unknownDeviceRequest }
    }
}
