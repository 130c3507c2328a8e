import LatchkeyRuntime
import Foundation

/// Times are stored as milliseconds since 1970 in BIGINT columns: the same on both databases.
package enum Timestamp {
    package static func now() -> Int64 { milliseconds(Date()) }
    /// Saturating: a date no column can hold (past ±292 million years, or NaN) is stored as the nearest
    /// one that can, never trapped on. Every lifetime is range-checked first; this is the last line.
    package static func milliseconds(_ date: Date) -> Int64 {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        if let exact = Int64(exactly: milliseconds) { return exact }
        return milliseconds.isNaN ? 0 : milliseconds < 0 ? .min : .max
    }
    package static func date(_ milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
}
