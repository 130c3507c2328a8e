/// base64url (RFC 4648 §5), the encoding of every binary member of the WebAuthn JSON forms.
///
/// Output never has padding; input may have it or not. Standard-alphabet characters (`+`, `/`),
/// whitespace and misplaced padding are refused rather than guessed at.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    private static let reverse: [UInt8] = {
        var table = [UInt8](repeating: 0xff, count: 256)
        for (i, c) in alphabet.enumerated() { table[Int(c)] = UInt8(i) }
        return table
    }()

    public static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let input = Array(bytes)
        let outputLength = (input.count * 4 + 2) / 3
        return input.withUnsafeBufferPointer { input in
            alphabet.withUnsafeBufferPointer { alphabet in
                String(unsafeUninitializedCapacity: outputLength) { out in
                    var i = 0, o = 0
                    while i + 3 <= input.count {
                        let (b0, b1, b2) = (input[i], input[i + 1], input[i + 2])
                        out[o] = alphabet[Int(b0 >> 2)]
                        out[o + 1] = alphabet[Int((b0 & 0x03) << 4 | b1 >> 4)]
                        out[o + 2] = alphabet[Int((b1 & 0x0f) << 2 | b2 >> 6)]
                        out[o + 3] = alphabet[Int(b2 & 0x3f)]
                        i += 3
                        o += 4
                    }
                    if input.count - i == 1 {
                        let b0 = input[i]
                        out[o] = alphabet[Int(b0 >> 2)]
                        out[o + 1] = alphabet[Int((b0 & 0x03) << 4)]
                        o += 2
                    } else if input.count - i == 2 {
                        let (b0, b1) = (input[i], input[i + 1])
                        out[o] = alphabet[Int(b0 >> 2)]
                        out[o + 1] = alphabet[Int((b0 & 0x03) << 4 | b1 >> 4)]
                        out[o + 2] = alphabet[Int((b1 & 0x0f) << 2)]
                        o += 3
                    }
                    return o
                }
            }
        }
    }

    /// The decoded bytes, or nil when `string` is not base64url.
    public static func decode(_ string: String) -> [UInt8]? {
        var string = string
        return string.withUTF8 { decode(utf8: $0) }
    }

    private static func decode(utf8 input: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var count = input.count
        if count > 0, count % 4 == 0, input[count - 1] == UInt8(ascii: "=") {
            count -= 1
            if input[count - 1] == UInt8(ascii: "=") { count -= 1 }
        }
        // A lone trailing sextet cannot encode a whole byte.
        guard count % 4 != 1 else { return nil }
        let table = reverse
        return table.withUnsafeBufferPointer { tableBuffer -> [UInt8]? in
            // Pointers, not the buffers' subscripts: their checked accessors are calls in a debug build.
            guard let table = tableBuffer.baseAddress, let input = input.baseAddress else { return [] }
            var out = [UInt8]()
            out.reserveCapacity(count * 3 / 4)
            var i = 0
            while i + 4 <= count {
                let a = table[Int(input[i])], b = table[Int(input[i + 1])]
                let c = table[Int(input[i + 2])], d = table[Int(input[i + 3])]
                guard (a | b | c | d) & 0xc0 == 0 else { return nil }
                out.append(a << 2 | b >> 4)
                out.append(b << 4 | c >> 2)
                out.append(c << 6 | d)
                i += 4
            }
            let rest = count - i
            if rest >= 2 {
                let a = table[Int(input[i])], b = table[Int(input[i + 1])]
                guard (a | b) & 0xc0 == 0 else { return nil }
                out.append(a << 2 | b >> 4)
                if rest == 3 {
                    let c = table[Int(input[i + 2])]
                    guard c & 0xc0 == 0, c & 0x03 == 0 else { return nil }
                    out.append(b << 4 | c >> 2)
                } else {
                    // Leftover bits must be zero, so that every byte string has exactly one encoding.
                    guard b & 0x0f == 0 else { return nil }
                }
            }
            return out
        }
    }
}
