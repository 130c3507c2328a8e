/// One CBOR data item (RFC 8949 §3), as the decoder produced it or as a caller builds it for encoding.
///
/// Negative integers are kept as the raw argument `n` of major type 1 (the value is `-1 - n`) so that the
/// full range `-2^64 … -1` round-trips without overflow; `int64Value` says when it fits a Swift integer.
public indirect enum CBORValue: Sendable, Hashable {
    case unsigned(UInt64)
    /// Major type 1 with argument `n`: the integer `-1 - n`.
    case negative(UInt64)
    case bytes([UInt8])
    case text(String)
    case array([CBORValue])
    case map(CBORMap)
    case tagged(UInt64, CBORValue)
    case bool(Bool)
    case null
    case undefined
    /// A simple value other than false/true/null/undefined (0…19, 32…255).
    case simple(UInt8)
    case float(Double)

    /// A CBOR integer for any `Int64`.
    public static func int(_ value: Int64) -> CBORValue {
        value >= 0 ? .unsigned(UInt64(value)) : .negative(UInt64(-1 - value))
    }

    /// The integer value when it is an integer that fits `Int64`; nil otherwise (never a wrapped value).
    public var int64Value: Int64? {
        switch self {
        case .unsigned(let n): return n <= UInt64(Int64.max) ? Int64(n) : nil
        case .negative(let n): return n <= UInt64(Int64.max) ? -1 - Int64(n) : nil
        default: return nil
        }
    }

    public var bytesValue: [UInt8]? {
        if case .bytes(let b) = self { return b }
        return nil
    }

    public var textValue: String? {
        if case .text(let s) = self { return s }
        return nil
    }

    public var arrayValue: [CBORValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public var mapValue: CBORMap? {
        if case .map(let m) = self { return m }
        return nil
    }
}

/// A CBOR map that keeps its entries in the order they were decoded (or added) and has no duplicate keys.
public struct CBORMap: Sendable, Hashable {
    public struct Entry: Sendable, Hashable {
        public let key: CBORValue
        public let value: CBORValue
        public init(key: CBORValue, value: CBORValue) {
            self.key = key
            self.value = value
        }
    }

    public private(set) var entries: [Entry]

    public init() { entries = [] }

    /// Builds a map from key/value pairs; returns nil when a key repeats.
    public init?(_ pairs: [(CBORValue, CBORValue)]) {
        var keys = Set<CBORValue>()
        entries = []
        for (key, value) in pairs {
            guard keys.insert(key).inserted else { return nil }
            entries.append(Entry(key: key, value: value))
        }
    }

    /// Entries whose keys the caller has already found unique (the decoder, through a hash set).
    init(uniqueEntries: [Entry]) {
        entries = uniqueEntries
    }

    public var count: Int { entries.count }

    public subscript(key: CBORValue) -> CBORValue? {
        entries.first(where: { $0.key == key })?.value
    }

    public subscript(text key: String) -> CBORValue? { self[.text(key)] }

    public subscript(int key: Int64) -> CBORValue? { self[.int(key)] }

    public var keys: [CBORValue] { entries.map(\.key) }

    /// Adds an entry; returns false (and changes nothing) when the key is already present.
    @discardableResult
    public mutating func insert(_ value: CBORValue, for key: CBORValue) -> Bool {
        guard self[key] == nil else { return false }
        entries.append(Entry(key: key, value: value))
        return true
    }
}
