import LatchkeyBuildInfo

/// What `latchkey --version` says: the release (the repository's VERSION file) and the commit the binary was
/// built from. scripts/package bakes the commit in at build time (LATCHKEY_COMMIT, see Package.swift); a
/// `swift build` or `swift run` has none and says so rather than guess.
enum BuildInfo {
    /// "0.1.0": VERSION, trimmed.
    static let version: String = trimmed(String(cString: latchkey_build_version()))

    /// The commit ("3f9c2a1b7d4e", "+modified" when the tree had uncommitted changes), or nil for a build
    /// scripts/package did not make.
    static let commit: String? = {
        let commit = String(cString: latchkey_build_commit())
        return commit.isEmpty ? nil : commit
    }()

    /// "latchkey 0.1.0 (commit 3f9c2a1b7d4e)", or "latchkey 0.1.0 (development build, commit not recorded)".
    static var description: String {
        "latchkey \(version) (\(commit.map { "commit \($0)" } ?? "development build, commit not recorded"))"
    }

    private static func trimmed(_ text: String) -> String {
        String(text.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
