/// Strict RFC 8949 decoder for the items WebAuthn carries.
///
/// Strict means: every declared length is checked against the bytes that remain before anything is
/// allocated, nesting is bounded, text must be UTF-8, map keys must be unique, and reserved or
/// ill-formed encodings are refused. Indefinite-length strings, arrays and maps are accepted (RFC 8949
/// allows them and real authenticators send them) under the same limits.
public struct CBORDecoder: Sendable {
    public struct Limits: Sendable {
        /// Deepest nesting of arrays, maps and tags.
        public var maxDepth: Int
        /// Largest input accepted at all.
        public var maxInputSize: Int
        /// Most items in one array and most entries in one map. WebAuthn's largest are a TPM
        /// statement's 6 entries and a 5-certificate x5c (the shared vectors); 32 leaves room for
        /// extension maps and future members while keeping every map small enough to search linearly.
        public var maxContainerCount: Int

        public init(maxDepth: Int = 16, maxInputSize: Int = 1 << 20, maxContainerCount: Int = 32) {
            self.maxDepth = maxDepth
            self.maxInputSize = maxInputSize
            self.maxContainerCount = maxContainerCount
        }
    }

    public var limits: Limits

    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Decodes one complete item; bytes after it are an error.
    public func decode(_ bytes: [UInt8]) throws(CBORError) -> CBORValue {
        let (value, used) = try decodePrefix(bytes)
        guard used == bytes.count else {
            throw CBORError(.trailingBytes(count: bytes.count - used), at: used)
        }
        return value
    }

    /// Decodes exactly one item from the start of `bytes` and reports how many bytes it used, for
    /// structures that embed an item followed by more data (authenticatorData's COSE key).
    public func decodePrefix(_ bytes: [UInt8]) throws(CBORError) -> (value: CBORValue, bytesUsed: Int) {
        guard bytes.count <= limits.maxInputSize else {
            throw CBORError(.inputTooLarge(limit: limits.maxInputSize), at: 0)
        }
        var reader = Reader(bytes: bytes, maxDepth: limits.maxDepth, maxContainerCount: limits.maxContainerCount)
        let value = try reader.readItem(depth: 0)
        return (value, reader.position)
    }
}

/// The cursor the decoder reads through; it never reads past the end of its bytes.
private struct Reader {
    let bytes: [UInt8]
    let maxDepth: Int
    let maxContainerCount: Int
    var position = 0

    init(bytes: [UInt8], maxDepth: Int, maxContainerCount: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
        self.maxContainerCount = maxContainerCount
    }

    var remaining: Int { bytes.count - position }

    mutating func readByte() throws(CBORError) -> UInt8 {
        guard position < bytes.count else { throw CBORError(.unexpectedEnd, at: position) }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func readUInt(byteCount: Int) throws(CBORError) -> UInt64 {
        guard remaining >= byteCount else { throw CBORError(.unexpectedEnd, at: position) }
        var value: UInt64 = 0
        for i in 0..<byteCount {
            value = value << 8 | UInt64(bytes[position + i])
        }
        position += byteCount
        return value
    }

    mutating func readBytes(count: UInt64, declaredAt start: Int) throws(CBORError) -> [UInt8] {
        guard count <= UInt64(remaining) else {
            throw CBORError(.lengthExceedsInput(declared: count, remaining: remaining), at: start)
        }
        let n = Int(count)
        defer { position += n }
        return [UInt8](copying: bytes, from: position, count: n)
    }

    /// The argument of an item head: nil means indefinite length (additional information 31).
    mutating func readArgument(_ info: UInt8, at start: Int) throws(CBORError) -> UInt64? {
        switch info {
        case 0..<24: return UInt64(info)
        case 24: return try readUInt(byteCount: 1)
        case 25: return try readUInt(byteCount: 2)
        case 26: return try readUInt(byteCount: 4)
        case 27: return try readUInt(byteCount: 8)
        case 31: return nil
        default: throw CBORError(.reservedAdditionalInfo(info), at: start)
        }
    }

    mutating func readItem(depth: Int) throws(CBORError) -> CBORValue {
        let start = position
        let head = try readByte()
        let major = head >> 5
        let info = head & 0x1f
        if head == 0xff { throw CBORError(.unexpectedBreak, at: start) }
        if major == 7 { return try readSimpleOrFloat(info, at: start) }
        let argument = try readArgument(info, at: start)

        switch major {
        case 0, 1:
            guard let n = argument else { throw CBORError(.indefiniteLengthNotAllowed(majorType: major), at: start) }
            return major == 0 ? .unsigned(n) : .negative(n)
        case 2:
            return .bytes(try readString(major: 2, length: argument, at: start))
        case 3:
            let raw = try readString(major: 3, length: argument, at: start)
            guard let text = String(validating: raw, as: UTF8.self) else { throw CBORError(.invalidUTF8, at: start) }
            return .text(text)
        case 4:
            try checkDepth(depth, at: start)
            return .array(try readArrayItems(count: argument, depth: depth, at: start))
        case 5:
            try checkDepth(depth, at: start)
            return .map(try readMapEntries(count: argument, depth: depth, at: start))
        default: // 6: tag
            guard let tag = argument else { throw CBORError(.indefiniteLengthNotAllowed(majorType: 6), at: start) }
            try checkDepth(depth, at: start)
            return .tagged(tag, try readItem(depth: depth + 1))
        }
    }

    func checkDepth(_ depth: Int, at start: Int) throws(CBORError) {
        guard depth < maxDepth else { throw CBORError(.depthLimitExceeded(limit: maxDepth), at: start) }
    }

    /// A definite string, or the concatenation of an indefinite string's definite chunks of the same type.
    mutating func readString(major: UInt8, length: UInt64?, at start: Int) throws(CBORError) -> [UInt8] {
        if let length { return try readBytes(count: length, declaredAt: start) }
        var result: [UInt8] = []
        while true {
            let chunkStart = position
            let head = try readByte()
            if head == 0xff { return result }
            guard head >> 5 == major, head & 0x1f != 31,
                  let chunkLength = try readArgument(head & 0x1f, at: chunkStart)
            else { throw CBORError(.invalidIndefiniteChunk, at: chunkStart) }
            let chunk = try readBytes(count: chunkLength, declaredAt: chunkStart)
            if major == 3, String(validating: chunk, as: UTF8.self) == nil {
                // RFC 8949 §3.2.3: each chunk of a text string must itself be valid UTF-8.
                throw CBORError(.invalidUTF8, at: chunkStart)
            }
            result += chunk
        }
    }

    mutating func atBreak() throws(CBORError) -> Bool {
        guard position < bytes.count else { throw CBORError(.unexpectedEnd, at: position) }
        if bytes[position] == 0xff {
            position += 1
            return true
        }
        return false
    }

    /// Refuses a container's (count + 1)th member, so that no container grows past the limit whatever
    /// its declared length.
    func checkCount(_ count: Int, at start: Int) throws(CBORError) {
        guard count < maxContainerCount else { throw CBORError(.containerTooLarge(limit: maxContainerCount), at: start) }
    }

    mutating func readArrayItems(count: UInt64?, depth: Int, at start: Int) throws(CBORError) -> [CBORValue] {
        var items: [CBORValue] = []
        if let count {
            // Each item takes at least one byte: a count beyond the remaining bytes cannot be honest.
            guard count <= UInt64(remaining) else {
                throw CBORError(.lengthExceedsInput(declared: count, remaining: remaining), at: start)
            }
            guard count <= UInt64(maxContainerCount) else { throw CBORError(.containerTooLarge(limit: maxContainerCount), at: start) }
            items.reserveCapacity(Int(count))
            for _ in 0..<count { items.append(try readItem(depth: depth + 1)) }
        } else {
            while try !atBreak() {
                try checkCount(items.count, at: start)
                items.append(try readItem(depth: depth + 1))
            }
        }
        return items
    }

    /// Entries in order, with duplicate keys found through a hash set: a scan per key made an 11 000-key
    /// map cost over a second.
    mutating func readMapEntries(count: UInt64?, depth: Int, at start: Int) throws(CBORError) -> CBORMap {
        var entries: [CBORMap.Entry] = []
        var keys = Set<CBORValue>()
        if let count {
            // Each entry takes at least two bytes.
            guard count <= UInt64(remaining) / 2 else {
                throw CBORError(.lengthExceedsInput(declared: count, remaining: remaining), at: start)
            }
            guard count <= UInt64(maxContainerCount) else { throw CBORError(.containerTooLarge(limit: maxContainerCount), at: start) }
            entries.reserveCapacity(Int(count))
            for _ in 0..<count { try readEntry(into: &entries, keys: &keys, depth: depth) }
        } else {
            while try !atBreak() {
                try checkCount(entries.count, at: start)
                try readEntry(into: &entries, keys: &keys, depth: depth)
            }
        }
        return CBORMap(uniqueEntries: entries)
    }

    mutating func readEntry(into entries: inout [CBORMap.Entry], keys: inout Set<CBORValue>, depth: Int) throws(CBORError) {
        let keyStart = position
        let key = try readItem(depth: depth + 1)
        let value = try readItem(depth: depth + 1)
        guard keys.insert(key).inserted else { throw CBORError(.duplicateMapKey, at: keyStart) }
        entries.append(CBORMap.Entry(key: key, value: value))
    }

    mutating func readSimpleOrFloat(_ info: UInt8, at start: Int) throws(CBORError) -> CBORValue {
        switch info {
        case 20: return .bool(false)
        case 21: return .bool(true)
        case 22: return .null
        case 23: return .undefined
        case 0..<20: return .simple(info)
        case 24:
            let value = UInt8(try readUInt(byteCount: 1))
            guard value >= 32 else { throw CBORError(.invalidSimpleValue(value), at: start) }
            return .simple(value)
        case 25: return .float(HalfFloat.double(fromBits: UInt16(try readUInt(byteCount: 2))))
        case 26: return .float(Double(Float(bitPattern: UInt32(try readUInt(byteCount: 4)))))
        case 27: return .float(Double(bitPattern: try readUInt(byteCount: 8)))
        case 31: throw CBORError(.unexpectedBreak, at: start)
        default: throw CBORError(.reservedAdditionalInfo(info), at: start)
        }
    }
}
