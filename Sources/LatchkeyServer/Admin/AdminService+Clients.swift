import Foundation
import LatchkeyAPI

/// The OpenID Connect clients an operator registers (`latchkey admin clients`, `/api/admin/clients`).
/// The rules are `OIDCClientRules`'; a confidential client's secret is made here, answered once, and
/// stored as its SHA-256 only. Each change is audited (`oidc_client.*`, detail `client` and
/// `clientName`) in its own transaction, and makes this instance's `OIDCClientFacts` read the clients
/// again (the JWKS's RSA keys, the web origins CORS allows).
extension AdminService {
    func clients() async throws -> [OIDCClientJSON] {
        try await store.oidcClients().map(OIDCClientJSON.init)
    }

    func client(id: String) async throws -> OIDCClientJSON {
        OIDCClientJSON(try await record(id: id))
    }

    /// Registers a client: the id given (`OIDCClientRules.clientId`) or a generated one; a secret unless
    /// it is public.
    func createClient(_ request: OIDCClientRequest, origin: AuditOrigin) async throws -> OIDCClientSecretJSON {
        let chosen = try request.id.map { id throws(APIError) in try OIDCClientRules.clientId(id) }
        let secret = request.isPublic == true ? nil : OIDCClientRules.generatedSecret()
        let at = now()
        // A generated id is 128 random bits: a second draw is for form's sake only.
        for _ in 0..<(chosen == nil ? 2 : 1) {
            let client = try OIDCClientRules.newClient(
                request, id: chosen ?? OIDCClientRules.generatedId(), secretHash: secret.map(SecretDigest.of), at: at, by: origin.actor)
            let event = origin.event(.oidcClientCreated, at: at, account: nil, detail: [
                "client": .text(client.id), "clientName": .text(client.name), "public": .flag(client.isPublic),
            ])
            if try await store.insertOIDCClient(client, event: event) {
                await clientFacts?.forget()
                return OIDCClientSecretJSON(client: OIDCClientJSON(client), clientSecret: secret)
            }
        }
        throw APIError(.clientIdTaken, "Another client has the id \(chosen ?? "drawn"); choose another (id, --id).")
    }

    /// Changes what the request sends. `public: true` drops the secret; `public: false` on a public
    /// client gives it one, answered here once.
    func updateClient(id: String, _ request: OIDCClientRequest, origin: AuditOrigin) async throws -> OIDCClientSecretJSON {
        let current = try await record(id: id)
        let at = now()
        var (client, changed) = try OIDCClientRules.updated(current, by: request, at: at)
        var secret: String?
        switch (request.isPublic, current.isPublic) {
        case (true?, false):
            client.secretHash = nil
        case (false?, true):
            let made = OIDCClientRules.generatedSecret()
            secret = made
            client.secretHash = SecretDigest.of(made)
        default:
            break
        }
        let secretChanged = client.isPublic != current.isPublic
        if secretChanged { changed.append("public") }
        let (clientId, clientName, fields) = (client.id, client.name, changed.joined(separator: ","))
        guard let revoked = try await store.updateOIDCClient(client, secretChanged: secretChanged, event: { revoked in
            var detail: AuditDetail = ["client": .text(clientId), "clientName": .text(clientName), "fields": .text(fields)]
            if let revoked { detail.members.append(("grantsRevoked", .number(revoked))) }
            return origin.event(.oidcClientUpdated, at: at, account: nil, detail: detail)
        }) else { throw APIError.unknownClient }
        await clientFacts?.forget()
        return OIDCClientSecretJSON(client: OIDCClientJSON(client), clientSecret: secret, grantsRevoked: secretChanged ? revoked : nil)
    }

    /// A new secret for a confidential client; the old one stops working at once, and so does everything
    /// obtained with it: every grant the client holds is revoked (its refresh tokens and access tokens
    /// with it), so a leaked secret leaves nothing behind. People sign in to the app again (their consent
    /// stays). Audited `oidc_client.secret_rotated` with `grantsRevoked`.
    func rotateClientSecret(id: String, origin: AuditOrigin) async throws -> OIDCClientSecretJSON {
        var client = try await record(id: id)
        guard !client.isPublic else {
            throw APIError(.clientIsPublic, "Client \(id) is public and has no secret; make it confidential with an update (public: false, --confidential) instead.")
        }
        let secret = OIDCClientRules.generatedSecret()
        let secretHash = SecretDigest.of(secret)
        client.secretHash = secretHash
        client.updatedAt = now()
        let (at, clientId, clientName) = (client.updatedAt, client.id, client.name)
        guard let revoked = try await store.rotateOIDCClientSecret(id: id, secretHash: secretHash, at: at, event: { revoked in
            origin.event(.oidcClientSecretRotated, at: at, account: nil, detail: [
                "client": .text(clientId), "clientName": .text(clientName), "grantsRevoked": .number(revoked),
            ])
        }) else {
            throw APIError.unknownClient
        }
        await clientFacts?.forget()
        return OIDCClientSecretJSON(client: OIDCClientJSON(client), clientSecret: secret, grantsRevoked: revoked)
    }

    /// Removes the client with everything people gave it (consents, grants and their tokens).
    func removeClient(id: String, origin: AuditOrigin) async throws {
        let client = try await record(id: id)
        let event = origin.event(.oidcClientRemoved, at: now(), account: nil, detail: ["client": .text(client.id), "clientName": .text(client.name)])
        guard try await store.deleteOIDCClient(id: id, event: event) else { throw APIError.unknownClient }
        await clientFacts?.forget()
    }

    private func record(id: String) async throws -> OIDCClientRecord {
        guard let client = try await store.oidcClient(id: id) else { throw APIError.unknownClient }
        return client
    }
}
