import LatchkeyRuntime
import Foundation
import Logging

/// The modes of a SQLite database's files. The database, its `-wal` and its `-shm` hold session hashes,
/// recovery hashes and the wrapped server keys. `DirectSQLite` creates a new database with mode 600, and
/// SQLite gives the `-wal` and `-shm` it creates the database file's own mode, so a new database is its
/// owner's alone whatever the umask (fourth review, S4-8: under umask 022 all three were 0644).
///
/// A database made before that may still be open to others. When it is opened for writing, other users'
/// access is removed from all three files: no deployment needs the world to read its database of
/// secrets. Access by the files' group is left as it is, with a warning: a group may be there on purpose
/// (a backup agent in the service's group), and taking it away would break that on the next start.
package enum SQLiteFileModes {
    /// The database's files: the database, its write-ahead log and its shared-memory index.
    package static func files(of path: String) -> [String] { [path, path + "-wal", path + "-shm"] }

    /// Removes other users' access to the database at `path` and its `-wal` and `-shm`, and warns once
    /// when its group may read them.
    package static func narrow(_ path: String, logger: Logger) {
        var groupReadable: [String] = []
        for file in files(of: path) {
            var status = stat()
            guard lstat(file, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { continue }
            let mode = status.st_mode & 0o777
            if mode & 0o007 != 0 {
                if chmod(file, mode & ~0o007) == 0 {
                    logger.notice("removed other users' access to the database file", metadata: [
                        "file": "\(file)", "mode_was": "\(String(mode, radix: 8))", "mode": "\(String(mode & ~0o007, radix: 8))",
                    ])
                } else {
                    logger.warning("the database file is readable by other users and its mode cannot be changed; chmod 600 it", metadata: [
                        "file": "\(file)", "mode": "\(String(mode, radix: 8))", "error": "\(String(cString: strerror(errno)))",
                    ])
                }
            }
            if mode & 0o070 != 0 { groupReadable.append(file) }
        }
        if let first = groupReadable.first {
            logger.warning("the database's group can read it; chmod 600 it unless that group must", metadata: [
                "file": "\(first)", "files": "\(groupReadable.count)",
            ])
        }
    }
}
