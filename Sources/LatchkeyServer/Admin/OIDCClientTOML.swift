import Foundation

/// `latchkey admin clients export`: the clients as the `[[oidc-client]]` tables of `latchkey.toml`
/// (`OIDCDeclaredClient`), so that clients made by hand can be moved into version control — pasted into
/// the file, the next start adopts them as they are. The keys are `latchkey admin clients add`'s long
/// flags, as the CLI reads them back (`ConfigurationFile`); a confidential client's secret is written as
/// the SHA-256 the database holds (`secret-hash`), never in clear, so its apps keep working.
enum OIDCClientTOML {
    static func document(_ clients: [OIDCClientRecord]) -> String {
        var text = """
            # OpenID Connect clients for latchkey.toml (latchkey admin clients export). Secrets are their SHA-256
            # (secret-hash); the secret itself can also be given as secret-file, a file only its owner reads.

            """
        for client in clients { text += "\n" + table(client) }
        return text
    }

    /// One `[[oidc-client]]` table; lists left empty and defaults that are not the client's choice are left out.
    static func table(_ client: OIDCClientRecord) -> String {
        var lines = ["[[oidc-client]]", "id = \(quoted(client.id))", "name = \(quoted(client.name))"]
        if let file = client.managedBy { lines.append("# managed by \(comment(file))") }
        if let secretHash = client.secretHash {
            lines.append("secret-hash = \(quoted(OIDCDeclaredClient.secretHashText(secretHash)))")
        } else if let jwks = client.jwks {
            lines.append("jwks = \(quoted(jwks))")
        } else if let uri = client.jwksURI {
            lines.append("jwks-uri = \(quoted(uri))")
        } else {
            lines.append("public = true")
        }
        if client.firstParty { lines.append("first-party = true") }
        lines.append("grant = \(list(client.grantTypes))")
        if !client.redirectURIs.isEmpty { lines.append("redirect-uri = \(list(client.redirectURIs))") }
        if !client.postLogoutURIs.isEmpty { lines.append("post-logout-uri = \(list(client.postLogoutURIs))") }
        lines.append("scope = \(list(client.scopes))")
        lines.append("id-token-alg = \(quoted(client.idTokenAlgorithm))")
        if !client.allowedGroups.isEmpty { lines.append("allowed-group = \(list(client.allowedGroups))") }
        if !client.apiScopes.isEmpty { lines.append("api-scope = \(list(client.apiScopes))") }
        if let uri = client.backchannelLogoutURI { lines.append("backchannel-logout-uri = \(quoted(uri))") }
        if client.groupsClaim != OIDCScope.groups { lines.append("groups-claim = \(quoted(client.groupsClaim))") }
        return lines.joined(separator: "\n") + "\n"
    }

    static func list(_ items: [String]) -> String {
        "[" + items.map(quoted).joined(separator: ", ") + "]"
    }

    static func quoted(_ text: String) -> String { TOMLString.quoted(text) }

    /// A path in a comment: one line.
    private static func comment(_ text: String) -> String {
        String(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) })
    }
}
