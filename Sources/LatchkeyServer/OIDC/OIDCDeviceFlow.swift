import Foundation
import LatchkeyAPI
import LatchkeyTransport
import WebAuthn

/// The device authorization grant (RFC 8628): a TV, a terminal or a CLI on a server without a browser asks
/// `POST /oidc/device` for a device code and a short user code, shows the person the code and the address
/// of the verification page (`/device`), and polls the token endpoint while the person signs in there with
/// a passkey on their phone and approves. This type issues the codes, answers the page's JSON API, and is
/// the token endpoint's poll (`OIDCTokenEndpoint`).
///
/// Only SHA-256 of either code is stored. The device code is 256 random bits; the user code is 8 letters
/// of 20 consonants (no vowels: no words; no look-alikes), ~34.6 bits, enough against guessing at the page,
/// which needs a signed-in person and is rate-limited. What anonymous callers can make is bounded: an
/// authorization lives 10 minutes, one requester (an address, an IPv6 /64) holds `perRequester` live ones
/// and the server `liveLimit` — the endpoint is open to anyone who names a public client allowed the grant.
struct OIDCDeviceFlow: Sendable {
    let provider: OIDCProvider

    static let lifetime: TimeInterval = 10 * 60
    /// Seconds a client waits between polls (RFC 8628 §3.2's default), widened by 5 at each `slow_down`.
    static let interval = 5
    static let perRequester = 20
    static let liveLimit = 10_000
    static let alphabet = Array("BCDFGHJKLMNPQRSTVWXZ")
    static let userCodeLength = 8

    var store: Store { provider.store }

    // MARK: Codes

    /// A user code as shown: `XXXX-XXXX`. 20 letters do not divide 256, so bytes at or above 240 are drawn
    /// again (no letter more likely than another).
    static func userCode() -> String {
        var letters: [Character] = []
        while letters.count < userCodeLength {
            for byte in RandomBytes.make(16) where byte < 240 && letters.count < userCodeLength {
                letters.append(alphabet[Int(byte) % alphabet.count])
            }
        }
        return String(letters[..<4]) + "-" + String(letters[4...])
    }

    /// A user code as the person typed it — any case, with or without the hyphen or spaces — as the 8
    /// letters that are hashed; nil when it cannot be one.
    static func normalized(_ code: String) -> String? {
        guard code.utf8.count <= 32 else { return nil }
        let letters = code.uppercased().filter { $0 != "-" && $0 != " " }
        guard letters.count == userCodeLength, letters.allSatisfy(alphabet.contains) else { return nil }
        return String(letters)
    }

    // MARK: The device authorization endpoint (RFC 8628 §3.1–3.2)

    /// What `POST /oidc/device` answers.
    struct Answer: Sendable {
        let deviceCode: String
        let userCode: String
        let verificationURI: String
        let expiresIn: Int
        let interval: Int

        var json: [UInt8] {
            var json = JSONWriter()
            json.object { object in
                object.member("device_code", deviceCode)
                object.member("user_code", userCode)
                object.member("verification_uri", verificationURI)
                object.member("verification_uri_complete", verificationURI + "?user_code=" + userCode)
                object.member("expires_in", expiresIn)
                object.member("interval", interval)
            }
            return json.bytes
        }
    }

    /// A device authorization for the client authenticated as at the token endpoint (a public client by
    /// its id), allowed the device grant, for the scopes it asks among its own (`openid` among them).
    func authorize(_ parameters: OAuthParameters, authorization: String?, origin: AuditOrigin) async throws -> Result<Answer, OAuthError> {
        let client: OIDCClientRecord
        switch try await OIDCClientAuthentication.client(authorization: authorization, parameters: parameters, provider: provider) {
        case .success(let found): client = found
        case .failure(let error): return .failure(error)
        }
        guard client.allows(OIDCGrantType.deviceCode) else { return .failure(OIDCTokenEndpoint.notAllowed("device_code")) }
        let requested = Set((parameters["scope"] ?? "").split(separator: " ").map(String.init))
        // As at the authorization endpoint: scopes the client may not have are left out (RFC 6749 §3.3).
        let scopes = OIDCScope.supported.filter { requested.contains($0) && client.scopes.contains($0) }
        guard scopes.contains(OIDCScope.openid) else { return .failure(OAuthError(.invalidScope, "scope must include openid, one of this client's scopes.")) }
        let at = provider.now()
        let requester = origin.clientAddress.flatMap { RateLimitClient(text: $0)?.requesterKey } ?? "unknown"
        // A taken user code is drawn again; a second refusal in a row is the bounds.
        for _ in 0..<3 {
            let deviceCode = Base64URL.encode(RandomBytes.make(32))
            let userCode = Self.userCode()
            let record = OIDCDeviceRecord(
                deviceHash: SecretDigest.of(deviceCode), userHash: SecretDigest.of(Self.normalized(userCode) ?? userCode), clientId: client.id,
                scopes: scopes, requester: requester, createdAt: at, expiresAt: at.addingTimeInterval(Self.lifetime), interval: Self.interval)
            if try await store.oidcDeviceCodes.insert(record, perRequester: Self.perRequester, liveLimit: Self.liveLimit) {
                return .success(Answer(
                    deviceCode: deviceCode, userCode: userCode, verificationURI: provider.settings.issuer + "/device",
                    expiresIn: Int(Self.lifetime), interval: Self.interval))
            }
        }
        var refusal = OAuthError(.slowDown, "Too many sign-ins are waiting from this address (or on this server); try again in a few minutes.")
        refusal.status = .tooManyRequests
        return .failure(refusal)
    }

    // MARK: The verification page's JSON API (`POST /api/oidc/device`)

    /// The live, undecided authorization with `userCode`, for a signed-in person.
    func pending(userCode: String) async throws -> (OIDCDeviceRecord, OIDCClientRecord) {
        let date = provider.now()
        guard let letters = Self.normalized(userCode), let record = try await store.oidcDeviceCodes.code(userHash: SecretDigest.of(letters)),
              record.expiresAt > date, record.decidedAt == nil, let client = try await store.oidcClients.client(id: record.clientId)
        else {
            throw APIError(.unknownUserCode, "No sign-in is waiting for this code: check it against the device, or start again there (codes last 10 minutes).")
        }
        return (record, client)
    }

    /// The person's answer for `userCode`: approving stores a grant for the app (and their consent, when
    /// it is not first-party: this page is where they gave it), which the device's next poll turns into
    /// tokens. Only a passkey sign-in may approve, and only for an account the app admits.
    func decide(userCode: String, allow: Bool, session: SessionDetails, origin: AuditOrigin) async throws {
        let (record, client) = try await pending(userCode: userCode)
        let date = provider.now()
        guard session.method == .passkey else {
            throw APIError(.notAuthenticated, "Sign in with a passkey to let a device in.")
        }
        guard let profile = try await store.accountProfile(id: session.accountId), !profile.disabled else { throw APIError.notAuthenticated }
        if allow, !client.allowedGroups.isEmpty, Set(client.allowedGroups).isDisjoint(with: profile.groups) {
            throw APIError(.oidcGroupNotAllowed, "Your account may not sign in to \(client.name): ask the service's operator to add you to one of its groups.")
        }
        var detail = OIDCTokenEndpoint.detail(client)
        detail.members.append(("scope", .text(record.scopes.joined(separator: " "))))
        var grant: OIDCGrantRecord?
        var consent: [String]?
        var events: [AuditEvent] = []
        if allow {
            grant = OIDCGrantRecord(
                id: Base64URL.encode(RandomBytes.make(16)), clientId: client.id, accountId: session.accountId, sessionHash: session.tokenHash,
                scopes: record.scopes, nonce: nil, authTime: session.createdAt, amr: AccessTokenClaims.methods(of: session), createdAt: date,
                expiresAt: record.expiresAt)
            if !client.firstParty {
                let known = try await store.oidcGrants.consent(accountId: session.accountId, clientId: client.id) ?? []
                let union = Array(Set(known).union(record.scopes)).sorted()
                consent = union
                events.append(origin.event(.oidcConsentGiven, at: date, account: session.accountId, detail: [
                    "client": .text(client.id), "clientName": .text(client.name), "scope": .text(union.joined(separator: " ")),
                ]))
            }
        }
        events.append(origin.event(allow ? .oidcDeviceApproved : .oidcDeviceDenied, at: date, account: session.accountId, detail: detail))
        guard try await store.oidcDeviceCodes.decide(
            userHash: record.userHash, accountId: session.accountId, grant: grant, consent: consent, at: date, events: events)
        else {
            throw APIError(.unknownUserCode, "This code was answered already, or has expired.")
        }
    }
}
