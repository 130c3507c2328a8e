import Foundation

/// The path a rule's prefix is compared with: the raw request path as the app will understand it.
/// Proxies forward the path as the browser sent it (nginx's `$request_uri`, Caddy's and Traefik's
/// `X-Forwarded-Uri`), and the app behind decodes it, so a rule on `/admin` must also catch `/%61dmin`,
/// `/x/../admin` and `//admin`: percent escapes are decoded (an encoded slash becomes a slash), `.` and
/// `..` segments resolved and repeated slashes merged before matching. A path that does not decode
/// (a broken escape, a NUL, bytes that are not UTF-8) is nil: the request is refused.
enum ForwardAuthPath {
    static func normalized(_ raw: String) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(raw.utf8.count)
        var iterator = raw.utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
                bytes.append(high << 4 | low)
            } else {
                bytes.append(byte)
            }
        }
        guard !bytes.contains(0), let decoded = String(validating: bytes, as: UTF8.self) else { return nil }
        var segments: [Substring] = []
        for segment in decoded.split(separator: "/", omittingEmptySubsequences: true) {
            if segment == "." { continue }
            if segment == ".." { _ = segments.popLast(); continue }
            segments.append(segment)
        }
        return "/" + segments.joined(separator: "/")
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
