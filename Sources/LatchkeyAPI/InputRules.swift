/// The field rules of DESIGN and the issue: lengths are counted in characters (grapheme clusters), so
/// any language fits the same limit — and also in UTF-8 bytes, because one character can be any number
/// of combining scalars (a 60 KB "character" was accepted before the byte cap). Four bytes a character
/// on average covers every script and most emoji; a name made only of family emoji is the rare casualty.
package enum InputRules {
    package static let textCharacters = 255
    package static let textBytes = 4 * textCharacters
    package static let passkeyNameCharacters = 64
    package static let passkeyNameBytes = 4 * passkeyNameCharacters

    package static func displayName(_ value: String, field: String = "displayName") throws(APIError) -> String {
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw APIError(.invalidField, "\(field) must not be empty.") }
        try checkLength(trimmed, field: field, characters: textCharacters, bytes: textBytes)
        guard !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }), !hasBidiOverride(trimmed) else {
            throw APIError(.invalidField, "\(field) must not contain control characters or bidirectional overrides.")
        }
        return trimmed
    }

    /// Free text over several lines: tabs and line breaks are allowed, other control characters (NUL
    /// among them) are not.
    package static func credo(_ value: String) throws(APIError) -> String {
        try checkLength(value, field: "credo", characters: textCharacters, bytes: textBytes)
        guard !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control && !"\t\n\r".unicodeScalars.contains($0) }) else {
            throw APIError(.invalidField, "credo must not contain control characters other than tabs and line breaks.")
        }
        return value
    }

    package static func passkeyName(_ value: String) throws(APIError) -> String {
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= passkeyNameCharacters else {
            throw APIError(.invalidField, "name must be 1 to \(passkeyNameCharacters) characters.")
        }
        try checkLength(trimmed, field: "name", characters: passkeyNameCharacters, bytes: passkeyNameBytes)
        guard !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }), !hasBidiOverride(trimmed) else {
            throw APIError(.invalidField, "name must not contain control characters or bidirectional overrides.")
        }
        return trimmed
    }

    /// The transports a registration reported, as stored and later sent back in `excludeCredentials`:
    /// only the values WebAuthn L3 §5.8.4 defines, each once. The spec tells relying parties to ignore
    /// unknown values, and the column joins them with commas, so free text (or a comma) has no place there.
    package static func transports(_ reported: [String]) -> [String] {
        var kept: [String] = []
        for transport in reported where knownTransports.contains(transport) && !kept.contains(transport) { kept.append(transport) }
        return kept
    }

    package static let knownTransports: Set<String> = ["usb", "nfc", "ble", "smart-card", "hybrid", "internal"]

    /// Explicit bidirectional formatting (U+202A–U+202E embeddings and overrides, U+2066–U+2069
    /// isolates) can make a name read as something else ("‮moc.elpmaxe"); names have no need of them.
    /// Right-to-left text itself, and the plain direction marks, are fine.
    private static func hasBidiOverride(_ value: String) -> Bool {
        value.unicodeScalars.contains { (0x202A...0x202E).contains($0.value) || (0x2066...0x2069).contains($0.value) }
    }

    /// The byte count is checked first: it is O(1) for native strings, and it bounds the cost of counting
    /// characters.
    private static func checkLength(_ value: String, field: String, characters: Int, bytes: Int) throws(APIError) {
        guard value.utf8.count <= bytes, value.count <= characters else {
            throw APIError(.invalidField, "\(field) must be at most \(characters) characters and \(bytes) bytes of UTF-8.")
        }
    }
}
