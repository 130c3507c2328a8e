import Foundation
import WebAuthn

/// A response body that writes its own JSON. Foundation's `JSONEncoder` builds a tree of boxed values,
/// sorts it and then serializes it — about a tenth of the server's CPU per login went there. The bodies
/// every login sends (options, session, errors) write themselves instead, byte for byte what
/// `JSONResponse.encoder` would produce (sorted keys, unescaped slashes, ISO 8601 dates); a test holds
/// the two to that.
package protocol JSONWritable {
    func write(to json: inout JSONWriter)
}

/// Appends JSON to a byte buffer. Members must be written in sorted key order, as the encoder's
/// `.sortedKeys` would.
package struct JSONWriter {
    package private(set) var bytes: [UInt8] = []
    /// Whether the next member or element needs a comma before it.
    private var afterValue = false

    package init() {
        bytes.reserveCapacity(512)
    }

    package static func encode(_ value: some JSONWritable) -> [UInt8] {
        var writer = JSONWriter()
        value.write(to: &writer)
        return writer.bytes
    }

    package mutating func object(_ members: (inout JSONWriter) -> Void) {
        open(UInt8(ascii: "{"))
        members(&self)
        close(UInt8(ascii: "}"))
    }

    package mutating func array<S: Sequence>(_ elements: S, _ write: (inout JSONWriter, S.Element) -> Void) {
        open(UInt8(ascii: "["))
        for element in elements {
            separate()
            write(&self, element)
        }
        close(UInt8(ascii: "]"))
    }

    /// One member of the enclosing object.
    package mutating func member(_ key: String, _ value: (inout JSONWriter) -> Void) {
        separate()
        writeString(key)
        bytes.append(UInt8(ascii: ":"))
        afterValue = false
        value(&self)
        afterValue = true
    }

    package mutating func member(_ key: String, _ value: String) { member(key) { $0.string(value) } }
    package mutating func member(_ key: String, _ value: Int) { member(key) { $0.int(value) } }
    package mutating func member(_ key: String, _ value: Bool) { member(key) { $0.bool(value) } }
    package mutating func member(_ key: String, _ value: Date) { member(key) { $0.date(value) } }
    package mutating func member(_ key: String, _ value: some JSONWritable) { member(key) { value.write(to: &$0) } }

    package mutating func string(_ value: String) {
        writeString(value)
        afterValue = true
    }

    package mutating func int(_ value: Int) {
        if value < 0 {
            bytes.append(UInt8(ascii: "-"))
            decimal(value.magnitude, width: 1)
        } else {
            decimal(UInt(value), width: 1)
        }
        afterValue = true
    }

    package mutating func null() {
        bytes.append(contentsOf: "null".utf8)
        afterValue = true
    }

    package mutating func bool(_ value: Bool) {
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
        afterValue = true
    }

    /// As `JSONEncoder.DateEncodingStrategy.iso8601`: UTC, whole seconds, `Z`.
    package mutating func date(_ value: Date) {
        var seconds = time_t(value.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        bytes.append(UInt8(ascii: "\""))
        digits(Int(parts.tm_year) + 1900, 4, then: "-")
        digits(Int(parts.tm_mon) + 1, 2, then: "-")
        digits(Int(parts.tm_mday), 2, then: "T")
        digits(Int(parts.tm_hour), 2, then: ":")
        digits(Int(parts.tm_min), 2, then: ":")
        digits(Int(parts.tm_sec), 2, then: "Z")
        bytes.append(UInt8(ascii: "\""))
        afterValue = true
    }

    /// `value` zero-padded to `width` decimal digits, then `separator`.
    private mutating func digits(_ value: Int, _ width: Int, then separator: Unicode.Scalar) {
        decimal(UInt(max(value, 0)), width: width)
        bytes.append(UInt8(separator.value))
    }

    /// `value`'s decimal digits, zero-padded to `width`, straight into the buffer: no `String` made for it
    /// (two allocations a number in a debug build, a tenth of the counts gate's login in all).
    private mutating func decimal(_ value: UInt, width: Int) {
        var divisor: UInt = 1
        var count = 1
        while count < width || divisor <= value / 10 {
            divisor *= 10
            count += 1
        }
        var rest = value
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }

    private mutating func open(_ bracket: UInt8) {
        bytes.append(bracket)
        afterValue = false
    }

    private mutating func close(_ bracket: UInt8) {
        bytes.append(bracket)
        afterValue = true
    }

    private mutating func separate() {
        if afterValue { bytes.append(UInt8(ascii: ",")) }
        afterValue = false
    }

    /// Escapes as Foundation's writer does: quote, backslash and control characters; everything else,
    /// `/` and non-ASCII included, as UTF-8.
    private mutating func writeString(_ value: String) {
        // Through the string's own UTF-8 buffer, with index loops: a debug build's unspecialized
        // `contains(where:)` over `String.UTF8View` allocated per byte (a third of the counts gate's login).
        var text = value
        text.withUTF8 { utf8 in writeString(utf8) }
    }

    private mutating func writeString(_ utf8: UnsafeBufferPointer<UInt8>) {
        bytes.append(UInt8(ascii: "\""))
        guard let base = utf8.baseAddress else {
            bytes.append(UInt8(ascii: "\""))
            return
        }
        var index = 0
        while index < utf8.count, base[index] >= 0x20, base[index] != UInt8(ascii: "\""), base[index] != UInt8(ascii: "\\") {
            index += 1
        }
        // Most strings (base64url challenges, ids, names) need no escape: copied whole.
        guard index < utf8.count else {
            bytes.append(contentsOf: utf8)
            bytes.append(UInt8(ascii: "\""))
            return
        }
        index = 0
        while index < utf8.count {
            let byte = base[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x08: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
