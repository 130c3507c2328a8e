import Foundation
import NIOConcurrencyHelpers

/// Sessions the forward-auth check found, kept for `lifetime` seconds (5 by default,
/// `--forward-auth-cache-ttl`) so that the check on every request to every protected app does not read
/// the database each time. That lifetime is the bound on how late a change is seen: a logout, a disabled
/// account, a revoked session or new groups stop (or start) counting at most `lifetime` seconds later on
/// each instance — the same on every instance of a cluster, each of which keeps its own. A logout on this
/// instance forgets the session at once (`forget`).
///
/// Only found sessions are kept, under the SHA-256 of their token: a request with no cookie or an unknown
/// one stores nothing, so anonymous callers cannot grow the table; it holds at most `capacity` entries
/// (expired ones are dropped first when it is full, then the half that expires soonest), each never past
/// its session's own end.
final class ForwardAuthCache: Sendable {
    private struct Entry {
        let identity: ForwardAuthIdentity
        let until: Date
    }

    let lifetime: TimeInterval
    let capacity: Int
    private let entries = NIOLockedValueBox<[[UInt8]: Entry]>([:])

    init(lifetime: TimeInterval, capacity: Int = 10_000) {
        self.lifetime = lifetime
        self.capacity = max(capacity, 1)
    }

    /// The identity kept for `tokenHash` if it is still fresh at `now`.
    func identity(tokenHash: [UInt8], now: Date) -> ForwardAuthIdentity? {
        guard lifetime > 0 else { return nil }
        return entries.withLockedValue { entries in
            guard let entry = entries[tokenHash] else { return nil }
            guard entry.until > now else {
                entries[tokenHash] = nil
                return nil
            }
            return entry.identity
        }
    }

    /// Keeps `identity` (found in the database at `now`) for `lifetime` seconds, or until its session ends.
    func keep(_ identity: ForwardAuthIdentity, tokenHash: [UInt8], now: Date) {
        guard lifetime > 0 else { return }
        let until = min(now + lifetime, identity.expiresAt)
        entries.withLockedValue { entries in
            if entries[tokenHash] == nil, entries.count >= capacity {
                entries = entries.filter { $0.value.until > now }
                if entries.count >= capacity {
                    let kept = entries.sorted { $0.value.until > $1.value.until }.prefix(capacity / 2)
                    entries = Dictionary(uniqueKeysWithValues: kept.map { ($0.key, $0.value) })
                }
            }
            entries[tokenHash] = Entry(identity: identity, until: until)
        }
    }

    /// Drops the session of `tokenHash` (its holder logged out here).
    func forget(tokenHash: [UInt8]) {
        _ = entries.withLockedValue { $0.removeValue(forKey: tokenHash) }
    }

    /// Drops every session of `accountId` (signed out everywhere here).
    func forget(accountId: String) {
        entries.withLockedValue { entries in entries = entries.filter { $0.value.identity.accountId != accountId } }
    }

    var count: Int { entries.withLockedValue(\.count) }
}

extension ForwardAuthCache: SessionEndListener {
    func sessionEnded(tokenHash: [UInt8]) { forget(tokenHash: tokenHash) }
    func sessionsEnded(accountId: String) { forget(accountId: accountId) }
}
