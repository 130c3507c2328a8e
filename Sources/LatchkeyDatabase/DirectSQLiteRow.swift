import LatchkeyRuntime
import Foundation
import SQLKit

/// A result row, decoded for the column types the store reads.
package struct DirectSQLiteRow: SQLRow {
    /// A statement's column names and their positions, shared by all its rows.
    package final class Columns: Sendable {
        package let names: [String]
        package let positions: [String: Int]

        package init(names: [String]) {
            self.names = names
            // A name that occurs twice keeps its first position, as SQLite's own look-up would.
            self.positions = Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        }
    }

    package let columns: Columns
    package let values: [SQLiteBinding.Value]

    package var allColumns: [String] { columns.names }

    package func contains(column: String) -> Bool { columns.positions[column] != nil }

    private func value(_ column: String) throws -> SQLiteBinding.Value {
        guard let position = columns.positions[column] else { throw DirectSQLite.Failure(description: "no column \(column)") }
        return values[position]
    }

    package func decodeNil(column: String) throws -> Bool {
        if case .null = try value(column) { return true }
        return false
    }

    /// The types a column is asked for, as identities found once: comparing `D.self == Int?.self` and
    /// boxing into `Any?` made the runtime look up generic metadata for every column decoded.
    private enum Wanted {
        static let int = ObjectIdentifier(Int.self), optionalInt = ObjectIdentifier(Int?.self)
        static let bool = ObjectIdentifier(Bool.self), optionalBool = ObjectIdentifier(Bool?.self)
        static let string = ObjectIdentifier(String.self), optionalString = ObjectIdentifier(String?.self)
        static let double = ObjectIdentifier(Double.self), optionalDouble = ObjectIdentifier(Double?.self)
        static let data = ObjectIdentifier(Data.self), optionalData = ObjectIdentifier(Data?.self)
    }

    package func decode<D: Decodable>(column: String, as type: D.Type) throws -> D {
        let wanted = ObjectIdentifier(D.self)
        let decoded: Any
        switch try value(column) {
        case .null:
            // Only a NULL is an optional's nil.
            if let none = Optional<Any>.none as? D { return none }
            throw Self.mismatch(column, D.self)
        // The conversions are sqlite-nio's (SQLiteDriverComparisonTests holds them to it): a number read
        // as text is its decimal form, an integer read as a double is widened, only 0 and 1 are booleans.
        case .integer(let n):
            if wanted == Wanted.int || wanted == Wanted.optionalInt {
                decoded = Int(n)
            } else if wanted == Wanted.bool || wanted == Wanted.optionalBool {
                guard n == 0 || n == 1 else { throw Self.mismatch(column, D.self) }
                decoded = n == 1
            } else if wanted == Wanted.string || wanted == Wanted.optionalString {
                decoded = String(n)
            } else if wanted == Wanted.double || wanted == Wanted.optionalDouble {
                decoded = Double(n)
            } else {
                decoded = n
            }
        case .real(let d):
            decoded = wanted == Wanted.string || wanted == Wanted.optionalString ? String(d) : d
        case .text(let s):
            decoded = s
        case .blob(let bytes):
            guard wanted == Wanted.data || wanted == Wanted.optionalData else { throw Self.mismatch(column, D.self) }
            decoded = Data(bytes)
        }
        // A value that does not convert is refused, optional or not.
        if let typed = decoded as? D { return typed }
        throw Self.mismatch(column, D.self)
    }

    private static func mismatch(_ column: String, _ type: Any.Type) -> DirectSQLite.Failure {
        DirectSQLite.Failure(description: "column \(column) does not hold a \(type)")
    }
}
