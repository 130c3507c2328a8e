import LatchkeyRuntime
import NIOCore
import PostgresKit

/// Tells a database that cannot be reached (stopped, restarting, unreachable, out of connections, out
/// of disk) from a statement that went wrong. The first is a 503 `database_unavailable` the client may
/// retry — every unit of work is one transaction, so nothing was half-done — and the pool reconnects by
/// itself once the database is back; the second stays a 500, a bug to look into.
package enum DatabaseAvailability {
    package static func isUnavailable(_ error: any Error) -> Bool {
        switch error {
        case let failure as DirectSQLite.Failure:
            return failure.isUnavailable
        case let failure as PSQLError:
            return isUnavailable(failure)
        case is DatabaseConnections.TimedOut, is ConnectionPoolError, is ConnectionPoolTimeoutError, is NIOConnectionError,
             is ChannelError, is IOError:
            return true
        default:
            return false
        }
    }

    private static func isUnavailable(_ error: PSQLError) -> Bool {
        switch error.code {
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed:
            return true
        case .server:
            // SQLSTATE classes 08 (connection exception), 53 (insufficient resources: disk full, too many
            // connections) and 57 (operator intervention: shutting down, cannot connect now).
            let state = error.serverInfo?[.sqlState] ?? ""
            return state.hasPrefix("08") || state.hasPrefix("53") || state.hasPrefix("57")
        default:
            return false
        }
    }
}
