import Foundation

/// Times are stored as milliseconds since 1970 in BIGINT columns: the same on both databases.
enum Timestamp {
    static func now() -> Int64 { milliseconds(Date()) }
    static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
    static func date(_ milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
}
