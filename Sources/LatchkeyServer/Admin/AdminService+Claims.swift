import Foundation
import LatchkeyAPI

/// Custom claims (`latchkey admin claims …`, `/api/admin/{accounts|groups}/{id}/claims`): what an operator
/// adds to what apps learn about a person, per account or per group, each checked by `OIDCClaimRules`
/// and audited (`oidc_claim.set`, `oidc_claim.removed`, the detail naming the claim and its scope, never
/// its value, which the trail — and so the webhooks — need not carry).
extension AdminService {
    /// `holder`'s claims, by name (404 for an account that does not exist).
    func claims(of holder: OIDCClaimStore.ClaimHolder) async throws -> [OIDCClaimJSON] {
        try await checked(holder)
        return try await store.oidcClaims.claims(of: holder).map { OIDCClaimJSON($0) }
    }

    func setClaim(named name: String, _ request: OIDCClaimRequest, of holder: OIDCClaimStore.ClaimHolder, origin: AuditOrigin) async throws -> OIDCClaimJSON {
        try await checked(holder)
        let claim = OIDCCustomClaim(
            name: try OIDCClaimRules.name(name), value: try OIDCClaimRules.value(request.value), scope: try OIDCClaimRules.scope(request.scope),
            updatedAt: now())
        let event = Self.claimEvent(.oidcClaimSet, claim.name, scope: claim.scope, of: holder, at: claim.updatedAt, origin: origin)
        switch try await store.oidcClaims.set(claim, of: holder, limit: OIDCClaimRules.perSubject, event: event) {
        case .stored: return OIDCClaimJSON(claim)
        case .unknownAccount: throw APIError.unknownAccount
        case .full:
            throw APIError(.claimNameInvalid, "An account or a group has at most \(OIDCClaimRules.perSubject) claims; remove one first (latchkey admin claims unset).")
        }
    }

    func removeClaim(named name: String, of holder: OIDCClaimStore.ClaimHolder, origin: AuditOrigin) async throws {
        try await checked(holder)
        let event = Self.claimEvent(.oidcClaimRemoved, name, scope: nil, of: holder, at: now(), origin: origin)
        guard try await store.oidcClaims.remove(named: name, of: holder, event: event) else {
            throw APIError(.unknownClaim, "There is no claim of this name here (latchkey admin claims list).")
        }
    }

    /// An account that exists (404 otherwise); a group name by the groups' rule (422 otherwise).
    private func checked(_ holder: OIDCClaimStore.ClaimHolder) async throws {
        switch holder {
        case .account(let id):
            guard try await store.accountProfile(id: id) != nil else { throw APIError.unknownAccount }
        case .group(let name):
            _ = try InputRules.groupNames([name], field: "The group (group, --group)")
        }
    }

    private static func claimEvent(
        _ kind: AuditEvent.Kind, _ name: String, scope: String?, of holder: OIDCClaimStore.ClaimHolder, at date: Date, origin: AuditOrigin
    ) -> AuditEvent {
        var detail: AuditDetail = ["claim": .text(String(name.prefix(64)))]
        if let scope { detail.members.append(("scope", .text(scope))) }
        switch holder {
        case .account(let id):
            return origin.event(kind, at: date, account: id, detail: detail)
        case .group(let group):
            detail.members.append(("group", .text(group)))
            return origin.event(kind, at: date, account: nil, detail: detail)
        }
    }
}

/// A custom claim as the admin API answers and `latchkey admin claims … --json` prints it.
struct OIDCClaimJSON: NullKeepingBody, Equatable {
    let name: String
    let value: String
    let scope: String
    let updatedAt: Date

    init(_ claim: OIDCCustomClaim) {
        name = claim.name
        value = claim.value
        scope = claim.scope
        updatedAt = claim.updatedAt
    }
}
