/// A parsed JSON document (RFC 8259), for the two places that parse JSON on every login: the client
/// data (§5.8.1) and the server's request bodies. Foundation's `JSONDecoder` spent more time there than
/// the rest of the verification steps together; this parser is strict, has no dependencies, and reads
/// the bytes once.
///
/// Objects keep their members in order; when a key occurs twice the last occurrence counts, as in the
/// ECMAScript `JSON.parse` that browsers (and the WebAuthn spec's "parse JSON bytes") use.
public indirect enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// The number exactly as written (validated against the grammar; never converted, so never rounded).
    case number(String)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// Parses a whole document: one value with optional whitespace around it, nothing else.
    public static func parse(_ bytes: some Collection<UInt8>) throws(JSONSyntaxError) -> JSONValue {
        let contiguous = Array(bytes)
        return try contiguous.withUnsafeBufferPointer { buffer throws(JSONSyntaxError) in
            var parser = JSONParser(buffer)
            return try parser.document()
        }
    }

    /// Checks that `bytes` are one JSON document within this parser's limits (nesting ≤ 64), for a caller
    /// about to hand them to Foundation's `JSONDecoder` or `JSONSerialization`: their scanner traps on
    /// some deeply nested inputs (exactly 513 `[` and nothing after), so anything that did not come from
    /// this process passes this gate first.
    public static func validate(_ bytes: some Collection<UInt8>) throws(JSONSyntaxError) {
        _ = try parse(bytes)
    }

    /// `text` as a JSON string literal, escaped as §5.8.1.1's CCDToString does: `"`, `\` and control
    /// characters (as `\u00XX`); everything else as it is.
    public static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// A short name of the value's kind, for messages.
    public var kind: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}

/// A JSON object's members in document order.
public struct JSONObject: Sendable, Equatable {
    public let members: [(key: String, value: JSONValue)]

    public init(_ members: [(key: String, value: JSONValue)]) {
        self.members = members
    }

    /// The value of `key`; the last one when it occurs more than once. Objects here have a handful of
    /// members, so a scan beats hashing every key.
    public subscript(key: String) -> JSONValue? {
        // An index loop, not `last(where:)`: unspecialized in a debug build, that allocated per member.
        var index = members.count
        while index > 0 {
            index -= 1
            if members[index].key == key { return members[index].value }
        }
        return nil
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.members.count == rhs.members.count && zip(lhs.members, rhs.members).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }
}

/// Why a document is not JSON, and where.
public struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    public let offset: Int
    public let reason: String

    public var description: String { "\(reason) at byte \(offset)" }
}

/// A recursive-descent parser over the document's bytes.
struct JSONParser {
    /// Deeper documents are refused rather than risking the stack; WebAuthn JSON nests four levels.
    static let maximumDepth = 64

    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0
    private var depth = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    mutating func document() throws(JSONSyntaxError) -> JSONValue {
        let value = try self.value()
        skipWhitespace()
        guard position == bytes.count else { throw fail("unexpected content after the JSON value") }
        return value
    }

    private func fail(_ reason: String) -> JSONSyntaxError {
        JSONSyntaxError(offset: position, reason: reason)
    }

    private var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { position += 1 }
    }

    private mutating func expect(_ byte: UInt8, _ what: String) throws(JSONSyntaxError) {
        guard current == byte else { throw fail("expected \(what)") }
        position += 1
    }

    private mutating func value() throws(JSONSyntaxError) -> JSONValue {
        skipWhitespace()
        guard let byte = current else { throw fail("unexpected end of the document") }
        switch byte {
        case UInt8(ascii: "{"): return .object(try object())
        case UInt8(ascii: "["): return .array(try array())
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw fail("unexpected character")
        }
    }

    private mutating func nest() throws(JSONSyntaxError) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw fail("nested deeper than \(Self.maximumDepth) levels") }
    }

    private mutating func object() throws(JSONSyntaxError) -> JSONObject {
        try nest()
        position += 1 // {
        var members: [(key: String, value: JSONValue)] = []
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            position += 1
            depth -= 1
            return JSONObject(members)
        }
        // Room for a WebAuthn object's members at once: growing from empty reallocated two or three times.
        members.reserveCapacity(8)
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw fail("expected a member name") }
            let key = try string()
            skipWhitespace()
            try expect(UInt8(ascii: ":"), "':' after a member name")
            members.append((key, try value()))
            skipWhitespace()
            if current == UInt8(ascii: ",") {
                position += 1
                continue
            }
            try expect(UInt8(ascii: "}"), "',' or '}' in an object")
            depth -= 1
            return JSONObject(members)
        }
    }

    private mutating func array() throws(JSONSyntaxError) -> [JSONValue] {
        try nest()
        position += 1 // [
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            position += 1
            depth -= 1
            return elements
        }
        elements.reserveCapacity(4)
        while true {
            elements.append(try value())
            skipWhitespace()
            if current == UInt8(ascii: ",") {
                position += 1
                continue
            }
            try expect(UInt8(ascii: "]"), "',' or ']' in an array")
            depth -= 1
            return elements
        }
    }

    private mutating func literal(_ word: StaticString) throws(JSONSyntaxError) {
        let count = word.utf8CodeUnitCount
        guard position + count <= bytes.count,
              UnsafeBufferPointer(rebasing: bytes[position..<position + count]).elementsEqual(UnsafeBufferPointer(start: word.utf8Start, count: count))
        else { throw fail("unexpected character") }
        position += count
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    private mutating func number() throws(JSONSyntaxError) -> String {
        let start = position
        if current == UInt8(ascii: "-") { position += 1 }
        guard let first = current, isDigit(first) else { throw fail("a number needs a digit") }
        position += 1
        if first != UInt8(ascii: "0") { skipDigits() }
        if current == UInt8(ascii: ".") {
            position += 1
            guard let digit = current, isDigit(digit) else { throw fail("a fraction needs a digit") }
            skipDigits()
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            position += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
            guard let digit = current, isDigit(digit) else { throw fail("an exponent needs a digit") }
            skipDigits()
        }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private mutating func skipDigits() {
        while let byte = current, isDigit(byte) { position += 1 }
    }

    /// A string; the opening quote is at `position`.
    private mutating func string() throws(JSONSyntaxError) -> String {
        position += 1
        let start = position
        // The common case has no escapes: the bytes are the string. Most strings here (base64url, names of
        // members) are ASCII, which needs no UTF-8 validation: the scan notes whether a byte had its top bit.
        var bits: UInt8 = 0
        // Through the buffer's pointer: `current` per byte was a tenth of a debug build's login (counts gate).
        if let base = bytes.baseAddress {
            var index = position
            while index < bytes.count {
                let byte = base[index]
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { break }
                bits |= byte
                index += 1
            }
            position = index
        }
        if current == UInt8(ascii: "\"") {
            let text = bits < 0x80
                ? String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
                : try utf8(start..<position)
            position += 1
            return text
        }
        var unescaped = Array(UnsafeBufferPointer(rebasing: bytes[start..<position]))
        while true {
            guard let byte = current else { throw fail("unterminated string") }
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                guard let text = String(validating: unescaped, as: UTF8.self) else { throw fail("a string is not valid UTF-8") }
                return text
            case UInt8(ascii: "\\"):
                position += 1
                try escape(into: &unescaped)
            case 0..<0x20:
                throw fail("a control character must be escaped in a string")
            default:
                unescaped.append(byte)
                position += 1
            }
        }
    }

    private func utf8(_ range: Range<Int>) throws(JSONSyntaxError) -> String {
        guard let text = String(validating: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) else {
            throw JSONSyntaxError(offset: range.lowerBound, reason: "a string is not valid UTF-8")
        }
        return text
    }

    /// One escape sequence after its backslash.
    private mutating func escape(into output: inout [UInt8]) throws(JSONSyntaxError) {
        guard let byte = current else { throw fail("unterminated escape") }
        position += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(byte)
        case UInt8(ascii: "b"): output.append(0x08)
        case UInt8(ascii: "f"): output.append(0x0C)
        case UInt8(ascii: "n"): output.append(0x0A)
        case UInt8(ascii: "r"): output.append(0x0D)
        case UInt8(ascii: "t"): output.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = UInt32(try hex4())
            if (0xD800..<0xDC00).contains(scalar) {
                // A high surrogate must be followed by an escaped low one; together they are one scalar.
                guard current == UInt8(ascii: "\\") else { throw fail("unpaired surrogate escape") }
                position += 1
                guard current == UInt8(ascii: "u") else { throw fail("unpaired surrogate escape") }
                position += 1
                let low = UInt32(try hex4())
                guard (0xDC00..<0xE000).contains(low) else { throw fail("unpaired surrogate escape") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(scalar) {
                throw fail("unpaired surrogate escape")
            }
            guard let unicode = Unicode.Scalar(scalar), let encoded = UTF8.encode(unicode) else { throw fail("invalid \\u escape") }
            output.append(contentsOf: encoded)
        default:
            throw fail("invalid escape")
        }
    }

    private mutating func hex4() throws(JSONSyntaxError) -> UInt16 {
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard let byte = current else { throw fail("a \\u escape needs four hex digits") }
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw fail("a \\u escape needs four hex digits")
            }
            value = value << 4 | UInt16(digit)
            position += 1
        }
        return value
    }
}
