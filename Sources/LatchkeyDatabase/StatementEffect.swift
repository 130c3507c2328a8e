/// What a statement does as far as committing goes: whether it opens or ends a transaction, only reads,
/// or may write. `PostgresCommitWait` uses it to know when a unit of work has a commit still to wait for.
///
/// Read from the statement's first word, once per statement. Anything not plainly a read counts as a
/// write (a `WITH` may hold an `INSERT`; a statement of another shape costs one wait too many at worst).
package enum StatementEffect: Sendable, Equatable {
    /// `BEGIN`: what follows commits with the transaction's `COMMIT`.
    case begin
    /// `COMMIT` or `ROLLBACK` (not `ROLLBACK TO`, which stays in the transaction); and `CALL`, because
    /// the only procedure Latchkey calls commits its own work before it answers (`FinishLoginProcedure`).
    case end
    /// A `SELECT`, or a savepoint's own statement: nothing to commit.
    case read
    /// Anything else.
    case write

    package init(_ sql: String) {
        let words = sql.split(whereSeparator: \.isWhitespace).prefix(2).map { $0.uppercased() }
        switch words.first {
        case "BEGIN": self = .begin
        case "COMMIT", "CALL": self = .end
        case "ROLLBACK": self = words.count > 1 && words[1] == "TO" ? .read : .end
        case "SELECT", "SAVEPOINT", "RELEASE": self = .read
        default: self = .write
        }
    }
}
