import LatchkeyRuntime
import Logging
import NIOConcurrencyHelpers
import PostgresKit

/// Whether a unit of work on one PostgreSQL connection has a commit it has not yet seen end, and how to
/// wait for it before the caller is told the work is done.
///
/// Why (found by the crash test, PostgreSQL stopped hard under load: an acknowledged login's session was
/// gone after the restart): a statement sent outside `BEGIN … COMMIT` runs in an *implicit* transaction,
/// which PostgreSQL commits only when it reaches the extended protocol's `Sync` — after it has written the
/// statement's rows and `CommandComplete` to its output buffer. PostgresNIO ends the query at
/// `CommandComplete`; the `ReadyForQuery` that follows the commit is consumed later. Normally the buffer
/// is sent only with `ReadyForQuery`, after the commit; but a backend stopped at once (an immediate
/// shutdown, or a sibling's crash) sends what it holds with its parting notice — a `CommandComplete`
/// whose commit record may not have reached the disk. And a commit that fails (a deferred constraint)
/// reports its error after that `CommandComplete`, which PostgresNIO does not hand to the query's caller.
/// Either way a write was acknowledged that the database does not have. (An explicit `COMMIT` has no such
/// gap: PostgreSQL commits before it reports that statement complete.)
///
/// The wait costs one round trip, and only when the last statement of a unit was such a write: an empty
/// query (no parse, no plan), which PostgresNIO sends only after the previous `ReadyForQuery` — so when
/// it completes, the commit before it has ended. If that commit failed, the empty query fails, or (a
/// failed commit's error after `CommandComplete` leaves PostgresNIO's connection waiting) never completes
/// and the unit's time-out ends it with 503 `database_unavailable`. Any later statement in the unit proves the same, so a write
/// followed by a read needs no wait.
package final class PostgresCommitWait: Sendable {
    private struct State {
        var inTransaction = false
        var uncommitted = false
    }

    private let state = NIOLockedValueBox(State())

    /// Records that a statement with `effect` completed (nil: a statement not written as a
    /// `StoreStatement`, counted as a write).
    package func completed(_ effect: StatementEffect?) {
        state.withLockedValue { state in
            switch effect ?? .write {
            case .begin:
                state.inTransaction = true
                state.uncommitted = false
            case .end:
                state.inTransaction = false
                state.uncommitted = false
            case .read:
                state.uncommitted = false
            case .write:
                state.uncommitted = !state.inTransaction
            }
        }
    }

    /// Whether the last statement was a write whose implicit commit may not have ended yet.
    package var hasUncommittedWrite: Bool { state.withLockedValue { $0.uncommitted } }

    /// Returns once the implicit commit of the last write has ended, or throws what ended the connection.
    package func wait(on connection: PostgresConnection, logger: Logger) async throws {
        guard hasUncommittedWrite else { return }
        for try await _ in try await connection.query(PostgresQuery(unsafeSQL: ""), logger: logger) {}
        completed(.read)
    }
}
