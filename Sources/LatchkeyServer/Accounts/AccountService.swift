import Foundation
import LatchkeyAPI

/// The changes a signed-in person makes to their own account, each with its audit event: what
/// `AccountController`, `AccountAppsController` and PassKeysDemo's `PassKeysDemoController` call to write.
///
/// The rule for controllers and the store (docs/ARCHITECTURE.md §8): a controller may read the store, but
/// every write goes through its feature's service, which builds the audit event from the request's
/// `AuditOrigin` and turns the store's outcome into the catalogue's error. Two controllers that change the
/// same account then cannot record the change two ways.
struct AccountService: Sendable {
    let store: Store
    let now: @Sendable () -> Date

    /// Changes the display name, the credo and the username (each nil when left as it is). Nil when the
    /// account is gone (deleted since the request was authenticated).
    func update(
        accountId: String, displayName: String?, credo: String?, username: FieldChange<String> = .keep, origin: AuditOrigin
    ) async throws -> AccountRecord? {
        var detail = AuditDetail.changed(displayName: displayName, credo: credo)
        var profile: [Store.ProfileChange] = []
        if !username.isKept {
            profile.append(.username(username.value))
            detail = AuditDetail.changed(displayName: displayName, credo: credo, username: true)
        }
        let event = origin.event(.accountUpdated, at: now(), account: accountId, detail: detail)
        do {
            return try await store.updateAccount(id: accountId, displayName: displayName, credo: credo, profile: profile, now: event.at, event: event)
        } catch Store.Failure.duplicate {
            throw APIError.usernameTaken
        }
    }

    /// The account, its passkeys and every session go.
    func delete(accountId: String, origin: AuditOrigin) async throws {
        _ = try await store.deleteAccount(id: accountId, event: origin.event(.accountDeleted, at: now(), account: accountId))
    }

    /// The passkey's new name; nil when the account has no such passkey.
    func renamePasskey(id: [UInt8], accountId: String, name: String, origin: AuditOrigin) async throws -> CredentialRecord? {
        let event = origin.event(.passkeyRenamed, at: now(), account: accountId, credential: id, detail: ["name": .text(name)])
        return try await store.renameCredential(id: id, accountId: accountId, name: name, event: event)
    }

    /// Removes a passkey, ending the sessions it began but the caller's own (`keepingSession`, its hash).
    func removePasskey(id: [UInt8], accountId: String, keepingSession: [UInt8], origin: AuditOrigin) async throws -> Store.DeleteCredentialOutcome {
        try await store.deleteCredential(
            id: id, accountId: accountId, keepingSession: keepingSession,
            event: origin.event(.passkeyRemoved, at: now(), account: accountId, credential: id))
    }

    /// Takes an app's access back: the consent goes and every grant of the account for the client is
    /// revoked. False when the app has none.
    func revokeApp(accountId: String, clientId: String, origin: AuditOrigin) async throws -> Bool {
        let at = now()
        return try await store.oidcApps.revoke(accountId: accountId, clientId: clientId, at: at) { name in
            origin.event(.oidcGrantRevoked, at: at, account: accountId, detail: ["client": .text(clientId), "clientName": .text(name)])
        }
    }
}
