import Foundation
import LatchkeyAPI
import Logging
import WebAuthn

/// The first administrator of an installation: while no account holds the admin role, `latchkey serve`
/// makes a one-time link at start-up and prints it as one log line, the way Jupyter prints its token URL —
/// whoever reads the server's own log is its operator. The link is `<origin>/admin/setup#<code>`: the code
/// after `#` never reaches a server log or a `Referer`. Only its SHA-256 is stored, for `lifetime`; the
/// person who opens it signs in with a passkey (user-verified) and becomes the first administrator with
/// every scope, which spends every link (`Store.useSetupLink`). Later administrators are granted by an
/// administrator, or by `latchkey admin accounts grant-admin`.
struct AdminSetupLink: Sendable {
    let store: Store
    let now: @Sendable () -> Date

    /// How long a link lives.
    static let lifetime: TimeInterval = 3600
    /// The code: 32 random bytes, base64url (43 characters).
    static let codeLength = 43

    /// A new link's code when no administrator exists (its digest stored), nil otherwise.
    func make() async throws -> String? {
        guard try await !store.adminRoles.any() else { return nil }
        let code = Base64URL.encode(RandomBytes.make(32))
        let at = now()
        try await store.adminRoles.insertSetupLink(secretHash: SecretDigest.of(code), at: at, expiresAt: at + Self.lifetime)
        return code
    }

    /// Makes a link when none exists and logs it: `origin` is where the console is served.
    func announce(origin: String, logger: Logger) async throws {
        guard let code = try await make() else { return }
        logger.notice("no administrator yet: open the setup link within an hour to become the first (once)", metadata: [
            "url": "\(origin)/admin/setup#\(code)",
        ])
    }

    /// Makes `accountId` the first administrator when `code` is a live link and there is none yet.
    func use(code: String, accountId: String, origin: AuditOrigin) async throws {
        guard code.utf8.count == Self.codeLength else { throw Self.refusal }
        let at = now()
        let role = AdminRole(accountId: accountId, scopes: .all, grantedAt: at, grantedBy: "setup")
        let event = origin.acting(as: "setup").event(.adminGranted, at: at, account: accountId, detail: [
            "scopes": .text(role.scopes.text), "setup": .flag(true),
        ])
        guard try await store.adminRoles.useSetupLink(secretHash: SecretDigest.of(code), role: role, now: at, event: event) else { throw Self.refusal }
    }

    static let refusal = APIError(
        .setupLinkInvalid,
        "This setup link cannot be used: it expired, was used, or an administrator exists already. Restart the server for a new one while there is no administrator, or run latchkey admin accounts grant-admin.")
}
