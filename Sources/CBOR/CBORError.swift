/// Why a byte string is not one acceptable CBOR item, and where (byte offset from the start of the input).
public struct CBORError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The input ended inside an item.
        case unexpectedEnd
        /// Additional information 28–30 is reserved (RFC 8949 §3).
        case reservedAdditionalInfo(UInt8)
        /// Indefinite length (additional information 31) where RFC 8949 does not allow it.
        case indefiniteLengthNotAllowed(majorType: UInt8)
        /// A declared length larger than the bytes that remain.
        case lengthExceedsInput(declared: UInt64, remaining: Int)
        /// More nested arrays, maps or tags than the limit.
        case depthLimitExceeded(limit: Int)
        /// A text string that is not valid UTF-8.
        case invalidUTF8
        /// A map key that occurs twice in the same map.
        case duplicateMapKey
        /// Bytes after the single item that was expected.
        case trailingBytes(count: Int)
        /// A "break" byte (0xff) outside an indefinite-length item.
        case unexpectedBreak
        /// A chunk of an indefinite-length string that is not a definite string of the same major type.
        case invalidIndefiniteChunk
        /// A two-byte simple value below 32 (not well-formed, RFC 8949 §3.3).
        case invalidSimpleValue(UInt8)
        /// The input is larger than the decoder accepts.
        case inputTooLarge(limit: Int)
        /// An array with more items, or a map with more entries, than the decoder accepts.
        case containerTooLarge(limit: Int)
        /// The encoder was given something CBOR cannot hold (e.g. a map with duplicate keys).
        case unencodable(String)
    }

    public let kind: Kind
    public let offset: Int

    public init(_ kind: Kind, at offset: Int) {
        self.kind = kind
        self.offset = offset
    }

    public var description: String {
        let what: String
        switch kind {
        case .unexpectedEnd: what = "input ends inside an item"
        case .reservedAdditionalInfo(let v): what = "reserved additional information \(v)"
        case .indefiniteLengthNotAllowed(let m): what = "indefinite length not allowed for major type \(m)"
        case .lengthExceedsInput(let d, let r): what = "declared length \(d) exceeds the \(r) bytes that remain"
        case .depthLimitExceeded(let l): what = "nesting deeper than \(l) levels"
        case .invalidUTF8: what = "text string is not valid UTF-8"
        case .duplicateMapKey: what = "duplicate map key"
        case .trailingBytes(let c): what = "\(c) trailing bytes after the item"
        case .unexpectedBreak: what = "break byte outside an indefinite-length item"
        case .invalidIndefiniteChunk: what = "indefinite-length string chunk of the wrong type"
        case .invalidSimpleValue(let v): what = "simple value \(v) must use the one-byte form"
        case .inputTooLarge(let l): what = "input larger than \(l) bytes"
        case .containerTooLarge(let l): what = "array or map with more than \(l) members"
        case .unencodable(let s): what = "cannot encode: \(s)"
        }
        return "CBOR: \(what) at byte \(offset)"
    }
}
