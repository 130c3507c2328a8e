import Foundation

/// An email address Latchkey will write to: `local@domain` in plain ASCII (RFC 5321's dot-atom form; no
/// quoted local parts, no address literals, no internationalized addresses, which would need SMTPUTF8), at
/// most 254 bytes, its domain in lower case and its local part as given (the mailbox owner's to interpret,
/// RFC 5321 §2.4). `normalized`, all lower case, is how an address is looked up and counted: no mail system
/// people use today tells `Ada@` from `ada@`. Nothing in it can break out of a header or an SMTP command:
/// no space, no control character, no `<`, `>` or `,`.
struct EmailAddress: Sendable, Hashable, CustomStringConvertible {
    let value: String

    var description: String { value }

    /// The address in lower case: the key of look-ups and of the mail log.
    var normalized: String { value.lowercased() }

    var domain: Substring { value[value.index(after: value.lastIndex(of: "@") ?? value.startIndex)...] }

    /// The characters RFC 5322's `atext` allows in a local part, besides letters and digits.
    private static let atextSymbols = Set("!#$%&'*+-/=?^_`{|}~".utf8)

    /// The address, or the sentence that says what is wrong with it (for a 422).
    static func parse(_ text: String) -> Result<EmailAddress, Problem> {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return .failure(.init("must not be empty")) }
        guard trimmed.utf8.count <= 254 else { return .failure(.init("must be at most 254 characters")) }
        guard trimmed.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            return .failure(.init("must be plain ASCII without spaces (write an internationalized domain in its xn-- form)"))
        }
        let parts = trimmed.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return .failure(.init("must be one name, one @ and a domain, as in ada@example.com")) }
        let local = parts[0].utf8, domain = parts[1].lowercased()
        guard (1...64).contains(local.count) else { return .failure(.init("must have 1 to 64 characters before the @")) }
        guard local.first != UInt8(ascii: "."), local.last != UInt8(ascii: "."), !parts[0].contains(".."),
              local.allSatisfy({ isAlphanumeric($0) || $0 == UInt8(ascii: ".") || atextSymbols.contains($0) })
        else { return .failure(.init("has a character before the @ that an address may not have")) }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        guard !domain.isEmpty, domain.utf8.count <= 253, labels.allSatisfy({ label in
            (1...63).contains(label.utf8.count) && label.utf8.allSatisfy { isAlphanumeric($0) || $0 == UInt8(ascii: "-") }
                && label.first != "-" && label.last != "-"
        }) else { return .failure(.init("must end in a domain name, as in ada@example.com")) }
        return .success(EmailAddress(value: parts[0] + "@" + domain))
    }

    struct Problem: Error, Sendable, Equatable {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
