/// What went wrong, in cases a user interface can act on.
public enum ClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No session (or it expired or was revoked): log in first.
    case notLoggedIn
    /// There is a valid session already: log out first.
    case alreadyLoggedIn
    /// The authenticator has no passkey for this server.
    case noPasskeyForServer
    /// The authenticator (or the user) declined.
    case authenticatorRefused(String)
    /// The server answered with an error: its status, code and message as it sent them.
    case refused(status: Int, code: String, message: String)
    /// The server could not be reached.
    case unreachable(String)
    /// The server's answer was not what the API promises.
    case invalidResponse(String)

    public var description: String {
        switch self {
        case .notLoggedIn: "not logged in: run `latchkey login`"
        case .alreadyLoggedIn: "already logged in: run `latchkey logout` first"
        case .noPasskeyForServer: "no passkey for this server on this authenticator: run `latchkey register NAME` to create one"
        case .authenticatorRefused(let reason): "the authenticator refused: \(reason)"
        case .refused(_, let code, let message): "the server refused (\(code)): \(message)"
        case .unreachable(let reason): "the server is unreachable: \(reason)"
        case .invalidResponse(let reason): "the server's answer is not valid: \(reason)"
        }
    }
}
