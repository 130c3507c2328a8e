import Foundation

/// The rules of what other apps may learn about a person (OpenID Connect's `preferred_username`,
/// `email`, `groups`): each broken rule has its own code and a sentence naming the field, so that the
/// page, a script and `latchkey admin accounts set` can all say exactly what to change.
extension InputRules {
    /// The longest username: short enough for any app's user table (Grafana, Gitea and Nextcloud all
    /// take it as their login name).
    package static let usernameCharacters = 32
    /// RFC 5321 §4.5.3.1.3 limits a path to 256 octets, less the angle brackets.
    package static let emailCharacters = 254
    package static let groupNameCharacters = 64

    /// A username as stored: lower case (so that "Ada" and "ada" are one name, which the unique index
    /// then keeps unique), `[a-z0-9][a-z0-9._-]{1,31}`. ASCII only: a name apps use as a login must not
    /// hold look-alike letters from other scripts.
    package static func username(_ value: String, field: String = "username") throws(APIError) -> String {
        let name = value.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        let bytes = Array(name.utf8)
        guard (2...usernameCharacters).contains(bytes.count), let first = bytes.first, isLowerAlphanumeric(first),
              bytes.allSatisfy({ isLowerAlphanumeric($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") })
        else {
            throw APIError(
                .usernameInvalid,
                "\(field) must be 2 to \(usernameCharacters) letters a-z, digits, dots, underscores or hyphens, beginning with a letter or digit.")
        }
        return name
    }

    /// A plausible address, `local@domain`, at most 254 characters: one `@`, a local part of printable
    /// characters without spaces, quotes or brackets (at most 64), and a domain of two or more labels of
    /// letters, digits and hyphens. Only the domain is lower-cased: the local part is the mailbox owner's
    /// to interpret (RFC 5321 §2.4). Whether mail arrives is for verification to find out, not for this.
    package static func email(_ value: String, field: String = "email") throws(APIError) -> String {
        let text = value.trimmingCharacters(in: .whitespacesAndNewlines)
        let refusal = APIError(.emailInvalid, "\(field) must be an address like name@example.com (at most \(emailCharacters) characters).")
        guard text.utf8.count <= 4 * emailCharacters, text.count <= emailCharacters, let at = text.lastIndex(of: "@") else { throw refusal }
        let local = text[..<at]
        let domain = text[text.index(after: at)...].lowercased()
        guard !local.isEmpty, local.count <= 64, !local.hasPrefix("."), !local.hasSuffix("."), !local.contains(".."),
              local.unicodeScalars.allSatisfy(isLocalPartScalar)
        else { throw refusal }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, labels.allSatisfy(isDomainLabel) else { throw refusal }
        return String(local) + "@" + domain
    }

    /// A group's name, `[A-Za-z0-9._-]{1,64}`: groups are stored space-separated and sent to apps as
    /// they are, so case is kept.
    package static func groupName(_ value: String, field: String) throws(APIError) -> String {
        let bytes = Array(value.utf8)
        guard (1...groupNameCharacters).contains(bytes.count), bytes.allSatisfy(isNameByte) else {
            throw APIError(
                .groupNameInvalid, "\(field) must be 1 to \(groupNameCharacters) letters A-Z or a-z, digits, dots, underscores or hyphens (\"\(value.prefix(80))\" is not).")
        }
        return value
    }

    /// Group names, each checked, each once, in the order given.
    package static func groupNames(_ values: [String], field: String) throws(APIError) -> [String] {
        var kept: [String] = []
        for value in values {
            let name = try groupName(value, field: field)
            if !kept.contains(name) { kept.append(name) }
        }
        return kept
    }

    /// `[A-Za-z0-9._-]`: the bytes of group names and client ids.
    package static func isNameByte(_ byte: UInt8) -> Bool {
        isLowerAlphanumeric(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
    }

    private static func isLowerAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    /// Printable, no space, none of the characters that need quoting in a local part (RFC 5322 §3.2.3
    /// specials); other scripts are allowed (RFC 6531).
    private static func isLocalPartScalar(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.value < 0x21 || scalar.value == 0x7F { return false }
        if scalar.properties.generalCategory == .control || scalar.properties.isWhitespace { return false }
        return !"()<>[]:;@\\,\"".unicodeScalars.contains(scalar)
    }

    /// 1 to 63 letters, digits or hyphens, not at either end (RFC 1035 §2.3.1; letters of any script, as
    /// an internationalized domain is typed).
    private static func isDomainLabel(_ label: Substring) -> Bool {
        guard !label.isEmpty, label.utf8.count <= 63 * 4, label.count <= 63, !label.hasPrefix("-"), !label.hasSuffix("-") else { return false }
        return label.unicodeScalars.allSatisfy { $0 == "-" || $0.properties.isAlphabetic || ("0"..."9").contains($0) }
    }
}
