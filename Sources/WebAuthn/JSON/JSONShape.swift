/// Reading typed members out of a parsed `JSONValue`, with the same three complaints `JSONDecoder` makes
/// — a member is missing, has the wrong type, or is null where a value is required — each naming the
/// member's path, so that callers can say exactly which field of a request was wrong.
public struct JSONShapeError: Error, Sendable, Equatable {
    public enum Problem: Sendable, Equatable {
        case missing
        case wrongType
        case null
    }

    public let problem: Problem
    /// Member names from the document's root, e.g. `["credential", "response", "signature"]`.
    public let path: [String]

    public init(_ problem: Problem, at path: [String]) {
        self.problem = problem
        self.path = path
    }
}

/// One object being read, and where it sits in the document.
public struct JSONShapeReader: Sendable {
    public let object: JSONObject
    public let path: [String]

    /// The object at `path`; a value of another kind is the wrong type.
    public init(_ value: JSONValue, at path: [String] = []) throws(JSONShapeError) {
        guard case .object(let object) = value else {
            throw JSONShapeError(value == .null && !path.isEmpty ? .null : .wrongType, at: path)
        }
        self.object = object
        self.path = path
    }

    public func string(_ key: String) throws(JSONShapeError) -> String {
        switch try required(key) {
        case .string(let text): return text
        default: throw JSONShapeError(.wrongType, at: path + [key])
        }
    }

    /// Absent and null are both nil, as `decodeIfPresent` has it.
    public func optionalString(_ key: String) throws(JSONShapeError) -> String? {
        switch object[key] {
        case nil, .null?: return nil
        case .string(let text)?: return text
        default: throw JSONShapeError(.wrongType, at: path + [key])
        }
    }

    public func optionalBool(_ key: String) throws(JSONShapeError) -> Bool? {
        switch object[key] {
        case nil, .null?: return nil
        case .bool(let flag)?: return flag
        default: throw JSONShapeError(.wrongType, at: path + [key])
        }
    }

    /// An array of strings; absent and null are nil.
    public func optionalStringArray(_ key: String) throws(JSONShapeError) -> [String]? {
        switch object[key] {
        case nil, .null?: return nil
        case .array(let elements)?:
            var strings: [String] = []
            strings.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                guard case .string(let text) = element else { throw JSONShapeError(.wrongType, at: path + [key, String(index)]) }
                strings.append(text)
            }
            return strings
        default: throw JSONShapeError(.wrongType, at: path + [key])
        }
    }

    public func stringArray(_ key: String) throws(JSONShapeError) -> [String] {
        guard let strings = try optionalStringArray(key) else {
            throw JSONShapeError(object[key] == nil ? .missing : .null, at: path + [key])
        }
        return strings
    }

    /// An integer that fits `Int`; a fraction or a number out of range is the wrong type, as it is for
    /// `JSONDecoder`.
    public func optionalInt(_ key: String) throws(JSONShapeError) -> Int? {
        switch object[key] {
        case nil, .null?: return nil
        case .number(let text)?:
            if let integer = Int(text) { return integer }
            // 1e2 or 5.0 are integers written another way; anything else does not fit.
            guard let double = Double(text), let integer = Int(exactly: double) else { throw JSONShapeError(.wrongType, at: path + [key]) }
            return integer
        default: throw JSONShapeError(.wrongType, at: path + [key])
        }
    }

    /// A finite number; one too large for a `Double` is the wrong type.
    public func optionalDouble(_ key: String) throws(JSONShapeError) -> Double? {
        switch object[key] {
        case nil, .null?: return nil
        case .number(let text)?:
            guard let double = Double(text), double.isFinite else { throw JSONShapeError(.wrongType, at: path + [key]) }
            return double
        default: throw JSONShapeError(.wrongType, at: path + [key])
        }
    }

    public func object(_ key: String) throws(JSONShapeError) -> JSONShapeReader {
        try JSONShapeReader(try required(key), at: path + [key])
    }

    public func optionalObject(_ key: String) throws(JSONShapeError) -> JSONShapeReader? {
        switch object[key] {
        case nil, .null?: return nil
        case let value?: return try JSONShapeReader(value, at: path + [key])
        }
    }

    private func required(_ key: String) throws(JSONShapeError) -> JSONValue {
        switch object[key] {
        case nil: throw JSONShapeError(.missing, at: path + [key])
        case .null?: throw JSONShapeError(.null, at: path + [key])
        case let value?: return value
        }
    }
}
