import Foundation
@testable import LatchkeyDatabase
import Logging
import NIOCore
import NIOPosix
import SQLiteKit
import SQLKit
import Testing
@testable import LatchkeyServer

/// Latchkey's own SQLite driver (`DirectSQLite`) stands in for sqlite-kit/sqlite-nio, the driver SQLKit
/// users would reach for: the same statements through both must give the same rows, the same decoded
/// values for every type the store reads, and the same refusals. (Why it exists: it runs each statement
/// on the calling task instead of a thread pool — see the note on `DirectSQLite` for the measurement.)
@Suite("DirectSQLite agrees with sqlite-nio")
struct SQLiteDriverComparisonTests {
    /// The column types of Latchkey's schema and a value of each kind SQLite stores, including the edges.
    static let schema = """
        CREATE TABLE sample (id INTEGER PRIMARY KEY, big BIGINT, flag INTEGER, ratio REAL, label TEXT, bytes BLOB, maybe BIGINT, note TEXT)
        """
    static let rows: [[SQLiteValue]] = [
        [.int(1), .int(Int64.max), .int(1), .real(0.5), .text("Ada"), .blob([0, 1, 2, 255]), .null, .null],
        [.int(2), .int(Int64.min), .int(0), .real(-2.5), .text(""), .blob([]), .int(0), .text("")],
        [.int(3), .int(0), .int(1), .real(3), .text("Ünïcødé 🔑 \"quoted\" 'single'"), .blob(Array(repeating: 0xAB, count: 70_000)), .int(-1), .text("x")],
    ]

    enum SQLiteValue: Sendable {
        case null, int(Int64), real(Double), text(String), blob([UInt8])

        var encodable: any Encodable & Sendable {
            switch self {
            case .null: Int64?.none
            case .int(let n): n
            case .real(let d): d
            case .text(let s): s
            case .blob(let b): Data(b)
            }
        }
    }

    /// Both drivers on their own file, each with the schema and the rows.
    static func withBothDrivers(_ body: (_ direct: any SQLDatabase, _ nio: any SQLDatabase) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sqlite-compare-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let eventLoop = MultiThreadedEventLoopGroup.singleton.any()
        let direct = DirectSQLiteDatabase(
            connection: try DirectSQLite(path: directory.appendingPathComponent("direct.sqlite").path),
            logger: Logger(label: "direct"), eventLoop: eventLoop)
        let connection = try await SQLiteConnection.open(
            storage: .file(path: directory.appendingPathComponent("nio.sqlite").path), threadPool: .singleton, logger: Logger(label: "nio"),
            on: eventLoop)
        let nio = connection.sql()
        do {
            for database in [direct, nio] as [any SQLDatabase] {
                try await database.raw(SQLQueryString(schema)).run()
                for row in rows {
                    var query = SQLQueryString("INSERT INTO sample VALUES (")
                    for (index, value) in row.enumerated() {
                        if index > 0 { query.appendLiteral(", ") }
                        query.appendInterpolation(bind: value.encodable)
                    }
                    query.appendLiteral(")")
                    try await database.raw(query).run()
                }
            }
            try await body(direct, nio)
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
    }

    /// Where DirectSQLite refuses what sqlite-nio converts, on purpose: sqlite-nio reads the REAL 0.5 as
    /// the boolean false (through `Int(double)`, which traps for a REAL beyond Int's range, such as
    /// -1e300: the samples stay within it so that the comparison can run). No column of Latchkey's
    /// schema is a REAL read as a boolean.
    static let stricter = ["ratio as Bool: refused"]

    /// Every column decoded as every type the store reads: the value, or that it was refused.
    static func decodings(_ row: any SQLRow) -> [String] {
        func attempt<T: Decodable>(_ column: String, _ type: T.Type) -> String {
            do { return "\(column) as \(T.self): \(String(describing: try row.decode(column: column, as: T.self)))" } catch { return "\(column) as \(T.self): refused" }
        }
        return row.allColumns.flatMap { column in
            [
                attempt(column, Int.self), attempt(column, Int64.self), attempt(column, Int?.self), attempt(column, Int64?.self),
                attempt(column, String.self), attempt(column, String?.self), attempt(column, Data.self), attempt(column, Data?.self),
                attempt(column, Double.self), attempt(column, Bool.self), attempt(column, [UInt8].self),
                "\(column) is null: \((try? row.decodeNil(column: column)).map(String.init(describing:)) ?? "refused")",
            ]
        }
    }

    @Test("the same rows, columns and decoded values for every type the store reads")
    func sameValues() async throws {
        try await Self.withBothDrivers { direct, nio in
            let fromDirect = try await direct.raw("SELECT * FROM sample ORDER BY id").all()
            let fromNIO = try await nio.raw("SELECT * FROM sample ORDER BY id").all()
            #expect(fromDirect.count == 3 && fromNIO.count == 3)
            for (a, b) in zip(fromDirect, fromNIO) {
                #expect(a.allColumns == b.allColumns)
                #expect(a.contains(column: "label") && b.contains(column: "label"))
                #expect(!a.contains(column: "absent") && !b.contains(column: "absent"))
                let (left, right) = (Self.decodings(a), Self.decodings(b))
                for (x, y) in zip(left, right) where x != y && !Self.stricter.contains(where: x.hasPrefix) {
                    Issue.record("DirectSQLite gives \(x.prefix(200)); sqlite-nio gives \(y.prefix(200))")
                }
            }
        }
    }

    @Test("the store's statement shapes: RETURNING, ON CONFLICT DO NOTHING, and refusals")
    func sameStatements() async throws {
        try await Self.withBothDrivers { direct, nio in
            for database in [direct, nio] {
                let returned = try await database.raw("UPDATE sample SET note = \(bind: "seen") WHERE id = \(bind: 2) RETURNING id, note").all()
                #expect(returned.count == 1)
                #expect(try returned.first?.decode(column: "id", as: Int.self) == 2)
                #expect(try returned.first?.decode(column: "note", as: String.self) == "seen")
                // A duplicate key with DO NOTHING … RETURNING: no row and no error (how the store detects duplicates).
                let skipped = try await database.raw(
                    "INSERT INTO sample (id, label) VALUES (\(bind: 1), \(bind: "dup")) ON CONFLICT (id) DO NOTHING RETURNING id").all()
                #expect(skipped.isEmpty)
                await #expect(throws: (any Error).self, "a duplicate key without ON CONFLICT is refused") {
                    try await database.raw("INSERT INTO sample (id) VALUES (\(bind: 1))").run()
                }
                await #expect(throws: (any Error).self, "a syntax error is refused") {
                    try await database.raw("SELEC 1").run()
                }
                await #expect(throws: (any Error).self, "a missing column is refused") {
                    _ = try await database.raw("SELECT 1 AS one").first()?.decode(column: "two", as: Int.self)
                }
                let empty = try await database.raw("SELECT * FROM sample WHERE id = \(bind: 99)").first()
                #expect(empty == nil)
            }
        }
    }
}
