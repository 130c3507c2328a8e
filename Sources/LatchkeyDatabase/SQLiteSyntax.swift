import LatchkeyRuntime
import Foundation
import SQLKit

/// SQLite's SQL syntax as SQLKit needs it for the store's raw queries: numbered `?N` binds, double-quoted
/// identifiers, RETURNING (SQLite ≥ 3.35).
package struct SQLiteSyntax: SQLDialect {
    package var name: String { "sqlite" }
    package var identifierQuote: any SQLExpression { SQLRaw("\"") }
    package var literalStringQuote: any SQLExpression { SQLRaw("'") }
    package func bindPlaceholder(at position: Int) -> any SQLExpression { SQLRaw("?\(position)") }
    package func literalBoolean(_ value: Bool) -> any SQLExpression { SQLRaw(value ? "1" : "0") }
    package var literalDefault: any SQLExpression { SQLLiteral.null }
    package var supportsAutoIncrement: Bool { false }
    package var autoIncrementClause: any SQLExpression { SQLRaw("AUTOINCREMENT") }
    package var enumSyntax: SQLEnumSyntax { .unsupported }
    package var supportsReturning: Bool { true }
}
