import Foundation

/// One app (OpenID Connect client) a person let in, as "Apps with access" lists it: the person
/// consented to it, or holds a live grant for it (a first-party client asks no consent).
struct OIDCAppAccess: Sendable, Equatable {
    let clientId: String
    let clientName: String
    /// What it may learn or do: the consent's scopes and those of the live grants, in
    /// `OIDCScope.supported`'s order.
    let scopes: [String]
    /// When the person first let it in, as far as the database still knows: the consent, or the oldest
    /// grant on record.
    let consentedAt: Date
    /// The latest sign-in to it or refresh of its tokens; nil when no grant is on record.
    let lastUsedAt: Date?
    /// Whether an operator gave the client a logo (`OIDCClientLogo`).
    var hasLogo = false
}
