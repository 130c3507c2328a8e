/// A short, safe description of why a database could not be reached, for the one start-up sentence.
/// Driver errors can carry credentials or query text, so only recognised causes are named.
package enum DatabaseFailure {
    package static func summary(_ error: any Error) -> String {
        let detail = String(reflecting: error)
        let known: [(String, String)] = [
            ("Connection refused", "connection refused: is the server running at that host and port?"),
            ("password authentication failed", "password authentication failed"),
            ("does not exist", "the database or role does not exist"),
            ("unable to open database", "the SQLite file cannot be opened: check the path and permissions"),
            ("cantOpen", "the SQLite file cannot be opened: check the path and permissions"),
            ("readonly database", "the SQLite file is read-only"),
            ("timed out", "the connection timed out"),
            ("No such host", "the host name does not resolve"),
        ]
        for (fragment, summary) in known where detail.contains(fragment) { return summary }
        return "\(type(of: error))"
    }
}
