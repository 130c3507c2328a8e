import Foundation
import SQLKit

/// SQLite's SQL syntax as SQLKit needs it for the store's raw queries: numbered `?N` binds, double-quoted
/// identifiers, RETURNING (SQLite ≥ 3.35).
struct SQLiteSyntax: SQLDialect {
    var name: String { "sqlite" }
    var identifierQuote: any SQLExpression { SQLRaw("\"") }
    var literalStringQuote: any SQLExpression { SQLRaw("'") }
    func bindPlaceholder(at position: Int) -> any SQLExpression { SQLRaw("?\(position)") }
    func literalBoolean(_ value: Bool) -> any SQLExpression { SQLRaw(value ? "1" : "0") }
    var literalDefault: any SQLExpression { SQLLiteral.null }
    var supportsAutoIncrement: Bool { false }
    var autoIncrementClause: any SQLExpression { SQLRaw("AUTOINCREMENT") }
    var enumSyntax: SQLEnumSyntax { .unsupported }
    var supportsReturning: Bool { true }
}
