import Foundation

/// The rule for files that hold secrets — the key file, the TLS key, the webhook and introspection
/// secrets' files, the database, its backups and exports: they are their owner's alone. Anyone else who
/// can read one has what it holds.
///
/// One rule and one sentence for all of them (fourth review, S4-8 and S4-10). A file that is read is
/// refused when its group or other users have any access to it. A file that is written is created with
/// mode 600 before its first byte, never made with the process umask and narrowed afterwards: in that
/// gap another user can open it, and keeps reading through the descriptor after the `chmod` (observed
/// with a 300 MB backup made under umask 022).
public enum OwnerOnlyFile {
    /// The refusal of `path` (`what` names it in the sentence, "the key file") when its group or other
    /// users may access it; nil when only its owner may, or when it cannot be examined (reading it then
    /// fails with the caller's own sentence).
    ///
    /// A file systemd handed this service (`LoadCredential=`, in `$CREDENTIALS_DIRECTORY`, the way
    /// deploy/systemd/latchkey.service passes secrets) may have its group bits set: since systemd 254, with
    /// `User=` or `DynamicUser=`, the service's user reads it through an ACL, which `stat` shows as group
    /// bits (`-r--r-----+`, mode 440). That directory is systemd's, for this service alone, so there only
    /// other users' bits are refused.
    public static func openToOthers(
        _ what: String, at path: String,
        credentialsDirectory: String? = ProcessInfo.processInfo.environment["CREDENTIALS_DIRECTORY"]
    ) -> InvalidSetting? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        let forbidden: mode_t = isCredential(path, in: credentialsDirectory) ? 0o007 : 0o077
        guard status.st_mode & forbidden != 0 else { return nil }
        return .init(description: "\(what) \(path) is readable by others (mode \(String(status.st_mode & 0o777, radix: 8))); chmod 600 it")
    }

    /// Whether `path` is a file directly in systemd's credentials directory `directory` (both resolved).
    private static func isCredential(_ path: String, in directory: String?) -> Bool {
        guard let directory, !directory.isEmpty else { return false }
        let file = URL(fileURLWithPath: path).resolvingSymlinksInPath()
        let credentials = URL(fileURLWithPath: directory).resolvingSymlinksInPath()
        return file.deletingLastPathComponent().standardizedFileURL.path == credentials.standardizedFileURL.path
    }

    /// Creates `path` with mode 600 whatever the umask and returns its open descriptor, or -1 with `errno`
    /// set. Nothing may be at `path` — not a file, not a symbolic link (`O_EXCL | O_NOFOLLOW`): a file
    /// someone else left at the name would stay theirs, and a link would take the content elsewhere.
    public static func createDescriptor(at path: String) -> Int32 {
        let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return -1 }
        // A umask that takes the owner's bits too (0277) would leave it unwritable: exactly 600.
        guard fchmod(fd, 0o600) == 0 else {
            let failure = errno
            close(fd)
            unlink(path)
            errno = failure
            return -1
        }
        return fd
    }

    /// Creates `path` empty with mode 600 when nothing is there; else leaves what is there. A failure is
    /// left to the caller's next step, which then cannot open the file and says so.
    public static func createEmpty(at path: String) {
        let fd = createDescriptor(at: path)
        if fd >= 0 { close(fd) }
    }

    /// `createDescriptor(at:)`, with the sentence of its failure (`what` names the file: "the backup").
    public static func create(_ what: String, at path: String) throws(InvalidSetting) -> Int32 {
        let fd = createDescriptor(at: path)
        guard fd >= 0 else {
            if errno == EEXIST { throw .init(description: "\(path) already exists; give a new file name") }
            throw .init(description: "\(what) \(path) cannot be created (\(String(cString: strerror(errno))))")
        }
        return fd
    }

    /// Whether the file open as `fd` is still the one at `path` (not replaced, not a link), owned by this
    /// process's user, and mode 600: what a file made by `create` must still be once it is written.
    public static func isStillOwnerOnly(_ fd: Int32, at path: String) -> Bool {
        var opened = stat()
        var named = stat()
        guard fstat(fd, &opened) == 0, lstat(path, &named) == 0 else { return false }
        return opened.st_dev == named.st_dev && opened.st_ino == named.st_ino && named.st_uid == geteuid()
            && named.st_mode & S_IFMT == S_IFREG && named.st_mode & 0o777 == 0o600
    }
}
