import Foundation
import LatchkeyAPI

/// `latchkey admin claims set|unset|list`: custom claims of an account or a group, through the same
/// `AdminService` operations as the admin API. A broken rule exits 2.
extension AdminConsole {
    package func setClaim(account: String?, group: String?, name: String, value: String, scope: String?, json: Bool) async throws -> String {
        try await run(rulesAreUsage: true) {
            let claim = try await service.setClaim(named: name, OIDCClaimRequest(value: value, scope: scope), of: Self.holder(account, group), origin: .cli)
            if json { return try Self.json(claim) }
            return "Set \(claim.name) (released by \(claim.scope)) for \(Self.describe(account, group))."
        }
    }

    package func unsetClaim(account: String?, group: String?, name: String) async throws -> String {
        try await run(rulesAreUsage: true) {
            try await service.removeClaim(named: name, of: Self.holder(account, group), origin: .cli)
            return "Removed \(name) from \(Self.describe(account, group))."
        }
    }

    package func claims(account: String?, group: String?, json: Bool) async throws -> String {
        try await run(rulesAreUsage: true) {
            let claims = try await service.claims(of: Self.holder(account, group))
            if json { return try Self.json(claims) }
            if claims.isEmpty { return "No claims for \(Self.describe(account, group))." }
            var lines = Table(["CLAIM", "SCOPE", "VALUE"])
            for claim in claims { lines.add([claim.name, claim.scope, claim.value]) }
            return lines.text
        }
    }

    /// The command line names exactly one of them (`ClaimsCommand` checks).
    private static func holder(_ account: String?, _ group: String?) -> OIDCClaimStore.ClaimHolder {
        if let account { return .account(account) }
        return .group(group ?? "")
    }

    private static func describe(_ account: String?, _ group: String?) -> String {
        account.map { "account \($0)" } ?? "group \(group ?? "")"
    }
}
