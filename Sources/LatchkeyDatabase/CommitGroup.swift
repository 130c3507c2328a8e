import LatchkeyRuntime
import NIOConcurrencyHelpers
import SQLKit

/// Group commit for SQLite: transactions that arrive while another is about to commit — the requests
/// one turn of the event loop read together — run one after the other as savepoints of a single SQLite
/// transaction, and share its commit.
///
/// Why (issue 16): most of what a login's three small writes cost on SQLite is the commit — each changed
/// page written to the log with its checksum, the file locks taken and released, the log index updated.
/// Logins that commit together write the pages they share (the right edge of `used_challenges`, the
/// account's end of `sessions_by_account`, the hot credential pages) once.
///
/// What stays as it was: a transaction's body sees the writes of those before it, exactly as if each had
/// committed on its own (they ran in that order, on the one connection); a body that throws is rolled
/// back to its savepoint alone and its caller gets its error; no caller hears of success before the
/// commit that holds its writes has returned; if that commit fails, every caller whose body succeeded
/// gets the commit's error, and nothing of the group is stored.
///
/// Who does the work: the first caller to find no group forming leads. It lets the event loop run the
/// other requests it already has (one `Task.yield()`), so those join, then runs the group on the
/// connection and wakes the members. Whoever arrived meanwhile waits for the next group, led by the first
/// of them, so a leader never serves later groups at the expense of its own request's answer.
package final class CommitGroup: Sendable {
    /// Borrows the connection (holding its lock) for one group.
    private let borrow: @Sendable () async throws -> DatabaseConnections.Borrowed
    private let state = NIOLockedValueBox(Forming())

    private struct Forming {
        var members: [Member] = []
        /// Whether a leader is on its way: then a new member waits to be woken.
        var led = false
    }

    package init(borrow: @escaping @Sendable () async throws -> DatabaseConnections.Borrowed) {
        self.borrow = borrow
    }

    /// Runs `body` as one transaction of the next group: its writes are committed when this returns, and
    /// none of them are kept when it throws.
    package func transaction<R: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        let result = NIOLockedValueBox<Result<R, any Error>?>(nil)
        let member = Member { database in
            let outcome: Result<R, any Error>
            do { outcome = .success(try await body(database)) } catch { outcome = .failure(error) }
            result.withLockedValue { $0 = outcome }
            if case .success = outcome { return true }
            return false
        }
        let leadsNow = state.withLockedValue { forming in
            forming.members.append(member)
            defer { forming.led = true }
            return !forming.led
        }
        if leadsNow {
            // The requests this turn of the event loop has already read run up to their own transaction
            // and join the group before it closes.
            await Task.yield()
            await lead()
        }
        var commitFailure: (any Error)?
        waiting: while true {
            switch await member.wait() {
            case .lead: await lead()
            case .done(let failure):
                commitFailure = failure
                break waiting
            }
        }
        let outcome = result.withLockedValue { $0 }
        switch outcome {
        case .success(let value)?:
            if let commitFailure { throw commitFailure }
            return value
        case .failure(let error)?:
            throw error
        case nil:
            // The group failed before this body ran (the connection or BEGIN).
            throw commitFailure ?? DirectSQLite.Failure(description: "the transaction did not run")
        }
    }

    /// Closes the group forming now, runs it, wakes its members, and hands the lead to the first of the
    /// members who arrived in the meantime.
    private func lead() async {
        let group = state.withLockedValue { forming in
            defer { forming.members = [] }
            return forming.members
        }
        let failure = await run(group)
        for member in group { member.wake(.done(failure)) }
        let next = state.withLockedValue { forming -> Member? in
            if let first = forming.members.first { return first }
            forming.led = false
            return nil
        }
        next?.wake(.lead)
    }

    /// Runs the group's bodies in one transaction, each in its own savepoint; nil when the commit held,
    /// or the error that ended the group (then nothing of it was kept). Internal for the tests, which
    /// form groups of their own choosing.
    package func run(_ group: [Member]) async -> (any Error)? {
        let borrowed: DatabaseConnections.Borrowed
        do { borrowed = try await borrow() } catch { return error }
        defer { borrowed.release() }
        let database = borrowed.database
        do {
            try await database.run(StoreQuery(TransactionSQL.beginImmediate))
        } catch {
            return error
        }
        do {
            for member in group {
                try await database.run(StoreQuery(TransactionSQL.savepoint))
                if await !member.body(database) {
                    try await database.run(StoreQuery(TransactionSQL.rollbackToSavepoint))
                }
                try await database.run(StoreQuery(TransactionSQL.releaseSavepoint))
            }
            try await database.run(StoreQuery(TransactionSQL.commit))
            return nil
        } catch {
            try? await database.run(StoreQuery(TransactionSQL.rollback))
            return error
        }
    }
}

extension CommitGroup {
    /// One transaction of a group: its body, and how its caller is woken.
    package final class Member: Sendable {
        package enum Wake: Sendable {
            /// Lead the group that formed while the previous one ran.
            case lead
            /// The group that held this member's body has ended: committed (nil), or failed with this error.
            case done((any Error)?)
        }

        /// Runs the body; true when it returned, false when it threw (its savepoint is then rolled back).
        package let body: @Sendable (any SQLDatabase) async -> Bool
        private let signal = NIOLockedValueBox<(wake: Wake?, waiter: CheckedContinuation<Wake, Never>?)>((nil, nil))

        package init(body: @escaping @Sendable (any SQLDatabase) async -> Bool) {
            self.body = body
        }

        /// The latest wake-up; suspends until there is one. A wake-up is kept until the next replaces it, so
        /// one sent before its member waits is not lost.
        package func wait() async -> Wake {
            await withCheckedContinuation { continuation in
                let ready: Wake? = signal.withLockedValue { signal in
                    if let wake = signal.wake {
                        signal.wake = nil
                        return wake
                    }
                    signal.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }

        package func wake(_ wake: Wake) {
            let waiter: CheckedContinuation<Wake, Never>? = signal.withLockedValue { signal in
                guard let waiter = signal.waiter else {
                    signal.wake = wake
                    return nil
                }
                signal.waiter = nil
                return waiter
            }
            waiter?.resume(returning: wake)
        }
    }
}
