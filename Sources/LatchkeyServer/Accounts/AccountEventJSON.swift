import Foundation
import WebAuthn

/// One event of a person's own history (`GET /api/account/events`): what happened, when, with which
/// passkey and provider, from which device — enough to spot a sign-in that was not theirs. An
/// operator's action shows as such, without the operator's key or address.
struct AccountEventJSON: NullKeepingBody {
    let id: String
    let at: Date
    let event: String
    let passkeyId: String?
    /// The passkey's provider (from its AAGUID), while the passkey exists and the provider is known.
    let provider: String?
    /// Browser and system from the user agent, approximately; null for an operator's action.
    let device: String?
    let clientAddress: String?
    /// The service's operator did this (`latchkey admin`, the admin API).
    let byOperator: Bool
    let detail: [String: AuditDetailValue]

    init(_ event: AuditEvent, providers: [[UInt8]: String]) {
        id = event.id.map(String.init) ?? ""
        at = event.at
        self.event = event.kind.rawValue
        passkeyId = event.credentialId.map(Base64URL.encode)
        provider = event.credentialId.flatMap { providers[$0] }
        byOperator = event.origin.actor == "cli" || event.origin.actor.hasPrefix("admin:")
        device = byOperator ? nil : UserAgentSummary.describe(event.origin.userAgent)
        clientAddress = byOperator ? nil : event.origin.clientAddress
        var detail = AuditDetailValue.object(event.detail)
        detail["keyId"] = nil
        self.detail = detail
    }
}

/// A page of a person's events, newest first; `next` is the cursor of the page after (null on the last).
struct AccountEventPageJSON: NullKeepingBody {
    let events: [AccountEventJSON]
    let next: String?
}
