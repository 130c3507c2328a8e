import Foundation
import LatchkeyRuntime
import LatchkeyServer
import TOMLKit

/// The `[[oidc-client]]` tables of the configuration file: OpenID Connect clients kept in version
/// control (`OIDCDeclaredClient`; `latchkey serve` applies them at start, `OIDCClientReconciliation`).
/// Each key is a long flag of `latchkey admin clients add`; the secret never stands in the file in clear:
/// `secret-hash = "sha256:…"` (its digest, which is all the database keeps) or `secret-file = PATH` (a
/// file only its owner may read, as `--introspection-secret-file`). A mistake is one sentence naming the
/// table (its number and id) and the key.
///
/// `[[oidc-client]]`, not `[[oidc.client]]`: the file's keys are flat, and `oidc = true` and a table
/// `oidc` cannot both stand in one TOML document.
extension ConfigurationFile {
    static let clientsKey = "oidc-client"

    /// The keys a table may hold.
    static let clientKeys = [
        "id", "name", "public", "first-party", "secret-hash", "secret-file", "jwks", "jwks-file", "jwks-uri", "grant", "redirect-uri",
        "post-logout-uri", "scope", "id-token-alg", "allowed-group", "api-scope", "backchannel-logout-uri", "groups-claim",
    ]

    /// The clients `value` (the file's `oidc-client`) declares.
    static func declaredClients(_ value: TOMLValueConvertible, path: String) throws(Invalid) -> [OIDCDeclaredClient] {
        guard let array = value.array else {
            throw Invalid(description: "the configuration file \(path) has \(clientsKey) as a value; declare each client as a table, [[\(clientsKey)]]")
        }
        var clients: [OIDCDeclaredClient] = []
        for (index, item) in array.enumerated() {
            guard let table = item.table else {
                throw Invalid(description: "the configuration file \(path) has an \(clientsKey) that is not a table; declare each client as [[\(clientsKey)]]")
            }
            clients.append(try declaredClient(table, number: index + 1, path: path))
        }
        return clients
    }

    private static func declaredClient(_ table: TOMLTable, number: Int, path: String) throws(Invalid) -> OIDCDeclaredClient {
        let entries = table.map { (key: $0.0, value: $0.1) }.sorted { $0.key < $1.key }
        let values = Dictionary(entries, uniquingKeysWith: { first, _ in first })
        let id = values["id"]?.string
        let place = "the configuration file \(path)'s [[\(clientsKey)]] number \(number)\(id.map { " (\($0))" } ?? "")"
        func refuse(_ why: String) -> Invalid { Invalid(description: "\(place) \(why)") }
        for (key, _) in entries where !clientKeys.contains(key) {
            let suggestion = ServeSettings.nearest(to: key, among: clientKeys).map { " (did you mean \($0)?)" } ?? ""
            throw refuse("has an unknown key, \(key)\(suggestion); its keys are latchkey admin clients add's long flags")
        }
        func string(_ key: String) throws(Invalid) -> String? {
            guard let value = values[key] else { return nil }
            guard let string = value.string else { throw refuse("must give \(key) as a string (\(key) = \"…\")") }
            return string
        }
        func strings(_ key: String) throws(Invalid) -> [String]? {
            guard let value = values[key] else { return nil }
            if let string = value.string { return [string] }
            guard let array = value.array else { throw refuse("must give \(key) as an array of strings (\(key) = [\"…\", \"…\"])") }
            var items: [String] = []
            for item in array {
                guard let string = item.string else { throw refuse("must give \(key) as an array of strings (\(key) = [\"…\", \"…\"])") }
                items.append(string)
            }
            return items
        }
        func flag(_ key: String) throws(Invalid) -> Bool {
            guard let value = values[key] else { return false }
            guard let flag = value.bool else { throw refuse("must give \(key) as true or false") }
            return flag
        }
        guard let id else { throw refuse("has no id (id = \"grafana\"): a declared client's id is how the file names it across changes") }
        guard let name = try string("name") else { throw refuse("has no name (name = \"…\"), which the consent screen shows") }
        var client = OIDCDeclaredClient(id: id, name: name)
        client.isPublic = try flag("public")
        client.firstParty = try flag("first-party")
        client.redirectURIs = try strings("redirect-uri") ?? []
        client.postLogoutURIs = try strings("post-logout-uri") ?? []
        client.scopes = try strings("scope")
        client.allowedGroups = try strings("allowed-group") ?? []
        client.grantTypes = try strings("grant")
        client.apiScopes = try strings("api-scope") ?? []
        client.idTokenAlg = try string("id-token-alg")
        client.backchannelLogoutURI = try string("backchannel-logout-uri")
        client.groupsClaim = try string("groups-claim")
        client.jwksURI = try string("jwks-uri")

        switch (try string("secret-hash"), try string("secret-file")) {
        case (_?, _?):
            throw refuse("has both secret-hash and secret-file; keep one")
        case (let text?, nil):
            guard let digest = OIDCDeclaredClient.secretHash(parsing: text) else {
                // Not repeated: it might be the secret itself, written where its digest belongs.
                throw refuse("has a secret-hash that is not \"sha256:\" and 64 hexadecimal digits (printf %s \"$SECRET\" | sha256sum)")
            }
            client.secretHash = digest
        case (nil, let file?):
            if let refusal = OwnerOnlyFile.openToOthers("the client secret file", at: file) { throw Invalid(description: "\(place): \(refusal.description)") }
            guard let secret = try? String(contentsOfFile: file, encoding: .utf8) else {
                throw refuse("names a secret-file, \(file), that cannot be read")
            }
            guard let digest = OIDCDeclaredClient.secretHash(ofSecret: secret.trimmingCharacters(in: .newlines)) else {
                throw refuse("names a secret-file, \(file), whose secret is shorter than \(OIDCDeclaredClient.minimumSecretLength) characters or holds spaces")
            }
            client.secretHash = digest
        case (nil, nil):
            break
        }
        switch (try string("jwks"), try string("jwks-file")) {
        case (_?, _?):
            throw refuse("has both jwks and jwks-file; keep one")
        case (let jwks?, nil):
            client.jwks = jwks
        case (nil, let file?):
            guard let jwks = try? String(contentsOfFile: file, encoding: .utf8) else {
                throw refuse("names a jwks-file, \(file), that cannot be read")
            }
            client.jwks = jwks
        case (nil, nil):
            break
        }
        return client
    }
}
