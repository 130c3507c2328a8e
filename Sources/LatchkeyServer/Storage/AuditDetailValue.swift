import WebAuthn

/// A value of an event's detail: the trail writes only strings, whole numbers and flags (`AuditDetail`).
enum AuditDetailValue: Encodable, Equatable, Sendable {
    case text(String)
    case number(Int)
    case flag(Bool)

    func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .text(let text): try c.encode(text)
        case .number(let number): try c.encode(number)
        case .flag(let flag): try c.encode(flag)
        }
    }

    /// The longest detail text read back (the trail's writers stay far below it: a display name is at
    /// most 1 020 characters).
    static let detailLimit = 16 * 1024

    /// The stored detail text as values, read by the strict, depth-limited parser (`JSONValue`, never
    /// Foundation's): it holds what callers sent (a display name, a passkey's name). A member of another
    /// kind is dropped; text that is not such an object reads as empty.
    static func object(_ text: String) -> [String: AuditDetailValue] {
        guard text.utf8.count <= detailLimit, case .object(let object)? = try? JSONValue.parse(text.utf8) else { return [:] }
        var values: [String: AuditDetailValue] = [:]
        for (key, value) in object.members {
            switch value {
            case .string(let string): values[key] = .text(string)
            case .bool(let flag): values[key] = .flag(flag)
            case .number(let digits): if let number = Int(digits) { values[key] = .number(number) }
            default: break
            }
        }
        return values
    }
}
