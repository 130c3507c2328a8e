import Foundation
import LatchkeyAPI
import LatchkeyDatabase
import Logging
import SQLKit
import WebAuthn

/// `latchkey export` and `latchkey import` (`ExportFormat`): the database as a document any Latchkey
/// database can be rebuilt from — to move SQLite to PostgreSQL and back, or to start again after a loss.
/// Columns are read from the database's own catalogue, so a column a migration adds is exported without
/// this file changing. An import is all or nothing: one transaction.
package enum DatabaseExport {
    /// Rows written or read, by table.
    package struct Summary: Sendable, Equatable {
        package var rows: [(table: String, count: Int)] = []

        package var text: String {
            rows.filter { $0.count > 0 }.map { "\($0.count) \($0.table)" }.joined(separator: ", ")
        }

        package static func == (lhs: Summary, rhs: Summary) -> Bool { lhs.text == rhs.text }
    }

    /// Writes the database of `configuration` to `write` (a line at a time, each ending in a newline).
    package static func export(
        configuration: ServerConfiguration, including options: Set<ExportFormat.Option>, write: (ArraySlice<UInt8>) throws -> Void
    ) async throws -> Summary {
        let connections = try await configuration.openMigratedDatabase(logger: Logger(label: "latchkey-export"), eventLoopGroup: .singletonMultiThreadedEventLoopGroup)
        do {
            let summary = try await export(connections: connections, including: options, write: write)
            try await connections.shutdown()
            return summary
        } catch {
            try? await connections.shutdown()
            throw error
        }
    }

    static func export(
        connections: DatabaseConnections, including options: Set<ExportFormat.Option>, write: (ArraySlice<UInt8>) throws -> Void
    ) async throws -> Summary {
        let tables = ExportFormat.tables.filter { $0.optional.map(options.contains) ?? true }
        let version = try await connections.withConnection { try await Migrations.version(of: $0) }
        var header = JSONWriter()
        header.object { object in
            object.member("format", ExportFormat.name)
            object.member("version", ExportFormat.version)
            object.member("schemaVersion", version)
            object.member("exportedAt", Date())
            object.member("tables") { $0.array(tables.map(\.name)) { $0.string($1) } }
        }
        try write(ArraySlice(header.bytes + [0x0A]))
        var summary = Summary()
        for table in tables {
            let columns = try await connections.withConnection { try await Self.columns(of: table.name, on: $0, flavor: connections.flavor) }
                .filter { !table.generated.contains($0.name) }
            let list = columns.map(\.name).joined(separator: ", ")
            // The audit trail in the order it was written; the rest by their keys, so that two exports of one
            // database are the same document.
            let rows = try await connections.withConnection { db in
                try await db.raw("SELECT \(unsafeRaw: list) FROM \(unsafeRaw: table.name) ORDER BY \(unsafeRaw: table.generated.first ?? columns[0].name)").all()
            }
            for row in rows {
                let values = try columns.map { try Self.value(of: $0, in: row) }
                var line = JSONWriter()
                line.object { object in
                    object.member("t", table.name)
                    object.member("r") { record in
                        record.object { fields in
                            for (column, value) in zip(columns, values) { Self.write(value, named: column.name, to: &fields) }
                        }
                    }
                }
                try write(ArraySlice(line.bytes + [0x0A]))
            }
            summary.rows.append((table.name, rows.count))
        }
        return summary
    }

    /// Reads a document (all of `data`) into the database of `configuration`, which must hold no accounts,
    /// clients or admin keys unless `merge` (then rows whose keys exist are kept as they are). The
    /// document's server keys replace the database's: what it holds was signed and sealed with them.
    package static func importDocument(_ data: Data, configuration: ServerConfiguration, merge: Bool) async throws -> Summary {
        let connections = try await configuration.openMigratedDatabase(logger: Logger(label: "latchkey-import"), eventLoopGroup: .singletonMultiThreadedEventLoopGroup)
        do {
            let summary = try await importDocument(data, connections: connections, merge: merge)
            // The imported names for the admin search (SQLite): indexed now rather than by the next server.
            try await Store(connections: connections).indexAllPendingNames()
            try await connections.shutdown()
            return summary
        } catch {
            try? await connections.shutdown()
            throw error
        }
    }

    static func importDocument(_ data: Data, connections: DatabaseConnections, merge: Bool) async throws -> Summary {
        var lines = data.split(separator: 0x0A, omittingEmptySubsequences: true)[...]
        guard let first = lines.popFirst(), case .object(let header)? = try? JSONValue.parse(first),
              case .string(ExportFormat.name)? = header["format"]
        else { throw ServerConfiguration.Invalid(description: "the file is not a Latchkey export (its first line is not the export's header)") }
        guard case .number(let versionText)? = header["version"], let version = Int(versionText), version >= 1 else {
            throw ServerConfiguration.Invalid(description: "the export's header has no version")
        }
        guard version <= ExportFormat.version else {
            throw ServerConfiguration.Invalid(description: """
                the export is version \(version), written by a newer Latchkey (this one reads up to version \(ExportFormat.version)): \
                import it with that version or a newer one
                """)
        }
        if case .number(let schemaText)? = header["schemaVersion"], let schema = Int(schemaText), schema > Migrations.latestVersion {
            throw ServerConfiguration.Invalid(description: """
                the export comes from a database at schema version \(schema); this Latchkey knows up to \(Migrations.latestVersion): \
                import it with that version or a newer one
                """)
        }
        let known = Dictionary(uniqueKeysWithValues: ExportFormat.tables.map { ($0.name, $0) })
        let flavor = connections.flavor
        let rows = Array(lines)
        return try await connections.transaction { db in
            if !merge {
                for table in ["accounts", "oidc_clients", "admin_keys"] {
                    let count = try await db.raw("SELECT count(*) AS n FROM \(unsafeRaw: table)").first()?.decode(column: "n", as: Int.self) ?? 0
                    guard count == 0 else {
                        throw ServerConfiguration.Invalid(description: """
                            the database already holds \(count) \(table.replacingOccurrences(of: "_", with: " ")): import into an empty one, \
                            or add --merge to keep what is there and add what is not
                            """)
                    }
                }
            }
            var columnsByTable: [String: [String: ExportFormat.Kind]] = [:]
            var counts: [String: Int] = [:]
            var replacedKeys = false
            for (index, line) in rows.enumerated() {
                let where_ = "line \(index + 2)"
                guard case .object(let entry)? = try? JSONValue.parse(line), case .string(let name)? = entry["t"],
                      case .object(let record)? = entry["r"], let table = known[name]
                else { throw ServerConfiguration.Invalid(description: "the export's \(where_) is not a row of a table Latchkey exports") }
                if columnsByTable[name] == nil {
                    columnsByTable[name] = Dictionary(uniqueKeysWithValues: try await Self.columns(of: name, on: db, flavor: flavor).map { ($0.name, $0.kind) })
                }
                if name == "server_keys", !replacedKeys {
                    try await db.raw("DELETE FROM server_keys").run()
                    replacedKeys = true
                }
                var query: SQLQueryString = "INSERT INTO \(unsafeRaw: name) ("
                var values: SQLQueryString = ""
                for (position, member) in record.members.enumerated() {
                    guard let kind = columnsByTable[name]?[member.key], !table.generated.contains(member.key) else {
                        throw ServerConfiguration.Invalid(description: "the export's \(where_) has a column \(name).\(member.key) this database does not have")
                    }
                    if position > 0 {
                        query.appendLiteral(", ")
                        values.appendLiteral(", ")
                    }
                    query.appendLiteral(member.key)
                    try Self.bind(member.value, as: kind, into: &values, at: "\(where_), \(name).\(member.key)")
                }
                query.appendLiteral(") VALUES (")
                query = query + values
                query.appendLiteral(merge ? ") ON CONFLICT DO NOTHING" : ")")
                try await db.raw(query).run()
                counts[name, default: 0] += 1
            }
            // An export from before schema version 20 has no `usernames`: the names its accounts hold are
            // noted here, so that none of them can pass to another account.
            try await db.raw("\(unsafeRaw: SQL.backfillUsernames)").run()
            var summary = Summary()
            for table in ExportFormat.tables { summary.rows.append((table.name, counts[table.name] ?? 0)) }
            return summary
        }
    }

    /// A table's columns and how their values are written, from the database's catalogue.
    static func columns(of table: String, on db: any SQLDatabase, flavor: SQLFlavor) async throws -> [(name: String, kind: ExportFormat.Kind)] {
        let rows: [any SQLRow]
        if flavor == .sqlite {
            rows = try await db.raw("SELECT name, type FROM pragma_table_info(\(bind: table))").all()
        } else {
            rows = try await db.raw("""
                SELECT column_name AS name, data_type AS type FROM information_schema.columns
                WHERE table_schema = current_schema() AND table_name = \(bind: table) ORDER BY ordinal_position
                """).all()
        }
        return try rows.map { row in
            let name = try row.decode(column: "name", as: String.self)
            let declared = try row.decode(column: "type", as: String.self)
            guard let kind = ExportFormat.Kind(declared: declared) else {
                throw ServerConfiguration.Invalid(description: "the column \(table).\(name) has a type (\(declared)) the export does not know")
            }
            return (name, kind)
        }
    }

    /// A column's value as the document writes it.
    private enum Value {
        case null, text(String), integer(Int64), bytes(Data)
    }

    private static func value(of column: (name: String, kind: ExportFormat.Kind), in row: any SQLRow) throws -> Value {
        switch column.kind {
        case .text: return try row.decode(column: column.name, as: String?.self).map(Value.text) ?? .null
        case .integer: return try row.decode(column: column.name, as: Int64?.self).map(Value.integer) ?? .null
        case .bytes: return try row.decode(column: column.name, as: Data?.self).map(Value.bytes) ?? .null
        }
    }

    private static func write(_ value: Value, named name: String, to fields: inout JSONWriter) {
        switch value {
        case .null: fields.member(name) { $0.null() }
        case .text(let text): fields.member(name, text)
        case .integer(let number): fields.member(name, Int(number))
        case .bytes(let bytes): fields.member(name, Base64URL.encode(Array(bytes)))
        }
    }

    private static func bind(_ value: JSONValue, as kind: ExportFormat.Kind, into query: inout SQLQueryString, at place: String) throws {
        switch (kind, value) {
        case (_, .null): query.appendLiteral("NULL")
        case (.text, .string(let text)): query.appendInterpolation(bind: text)
        case (.integer, .number(let text)):
            guard let number = Int64(text) else { throw ServerConfiguration.Invalid(description: "the export's \(place) is not a whole number") }
            query.appendInterpolation(bind: number)
        case (.bytes, .string(let text)):
            guard let bytes = Base64URL.decode(text) else { throw ServerConfiguration.Invalid(description: "the export's \(place) is not base64url") }
            query.appendInterpolation(bind: Data(bytes))
        default:
            throw ServerConfiguration.Invalid(description: "the export's \(place) is a \(value.kind), not what the column holds")
        }
    }
}
