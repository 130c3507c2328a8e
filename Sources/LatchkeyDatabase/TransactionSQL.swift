/// The statements that open and end a transaction, and the savepoints of a SQLite commit group
/// (`CommitGroup`): the engine's own, the same for every feature's unit of work.
package enum TransactionSQL {
    package static let begin = StoreStatement("BEGIN")
    /// SQLite takes the write lock up front, so that two writers never deadlock upgrading a read lock.
    package static let beginImmediate = StoreStatement("BEGIN IMMEDIATE")
    package static let commit = StoreStatement("COMMIT")
    package static let rollback = StoreStatement("ROLLBACK")
    /// One transaction of a SQLite commit group (`CommitGroup`).
    package static let savepoint = StoreStatement("SAVEPOINT member")
    package static let releaseSavepoint = StoreStatement("RELEASE member")
    package static let rollbackToSavepoint = StoreStatement("ROLLBACK TO member")
}
