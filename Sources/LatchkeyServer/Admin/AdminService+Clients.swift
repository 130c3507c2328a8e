import Foundation
import JWTKit
import LatchkeyAPI
import WebAuthn

/// The OpenID Connect clients an operator registers (`latchkey admin clients`, `/api/admin/clients`).
/// The rules are `OIDCClientRules`'; a confidential client's secret is made here, answered once, and
/// stored as its SHA-256 only. Each change is audited (`oidc_client.*`, detail `client` and
/// `clientName`) in its own transaction, and makes this instance's `OIDCClientFacts` read the clients
/// again (the JWKS's RSA keys, the web origins CORS allows).
extension AdminService {
    func clients() async throws -> [OIDCClientJSON] {
        try await store.oidcClients.all().map(OIDCClientJSON.init)
    }

    func client(id: String) async throws -> OIDCClientJSON {
        OIDCClientJSON(try await record(id: id))
    }

    /// Registers a client: the id given (`OIDCClientRules.clientId`) or a generated one; a secret unless
    /// it is public.
    func createClient(_ request: OIDCClientRequest, origin: AuditOrigin) async throws -> OIDCClientSecretJSON {
        let chosen = try request.id.map { id throws(APIError) in try OIDCClientRules.clientId(id) }
        let keys = try OIDCClientRules.jwks(request.jwks)
        let published = try OIDCClientRules.jwksURI(request.jwksUri)
        if keys != nil || published != nil, request.isPublic == true {
            throw APIError(.jwksInvalid, "A public client has no keys: leave out jwks (--jwks-file), or public (--public).")
        }
        try await OIDCClientKeysCheck.loadable(keys)
        let logo = try request.logo.flatMap { text throws(APIError) in try OIDCClientLogo.read(base64: text) }
        // A client with keys signs its assertions (private_key_jwt): no secret.
        let secret = request.isPublic == true || keys != nil || published != nil ? nil : OIDCClientRules.generatedSecret()
        let at = now()
        // A generated id is 128 random bits: a second draw is for form's sake only.
        for _ in 0..<(chosen == nil ? 2 : 1) {
            var client = try OIDCClientRules.newClient(
                request, id: chosen ?? OIDCClientRules.generatedId(), secretHash: secret.map(SecretDigest.of), at: at, by: origin.actor)
            client.logoType = logo?.contentType
            let event = origin.event(.oidcClientCreated, at: at, account: nil, detail: [
                "client": .text(client.id), "clientName": .text(client.name), "public": .flag(client.isPublic),
            ])
            if try await store.oidcClients.insert(client, logo: logo, event: event) {
                await clientFacts?.forget()
                return OIDCClientSecretJSON(client: OIDCClientJSON(client), clientSecret: secret)
            }
        }
        throw APIError(.clientIdTaken, "Another client has the id \(chosen ?? "drawn"); choose another (id, --id).")
    }

    /// Changes what the request sends. `public: true` drops the secret; `public: false` on a public
    /// client gives it one, answered here once.
    func updateClient(id: String, _ request: OIDCClientRequest, origin: AuditOrigin) async throws -> OIDCClientSecretJSON {
        let current = try await record(id: id, changing: true)
        let at = now()
        var (client, changed) = try OIDCClientRules.updated(current, by: request, at: at)
        // A logo given replaces the old one ("" removes it); none given leaves it.
        let logo: OIDCClientLogo?? = try request.logo.map { text throws(APIError) in try OIDCClientLogo.read(base64: text) }
        if let logo {
            client.logoType = logo?.contentType
            changed.append("logo")
        }
        var secret: String?
        if let given = request.jwks {
            client.jwks = try OIDCClientRules.jwks(given)
            try await OIDCClientKeysCheck.loadable(client.jwks)
        }
        switch (request.isPublic, current.isPublic) {
        case (true?, false):
            client.secretHash = nil
            client.jwks = nil
            client.jwksURI = nil
        case (false?, true):
            let made = OIDCClientRules.generatedSecret()
            secret = made
            client.secretHash = SecretDigest.of(made)
        default:
            break
        }
        // New keys, like a new secret, end what the old ones obtained (and a client left with neither is public).
        let secretChanged = client.isPublic != current.isPublic || client.jwks != current.jwks || client.jwksURI != current.jwksURI
        if client.isPublic != current.isPublic { changed.append("public") }
        if client.jwks != current.jwks { changed.append("jwks") }
        if client.jwksURI != current.jwksURI { changed.append("jwksUri") }
        if secretChanged { client.credentialsGeneration = OIDCClientRules.generation() }
        try OIDCClientRules.check(client)
        let (clientId, clientName, fields) = (client.id, client.name, changed.joined(separator: ","))
        guard let revoked = try await store.oidcClients.update(client, secretChanged: secretChanged, logo: logo, event: { revoked in
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
        var client = try await record(id: id, changing: true)
        guard !client.isPublic else {
            throw APIError(.clientIsPublic, "Client \(id) is public and has no secret; make it confidential with an update (public: false, --confidential) instead.")
        }
        let secret = OIDCClientRules.generatedSecret()
        let secretHash = SecretDigest.of(secret)
        client.secretHash = secretHash
        client.updatedAt = now()
        let (at, clientId, clientName) = (client.updatedAt, client.id, client.name)
        guard let revoked = try await store.oidcClients.rotateSecret(id: id, secretHash: secretHash, at: at, event: { revoked in
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
        let client = try await record(id: id, changing: true)
        let event = origin.event(.oidcClientRemoved, at: now(), account: nil, detail: ["client": .text(client.id), "clientName": .text(client.name)])
        guard try await store.oidcClients.delete(id: id, event: event) else { throw APIError.unknownClient }
        await clientFacts?.forget()
    }

    /// The client `id`; with `changing`, refused (409 `client_managed`) when the configuration file
    /// declares it: a change here would be undone at the next start, so it is made in the file.
    private func record(id: String, changing: Bool = false) async throws -> OIDCClientRecord {
        guard let client = try await store.oidcClients.client(id: id) else { throw APIError.unknownClient }
        if changing, let file = client.managedBy {
            throw APIError(.clientManaged, "Client \(id) is managed by the configuration file \(file) ([[oidc-client]]): change or remove it there, then restart latchkey serve.")
        }
        return client
    }
}
