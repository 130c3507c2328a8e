import Crypto
import Foundation
import LatchkeyDatabase
import Logging
import WebAuthn

/// The work a login or a registration cannot do without, for `latchkey bench --limit` (issue 50): a
/// ratio to the HTTP floor alone asks for the impossible once the floor is cheaper than one P-256
/// verification and one durable commit, so the benchmark measures those two in the same run, on the
/// server's core, through the server's own code, and reports each flow against floor + verifications +
/// commit. For benchmarks only, like `BulkAccounts`: nothing the server runs calls it.
///
/// - The verification is `COSEKey.isValidSignature`, what `AuthenticationVerifier` calls for an ES256
///   passkey, over a login's signed bytes (37 bytes of authenticator data and the client data's hash).
/// - The commits are the ceremonies' storage (`Store.ceremonies`, the server's `CeremonyStorage`) on the
///   server's database: a login's `finishLogin` (the challenge's mark, the counter, the session, the audit
///   event, one transaction through the commit group), with a decision that accepts without verifying;
///   a registration's `createAccount` (the mark, the account, its passkey, its session, two audit events).
@_spi(Benchmark)
public final class BenchLimit: Sendable {
    private let connections: DatabaseConnections
    private let store: Store
    private let credentialId: [UInt8]

    private init(connections: DatabaseConnections, credentialId: [UInt8]) {
        self.connections = connections
        self.store = Store(connections: connections)
        self.credentialId = credentialId
    }

    /// Opens the database at `location` (already migrated by the server) as the server does, and picks the
    /// passkey whose counter the login commits move: the newest one (run it once the measured logins are
    /// over, since it may be one of theirs).
    public static func open(_ location: DatabaseLocation, logger: Logger) async throws -> BenchLimit {
        let connections = try DatabaseConnections.open(location, logger: logger)
        do {
            let row = try await connections.withConnection { db in
                try await db.raw("SELECT id FROM credentials ORDER BY created_at DESC LIMIT 1").first()
            }
            guard let id = try row?.decode(column: "id", as: Data.self) else {
                throw Store.Failure.duplicate  // Unreachable after the benchmark registered its accounts.
            }
            return BenchLimit(connections: connections, credentialId: Array(id))
        } catch {
            try? await connections.shutdown()
            throw error
        }
    }

    public func shutdown() async throws {
        try await connections.shutdown()
    }

    /// `count` login commits, one after the other: each `finishLogin` with a fresh challenge's mark, the
    /// counter moved by one, a new session and its `login.succeeded` event.
    public func loginCommits(_ count: Int) async throws {
        let origin = AuditOrigin(actor: "person", clientAddress: "127.0.0.1", userAgent: "latchkey bench", requestId: nil)
        for _ in 0..<count {
            let now = Date()
            let used = UsedChallenge(digest: RandomBytes.make(32), expiresAt: now + 300)
            let token = SessionToken.generate()
            let outcome = try await store.ceremonies.finishLogin(challenge: used, credentialId: credentialId) { record, account in
                let session = NewSession(
                    tokenHash: token.hash, accountId: account.id, credentialId: record.id, createdAt: now, expiresAt: now + 600,
                    userVerified: true)
                let event = origin.event(
                    .loginSucceeded, at: now, account: account.id, credential: record.id, detail: ["userVerified": .flag(true)])
                return .accept(LoginWrites(
                    signCount: record.signCount &+ 1, backupState: record.backupState, userVerified: true, session: session,
                    events: [event]))
            }
            guard case .completed = outcome else { throw Store.Failure.challengeUsed }
        }
    }

    /// `count` registration commits: each `createAccount` of a new account with one ES256 passkey, its
    /// challenge's mark, its session and its two audit events (`account.created`, `passkey.added`).
    public func registrationCommits(_ count: Int) async throws {
        let origin = AuditOrigin(actor: "person", clientAddress: "127.0.0.1", userAgent: "latchkey bench", requestId: nil)
        let publicKey = Self.coseKey(P256.Signing.PrivateKey().publicKey)
        for _ in 0..<count {
            let now = Date()
            let accountId = UUID().uuidString.lowercased()
            let account = AccountRecord(
                id: accountId, userHandle: RandomBytes.make(64), displayName: "bench-limit", credo: "", createdAt: now, updatedAt: now)
            let credential = CredentialRecord(
                id: RandomBytes.make(16), accountId: accountId, publicKey: publicKey, algorithm: -7, signCount: 0, transports: ["internal"],
                aaguid: [UInt8](repeating: 0, count: 16), attestationFormat: "none", backupEligible: true, backupState: true,
                uvInitialized: true, name: "Passkey", createdAt: now, lastUsedAt: nil, createdOrigin: "http://localhost", discoverable: true)
            let session = NewSession(
                tokenHash: SessionToken.generate().hash, accountId: accountId, credentialId: credential.id, createdAt: now,
                expiresAt: now + 600, userVerified: true)
            let events = [
                origin.event(.accountCreated, at: now, account: accountId, detail: ["displayName": .text(account.displayName)]),
                origin.event(.passkeyAdded, at: now, account: accountId, credential: credential.id, detail: [
                    "name": .text(credential.name), "aaguid": .text(AAGUIDFormat.string(credential.aaguid)),
                    "attestationFormat": .text("none"), "backupEligible": .flag(true),
                ]),
            ]
            try await store.ceremonies.createAccount(
                account, credential: credential, challenge: UsedChallenge(digest: RandomBytes.make(32), expiresAt: now + 300),
                events: events, session: session)
        }
    }

    /// What `verifications(_:)` verifies: a key, and a login's signed bytes with their signature.
    public struct Signed: Sendable {
        let key: COSEKey
        let data: [UInt8]
        let signature: [UInt8]

        /// A new ES256 key and a signature over 37 bytes of authenticator data and a client data hash.
        public init() throws {
            let privateKey = P256.Signing.PrivateKey()
            key = try COSEKey(bytes: BenchLimit.coseKey(privateKey.publicKey))
            data = RandomBytes.make(37) + RandomBytes.make(32)
            signature = Array(try privateKey.signature(for: data).derRepresentation)
        }
    }

    /// Verifies `signed` `count` times, on the calling thread; false if a verification failed.
    public static func verifications(_ count: Int, of signed: Signed) -> Bool {
        var valid = true
        for _ in 0..<count {
            valid = ((try? signed.key.isValidSignature(signed.signature, for: signed.data)) ?? false) && valid
        }
        return valid
    }

    /// A P-256 public key as the COSE_Key a passkey registers (kty 2, alg -7, crv 1, x, y).
    static func coseKey(_ key: P256.Signing.PublicKey) -> [UInt8] {
        let point = Array(key.x963Representation)
        return [0xa5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21, 0x58, 0x20] + point[1..<33] + [0x22, 0x58, 0x20] + point[33..<65]
    }
}
