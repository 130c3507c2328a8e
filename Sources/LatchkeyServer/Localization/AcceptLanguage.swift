import Foundation

/// The language ranges of an `Accept-Language` header (RFC 9110 §12.5.4), best first. The header comes
/// from anyone, so it is read behind gates: its first 1 024 bytes, its first 32 ranges, each range at most
/// 35 characters of letters, digits and hyphens (or `*`); a malformed range or weight is skipped, never an
/// error, and a range weighted `q=0` is left out.
package enum AcceptLanguage {
    static let maximumBytes = 1024
    static let maximumRanges = 32
    static let maximumRangeLength = 35

    package static func ranges(_ header: String?) -> [String] {
        guard let header else { return [] }
        let bounded = String(decoding: header.utf8.prefix(maximumBytes), as: UTF8.self)
        var weighted: [(range: String, weight: Double, order: Int)] = []
        for (order, item) in bounded.split(separator: ",", omittingEmptySubsequences: true).prefix(maximumRanges).enumerated() {
            let fields = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let range = fields.first?.lowercased(), isRange(range) else { continue }
            var weight = 1.0
            for field in fields.dropFirst() where field.lowercased().hasPrefix("q=") {
                guard let value = Double(field.dropFirst(2)), (0...1).contains(value) else { weight = -1; break }
                weight = value
            }
            guard weight > 0 else { continue }
            weighted.append((range, weight, order))
        }
        return weighted.sorted { $0.weight != $1.weight ? $0.weight > $1.weight : $0.order < $1.order }.map(\.range)
    }

    /// `*`, or a tag of letters, digits and hyphens that starts with a letter (`de`, `pt-br`, `zh-hans-cn`).
    static func isRange(_ range: String) -> Bool {
        if range == "*" { return true }
        guard !range.isEmpty, range.count <= maximumRangeLength, range.first?.isLetter == true else { return false }
        return range.allSatisfy { ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "-" }
    }
}
