import Foundation
import WebAuthn

/// A response body that writes its own JSON. Foundation's `JSONEncoder` builds a tree of boxed values,
/// sorts it and then serializes it — about a tenth of the server's CPU per login went there. The bodies
/// every login sends (options, session, errors) write themselves instead, byte for byte what
/// `JSONResponse.encoder` would produce (sorted keys, unescaped slashes, ISO 8601 dates); a test holds
/// the two to that.
protocol JSONWritable {
    func write(to json: inout JSONWriter)
}

/// Appends JSON to a byte buffer. Members must be written in sorted key order, as the encoder's
/// `.sortedKeys` would.
struct JSONWriter {
    private(set) var bytes: [UInt8] = []
    /// Whether the next member or element needs a comma before it.
    private var afterValue = false

    init() {
        bytes.reserveCapacity(512)
    }

    static func encode(_ value: some JSONWritable) -> [UInt8] {
        var writer = JSONWriter()
        value.write(to: &writer)
        return writer.bytes
    }

    mutating func object(_ members: (inout JSONWriter) -> Void) {
        open(UInt8(ascii: "{"))
        members(&self)
        close(UInt8(ascii: "}"))
    }

    mutating func array<S: Sequence>(_ elements: S, _ write: (inout JSONWriter, S.Element) -> Void) {
        open(UInt8(ascii: "["))
        for element in elements {
            separate()
            write(&self, element)
        }
        close(UInt8(ascii: "]"))
    }

    /// One member of the enclosing object.
    mutating func member(_ key: String, _ value: (inout JSONWriter) -> Void) {
        separate()
        writeString(key)
        bytes.append(UInt8(ascii: ":"))
        afterValue = false
        value(&self)
        afterValue = true
    }

    mutating func member(_ key: String, _ value: String) { member(key) { $0.string(value) } }
    mutating func member(_ key: String, _ value: Int) { member(key) { $0.int(value) } }
    mutating func member(_ key: String, _ value: Bool) { member(key) { $0.bool(value) } }
    mutating func member(_ key: String, _ value: Date) { member(key) { $0.date(value) } }
    mutating func member(_ key: String, _ value: some JSONWritable) { member(key) { value.write(to: &$0) } }

    mutating func string(_ value: String) {
        writeString(value)
        afterValue = true
    }

    mutating func int(_ value: Int) {
        bytes.append(contentsOf: String(value).utf8)
        afterValue = true
    }

    mutating func null() {
        bytes.append(contentsOf: "null".utf8)
        afterValue = true
    }

    mutating func bool(_ value: Bool) {
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
        afterValue = true
    }

    /// As `JSONEncoder.DateEncodingStrategy.iso8601`: UTC, whole seconds, `Z`.
    mutating func date(_ value: Date) {
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
        let text = Array(String(value).utf8)
        if text.count < width { bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: width - text.count)) }
        bytes.append(contentsOf: text)
        bytes.append(UInt8(separator.value))
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
        bytes.append(UInt8(ascii: "\""))
        // Most strings (base64url challenges, ids, names) need no escape: copied whole.
        guard value.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
            bytes.append(contentsOf: value.utf8)
            bytes.append(UInt8(ascii: "\""))
            return
        }
        for byte in value.utf8 {
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

// MARK: The bodies a login sends (and a registration: its session)

extension PublicKeyCredentialRequestOptionsJSON: JSONWritable {
    func write(to json: inout JSONWriter) {
        json.object { json in
            if let allowCredentials { json.member("allowCredentials") { $0.array(allowCredentials) { $1.write(to: &$0) } } }
            json.member("challenge", challenge)
            if let extensions { json.member("extensions", extensions) }
            if let hints { json.member("hints") { $0.array(hints) { $0.string($1) } } }
            if let rpId { json.member("rpId", rpId) }
            if let timeout { json.member("timeout", timeout) }
            if let userVerification { json.member("userVerification", userVerification) }
        }
    }
}

// MARK: The options a registration sends

extension PublicKeyCredentialCreationOptionsJSON: JSONWritable {
    func write(to json: inout JSONWriter) {
        json.object { json in
            if let attestation { json.member("attestation", attestation) }
            if let attestationFormats { json.member("attestationFormats") { $0.array(attestationFormats) { $0.string($1) } } }
            if let authenticatorSelection { json.member("authenticatorSelection", authenticatorSelection) }
            json.member("challenge", challenge)
            if let excludeCredentials { json.member("excludeCredentials") { $0.array(excludeCredentials) { $1.write(to: &$0) } } }
            if let extensions { json.member("extensions", extensions) }
            if let hints { json.member("hints") { $0.array(hints) { $0.string($1) } } }
            json.member("pubKeyCredParams") { $0.array(pubKeyCredParams) { $1.write(to: &$0) } }
            json.member("rp", rp)
            if let timeout { json.member("timeout", timeout) }
            json.member("user", user)
        }
    }
}

extension RelyingPartyEntityJSON: JSONWritable {
    func write(to json: inout JSONWriter) {
        json.object { json in
            if let id { json.member("id", id) }
            json.member("name", name)
        }
    }
}

extension UserEntityJSON: JSONWritable {
    func write(to json: inout JSONWriter) {
        json.object { json in
            json.member("displayName", displayName)
            json.member("id", id)
            json.member("name", name)
        }
    }
}

extension CredentialParametersJSON: JSONWritable {
    func write(to json: inout JSONWriter) {
        json.object { json in
            json.member("alg", alg)
            json.member("type", type)
        }
    }
}

extension AuthenticatorSelectionJSON: JSONWritable {
    func write(to json: inout JSONWriter) {
        json.object { json in
            if let authenticatorAttachment { json.member("authenticatorAttachment", authenticatorAttachment) }
            if let requireResidentKey { json.member("requireResidentKey", requireResidentKey) }
            if let residentKey { json.member("residentKey", residentKey) }
            if let userVerification { json.member("userVerification", userVerification) }
        }
    }
}

extension CredentialDescriptorJSON: JSONWritable {
    func write(to json: inout JSONWriter) {
        json.object { json in
            json.member("id", id)
            if let transports { json.member("transports") { $0.array(transports) { $0.string($1) } } }
            json.member("type", type)
        }
    }
}

extension ExtensionInputsJSON: JSONWritable {
    func write(to json: inout JSONWriter) {
        json.object { json in
            if let credProps { json.member("credProps", credProps) }
            if let prf { json.member("prf", prf) }
        }
    }
}

extension PRFInputsJSON: JSONWritable {
    func write(to json: inout JSONWriter) {
        json.object { json in
            if let eval { json.member("eval", eval) }
            if let evalByCredential {
                json.member("evalByCredential") { json in
                    json.object { json in
                        for key in evalByCredential.keys.sorted() {
                            if let values = evalByCredential[key] { json.member(key, values) }
                        }
                    }
                }
            }
        }
    }
}

extension PRFValuesJSON: JSONWritable {
    func write(to json: inout JSONWriter) {
        json.object { json in
            json.member("first", first)
            if let second { json.member("second", second) }
        }
    }
}

extension ErrorBody: JSONWritable {
    func write(to json: inout JSONWriter) {
        json.object { json in
            json.member("error") { json in
                json.object { json in
                    json.member("code", error.code)
                    json.member("message", error.message)
                }
            }
        }
    }
}
