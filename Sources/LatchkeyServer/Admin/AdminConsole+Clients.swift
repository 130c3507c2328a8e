import Foundation
import LatchkeyAPI

/// `latchkey admin clients …` and `latchkey admin accounts set`: the OpenID Connect clients and what
/// apps may learn about a person, through the same `AdminService` operations as the admin API. A broken
/// field rule exits 2 (`run(rulesAreUsage:)`).
extension AdminConsole {
    /// What `clients add` and `clients update` were given; nil (or empty, for lists) is "not given".
    package struct ClientSettings: Sendable {
        package var name: String?
        package var redirectURIs: [String] = []
        package var postLogoutURIs: [String] = []
        package var clearPostLogoutURIs = false
        package var idTokenAlg: String?
        package var firstParty: Bool?
        package var scopes: [String] = []
        package var allowedGroups: [String] = []
        package var clearAllowedGroups = false
        package var isPublic: Bool?
        package var grantTypes: [String] = []
        package var apiScopes: [String] = []
        package var clearAPIScopes = false
        /// The JWKS document's text (`--jwks-file`), or "" to remove the keys (`--no-jwks`).
        package var jwks: String?
        /// `--backchannel-logout-uri`, or "" to remove it (`--no-backchannel-logout-uri`).
        package var backchannelLogoutURI: String?
        /// `--groups-claim`.
        package var groupsClaim: String?
        /// `--jwks-uri`, or "" to remove it (`--no-jwks-uri`).
        package var jwksURI: String?
        /// The logo file's bytes in base64 (`--logo FILE`), or "" to remove it (`--no-logo`).
        package var logo: String?

        package init() {}

        var request: OIDCClientRequest {
            OIDCClientRequest(
                name: name, redirectUris: redirectURIs.isEmpty ? nil : redirectURIs,
                postLogoutUris: clearPostLogoutURIs ? [] : postLogoutURIs.isEmpty ? nil : postLogoutURIs, isPublic: isPublic,
                idTokenAlg: idTokenAlg, firstParty: firstParty,
                // `--scope "openid profile"` and `--scope openid --scope profile` are the same.
                scopes: scopes.isEmpty ? nil : scopes.flatMap { $0.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init) },
                allowedGroups: clearAllowedGroups ? [] : allowedGroups.isEmpty ? nil : allowedGroups,
                grantTypes: grantTypes.isEmpty ? nil : Self.words(grantTypes),
                apiScopes: clearAPIScopes ? [] : apiScopes.isEmpty ? nil : Self.words(apiScopes), jwks: jwks,
                backchannelLogoutUri: backchannelLogoutURI, groupsClaim: groupsClaim, jwksUri: jwksURI, logo: logo)
        }

        /// `--x "a b"`, `--x a,b` and `--x a --x b` are the same.
        private static func words(_ values: [String]) -> [String] {
            values.flatMap { $0.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init) }
        }
    }

    package func addClient(id: String?, _ settings: ClientSettings, json: Bool) async throws -> String {
        try await run(rulesAreUsage: true) {
            var request = settings.request
            request.id = id
            let created = try await service.createClient(request, origin: .cli)
            if json { return try Self.json(created) }
            return Self.describe(created.client) + "\n\n" + Self.secretText(created, made: "Added")
        }
    }

    package func clients(json: Bool) async throws -> String {
        try await run {
            let clients = try await service.clients()
            if json { return try Self.json(clients) }
            var lines = Table(["CLIENT ID", "NAME", "TYPE", "ID TOKEN", "FIRST-PARTY", "SCOPES", "REDIRECT URIS"])
            for client in clients {
                lines.add([
                    client.id, client.name, client.public ? "public" : "confidential", client.idTokenAlg, client.firstParty ? "yes" : "no",
                    client.scopes.joined(separator: " "), client.redirectUris.joined(separator: " "),
                ])
            }
            return lines.text
        }
    }

    package func showClient(id: String, json: Bool) async throws -> String {
        try await run {
            let client = try await service.client(id: id)
            return json ? try Self.json(client) : Self.describe(client)
        }
    }

    package func updateClient(id: String, _ settings: ClientSettings, json: Bool) async throws -> String {
        try await run(rulesAreUsage: true) {
            let updated = try await service.updateClient(id: id, settings.request, origin: .cli)
            if json { return try Self.json(updated) }
            var text = Self.describe(updated.client)
            if updated.clientSecret != nil { text += "\n\n" + Self.secretText(updated, made: "Made confidential") }
            if let revoked = updated.grantsRevoked {
                text += "\n\nWith its secret changed, everything obtained before is revoked: \(revoked) grant\(revoked == 1 ? "" : "s")"
                    + " (their refresh and access tokens, and pending codes). People sign in to the app again."
            }
            return text
        }
    }

    package func rotateClientSecret(id: String, json: Bool) async throws -> String {
        try await run {
            let rotated = try await service.rotateClientSecret(id: id, origin: .cli)
            if json { return try Self.json(rotated) }
            let revoked = rotated.grantsRevoked ?? 0
            return Self.secretText(rotated, made: "Rotated the secret of") + "\nThe old secret no longer works, and neither does anything"
                + " obtained with it: \(revoked) grant\(revoked == 1 ? "" : "s") revoked (their refresh and access tokens)."
                + " People sign in to the app again."
        }
    }

    /// `clients export`: every client as a `[[oidc-client]]` table of `latchkey.toml` (`OIDCClientTOML`),
    /// secrets as their SHA-256 only.
    package func exportClients() async throws -> String {
        try await run {
            let clients = try await service.store.oidcClients.all()
            return OIDCClientTOML.document(clients)
        }
    }

    package func removeClient(id: String) async throws -> String {
        try await run {
            try await service.removeClient(id: id, origin: .cli)
            return "Removed client \(id), with the consents and grants people gave it (their tokens no longer work)."
        }
    }

    // MARK: Account profile

    /// What `accounts set` was given: nil is "not given"; `remove…` removes.
    package struct ProfileSettings: Sendable {
        package var username: String?
        package var removeUsername = false
        package var email: String?
        package var removeEmail = false
        package var emailVerified: Bool?
        package var groups: [String] = []
        package var removeGroups = false

        package init() {}

        var request: AccountProfileRequest {
            AccountProfileRequest(
                username: removeUsername ? .remove : username.map { .set($0) } ?? .keep,
                email: removeEmail ? .remove : email.map { .set($0) } ?? .keep, emailVerified: emailVerified,
                groups: removeGroups ? .remove : groups.isEmpty ? .keep : .set(groups))
        }
    }

    package func setProfile(accountId: String, _ settings: ProfileSettings, json: Bool) async throws -> String {
        try await run(rulesAreUsage: true) {
            try Self.render(try await service.setProfile(accountId: accountId, settings.request, origin: .cli), json: json)
        }
    }

    // MARK: Text

    static func describe(_ client: OIDCClientJSON) -> String {
        """
        Client       \(client.id)
        Name         \(client.name)
        Type         \(client.public ? "public (no secret; PKCE S256 required)" : client.jwks != nil ? "confidential (private_key_jwt: signed assertions)" : client.jwksUri != nil ? "confidential (private_key_jwt: keys published at \(client.jwksUri ?? ""))" : "confidential (client secret)")
        ID token     \(client.idTokenAlg)
        First-party  \(client.firstParty ? "yes (no consent screen)" : "no")
        Scopes       \(client.scopes.joined(separator: " "))
        Groups       \(client.allowedGroups.isEmpty ? "any account" : client.allowedGroups.joined(separator: " "))
        Grants       \(client.grantTypes.joined(separator: " "))
        API scopes   \(client.apiScopes.isEmpty ? "-" : client.apiScopes.joined(separator: " "))
        Redirect     \(client.redirectUris.isEmpty ? "-" : client.redirectUris.joined(separator: "\n             "))
        After logout \(client.postLogoutUris.isEmpty ? "-" : client.postLogoutUris.joined(separator: "\n             "))
        Back-channel \(client.backchannelLogoutUri ?? "-")
        Groups claim \(client.groupsClaim)
        Managed      \(client.managedBy.map { "by the configuration file \($0) ([[oidc-client]]): changed there" } ?? "no (latchkey admin clients update)")
        Logo         \(client.logo ?? "-")
        Created      \(text(client.createdAt)) by \(client.createdBy)
        Updated      \(text(client.updatedAt))
        """
    }

    static func secretText(_ answer: OIDCClientSecretJSON, made: String) -> String {
        guard let secret = answer.clientSecret else {
            return "\(made) public client \(answer.client.id): it has no secret and must use PKCE (S256)."
        }
        return """
            \(made) client \(answer.client.id). Its secret, shown this once:

                \(secret)

            Give the app client_id \(answer.client.id) and this secret; only its SHA-256 is stored.
            """
    }
}
