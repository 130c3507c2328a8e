import Foundation
import LatchkeyDatabase
import SQLKit

/// An administrator: an account holding the admin role (`admin_roles`), with the scopes an admin key has
/// (`AdminKeyRecord.Scope`) but possibly more than one — the first administrator holds write and
/// recovery, which no single key scope does. The role is read on every console request, so taking it
/// away (`latchkey admin accounts revoke-admin`) ends its console sessions' powers at once.
struct AdminRole: Sendable, Equatable {
    let accountId: String
    let scopes: AdminScopes
    let grantedAt: Date
    /// `cli`, `setup` (the first administrator's link), or the admin that granted it (`admin:<key id>`,
    /// `admin:account:<id>`).
    let grantedBy: String

    /// An `admin_roles` row (`SQL.adminRoleColumns`).
    init(row: any SQLRow) throws {
        let text = try row.decode(column: "scopes", as: String.self)
        guard let scopes = AdminScopes(text: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "unknown admin role scopes \(text)"))
        }
        self.init(
            accountId: try row.decode(column: "account_id", as: String.self), scopes: scopes,
            grantedAt: Timestamp.date(try row.decode(column: "granted_at", as: Int64.self)),
            grantedBy: try row.decode(column: "granted_by", as: String.self))
    }

    init(accountId: String, scopes: AdminScopes, grantedAt: Date, grantedBy: String) {
        self.accountId = accountId
        self.scopes = scopes
        self.grantedAt = grantedAt
        self.grantedBy = grantedBy
    }
}

/// The scopes an administrator or a key holds: reading is in every one; `write` and `recovery` are
/// separate powers, held together only when both are named.
struct AdminScopes: Sendable, Equatable {
    let members: Set<AdminKeyRecord.Scope>

    init(_ members: Set<AdminKeyRecord.Scope>) {
        self.members = members.isEmpty ? [.read] : members
    }

    /// `read`, `write`, `recovery`, or several comma-separated (`write,recovery`); nil for anything else.
    init?(text: String) {
        var members: Set<AdminKeyRecord.Scope> = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let scope = AdminKeyRecord.Scope(rawValue: part.trimmingCharacters(in: .whitespaces)) else { return nil }
            members.insert(scope)
        }
        guard !members.isEmpty else { return nil }
        self.init(members)
    }

    /// Whether an operation that needs `needed` is allowed.
    func allows(_ needed: AdminKeyRecord.Scope) -> Bool {
        needed == .read || members.contains(needed)
    }

    /// Whether every scope of `other` is allowed here (an admin grants only what it holds).
    func covers(_ other: AdminScopes) -> Bool {
        other.members.allSatisfy(allows)
    }

    /// Stored and shown in one order: `read`, `write`, `recovery`; `read` only when alone.
    var names: [String] {
        let powers = AdminKeyRecord.Scope.allCases.filter { $0 != .read && members.contains($0) }
        return powers.isEmpty ? ["read"] : powers.map(\.rawValue)
    }

    var text: String { names.joined(separator: ",") }

    /// What the first administrator gets: everything.
    static let all = AdminScopes([.write, .recovery])
}
