import LatchkeyRuntime
import CSQLite3
import Foundation
import SQLKit

/// Values in and out of SQLite for the types the store uses.
package enum SQLiteBinding {
    package enum Value: Sendable {
        case null
        case integer(Int64)
        case real(Double)
        case text(String)
        case blob([UInt8])
    }

    /// SQLITE_TRANSIENT: SQLite copies the bytes before the call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// Binds one of the value types the store uses. The common ones are tried first: each `as?` is a
    /// dynamic cast, and an absent optional is only recognised after the concrete types have failed.
    package static func bind(_ value: any Encodable & Sendable, to statement: OpaquePointer, at index: Int32) throws {
        let status: Int32
        switch value {
        case let data as Data:
            status = data.withUnsafeBytes { bindBlob($0, to: statement, at: index) }
        case let text as String:
            status = bindText(text, to: statement, at: index)
        case let number as Int64:
            status = sqlite3_bind_int64(statement, index, number)
        case let number as Int:
            status = sqlite3_bind_int64(statement, index, Int64(number))
        case let bytes as [UInt8]:
            status = bytes.withUnsafeBytes { bindBlob($0, to: statement, at: index) }
        case let number as Int32:
            status = sqlite3_bind_int64(statement, index, Int64(number))
        case let flag as Bool:
            status = sqlite3_bind_int64(statement, index, flag ? 1 : 0)
        case let number as Double:
            status = sqlite3_bind_double(statement, index, number)
        case let optional as any OptionalBinding where optional.isNone:
            status = sqlite3_bind_null(statement, index)
        default:
            throw DirectSQLite.Failure(description: "cannot bind a value of type \(type(of: value))")
        }
        guard status == SQLITE_OK else { throw DirectSQLite.Failure(description: "bind failed with status \(status)") }
    }

    package static func bind(_ value: StoreValue, to statement: OpaquePointer, at index: Int32) throws {
        let status: Int32
        switch value {
        case .integer(let number?):
            status = sqlite3_bind_int64(statement, index, number)
        case .text(let text?):
            status = bindText(text, to: statement, at: index)
        case .blob(let bytes?):
            status = bytes.withUnsafeBytes { bindBlob($0, to: statement, at: index) }
        case .integer(nil), .text(nil), .blob(nil):
            status = sqlite3_bind_null(statement, index)
        }
        guard status == SQLITE_OK else { throw DirectSQLite.Failure(description: "bind failed with status \(status)") }
    }

    /// Text with its UTF-8 byte length: with -1 SQLite stops at the first NUL, so `before\0after` would be
    /// stored as `before` while the caller was told it was saved as sent.
    private static func bindText(_ text: String, to statement: OpaquePointer, at index: Int32) -> Int32 {
        var text = text
        return text.withUTF8 { utf8 in
            guard let address = utf8.baseAddress else { return sqlite3_bind_text(statement, index, "", 0, transient) }
            return address.withMemoryRebound(to: CChar.self, capacity: utf8.count) {
                sqlite3_bind_text(statement, index, $0, Int32(utf8.count), transient)
            }
        }
    }

    /// An empty buffer has no address, and SQLite binds a null address as NULL: an empty blob is bound
    /// as a zero-length blob instead.
    private static func bindBlob(_ bytes: UnsafeRawBufferPointer, to statement: OpaquePointer, at index: Int32) -> Int32 {
        guard let address = bytes.baseAddress, !bytes.isEmpty else { return sqlite3_bind_zeroblob(statement, index, 0) }
        return sqlite3_bind_blob(statement, index, address, Int32(bytes.count), transient)
    }

    package static func value(of statement: OpaquePointer, column: Int32) -> Value {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, column))
        case SQLITE_TEXT:
            // Read by byte count, not up to a NUL, so text comes back exactly as it was bound.
            // sqlite3_column_text first, then the byte count of what it returned (SQLite's documented order).
            let pointer = sqlite3_column_text(statement, column)
            let count = Int(sqlite3_column_bytes(statement, column))
            guard count > 0, let pointer else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, column))
            guard count > 0, let pointer = sqlite3_column_blob(statement, column) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: pointer, count: count)))
        default: return .null
        }
    }
}

/// Lets a bind value say that it is an absent optional (bound as NULL) without reflection.
fileprivate protocol OptionalBinding {
    var isNone: Bool { get }
}

extension Optional: OptionalBinding {
    package var isNone: Bool { self == nil }
}
