/// The field rules of DESIGN and the issue: lengths are counted in characters (grapheme clusters), not
/// bytes, so any language fits the same limit.
enum InputRules {
    static func displayName(_ value: String, field: String = "displayName") throws(APIError) -> String {
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw APIError(.invalidField, "invalid_field", "\(field) must not be empty.") }
        guard trimmed.count <= 255 else { throw APIError(.invalidField, "invalid_field", "\(field) must be at most 255 characters.") }
        guard !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw APIError(.invalidField, "invalid_field", "\(field) must not contain control characters.")
        }
        return trimmed
    }

    static func credo(_ value: String) throws(APIError) -> String {
        guard value.count <= 255 else { throw APIError(.invalidField, "invalid_field", "credo must be at most 255 characters.") }
        return value
    }

    static func passkeyName(_ value: String) throws(APIError) -> String {
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= 64 else {
            throw APIError(.invalidField, "invalid_field", "name must be 1 to 64 characters.")
        }
        guard !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw APIError(.invalidField, "invalid_field", "name must not contain control characters.")
        }
        return trimmed
    }
}

import Foundation
