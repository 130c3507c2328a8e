import Foundation
import LatchkeyDatabase
import Logging
import NIOPosix

/// What to do when the database, or the database and its key file, may have leaked (`latchkey keys
/// rotate`): every secret key in the database is deleted and the key file is replaced, so that the
/// next start makes new ones. Nothing a leaked copy holds can then sign an access token that verifies
/// against the published keys or open a challenge.
///
/// Run it with every instance stopped: a running instance keeps the keys it has loaded. Sessions are
/// not keys — they are stored as hashes and stay valid; end them with `POST /api/logout/everywhere` per
/// account, or by deleting the `sessions` rows, if the tokens themselves may have leaked.
public enum KeyRotation {
    public struct Outcome: Sendable {
        /// Keys deleted from the database.
        public let deletedKeys: Int
        /// The key file written.
        public let keyFile: String
    }

    public static func rotate(configuration: ServerConfiguration) async throws -> Outcome {
        guard let keyFile = configuration.effectiveKeyFile else {
            throw ServerConfiguration.Invalid(description: "an in-memory database has no keys to rotate")
        }
        var logger = Logger(label: "latchkey-keys")
        logger.logLevel = .critical
        let connections = try await configuration.openMigratedDatabase(logger: logger, eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
        let deleted: Int
        do {
            // The keys first: should writing the file then fail, the next start makes new keys under the
            // old file, which is consistent; the other order could leave keys no file opens.
            deleted = try await Store(connections: connections).deleteAllServerKeys()
        } catch {
            try? await connections.shutdown()
            throw ServerConfiguration.Invalid(
                description: "the database \(configuration.database) cannot be opened (\(DatabaseFailure.summary(error)))")
        }
        try await connections.shutdown()
        try KeyFile.write(RandomBytes.make(KeyFile.byteCount), to: keyFile, replacing: true)
        return Outcome(deletedKeys: deleted, keyFile: keyFile)
    }
}
