import WebAuthn

/// Whether any object in the document repeats a member name. Foundation's `JSONDecoder` and the
/// strict parser (last one wins, as `JSON.parse`) resolve a repeat differently — the first thing the
/// authentication target found — so the Codable/fast-reader comparison leaves such documents out.
public func hasDuplicateMembers(_ value: JSONValue) -> Bool {
    switch value {
    case .array(let items): return items.contains(where: hasDuplicateMembers)
    case .object(let object):
        let names = object.members.map(\.key)
        return Set(names).count != names.count || object.members.contains { hasDuplicateMembers($0.value) }
    case .null, .bool, .number, .string: return false
    }
}
