import WebAuthn

/// A member of a PATCH body that may be left out (keep the value), be null (remove it) or hold a new
/// value: `JSONShapeReader`'s optional readers take null for absent, which cannot tell "remove" apart.
package enum FieldChange<Value: Sendable & Equatable>: Sendable, Equatable {
    case keep
    case remove
    case set(Value)

    /// The new value when there is one.
    package var value: Value? {
        if case .set(let value) = self { return value }
        return nil
    }

    package var isKept: Bool { self == .keep }

    /// The same change with its value passed through `transform` (a field's rule).
    package func map<New, Failure: Error>(_ transform: (Value) throws(Failure) -> New) throws(Failure) -> FieldChange<New> {
        switch self {
        case .keep: return .keep
        case .remove: return .remove
        case .set(let value): return .set(try transform(value))
        }
    }
}

extension JSONShapeReader {
    /// A string member that null removes.
    package func stringChange(_ key: String) throws(JSONShapeError) -> FieldChange<String> {
        switch object[key] {
        case nil: return .keep
        case .null?: return .remove
        case .string(let text)?: return .set(text)
        default: throw JSONShapeError(.wrongType, at: path + [key])
        }
    }

    /// A string-array member that null empties.
    package func stringArrayChange(_ key: String) throws(JSONShapeError) -> FieldChange<[String]> {
        switch object[key] {
        case nil: return .keep
        case .null?: return .remove
        default: return .set(try stringArray(key))
        }
    }
}
