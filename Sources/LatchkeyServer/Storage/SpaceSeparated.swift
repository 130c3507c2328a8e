/// How the schema stores a list of names in one text column — an account's groups, a client's redirect URIs,
/// scopes and groups: space-separated, since neither a URI nor a scope or group name can hold a space.
enum SpaceSeparated {
    static func list(_ stored: String) -> [String] { stored.split(separator: " ").map(String.init) }
    static func stored(_ list: [String]) -> String { list.joined(separator: " ") }
}
