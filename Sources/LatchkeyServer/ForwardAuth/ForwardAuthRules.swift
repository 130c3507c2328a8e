import Foundation

/// The `--forward-auth-rule`s in order, and what they decide for one request: the first rule whose host
/// and path match decides; a request none matches is refused (default deny: a host added to the proxy
/// and forgotten here is closed, not open).
struct ForwardAuthRules: Sendable {
    let rules: [ForwardAuthRule]

    /// What a request needs.
    enum Verdict: Sendable, Equatable {
        /// Pass, as anyone (or a member of a group) signed in.
        case pass
        /// Sign in first, or again (`fresh`: the passkey was used longer ago than the rule's max-age).
        case signIn(fresh: Bool)
        /// Refused: nobody may (`groups` empty), or only members of `groups`.
        case refused(groups: [String])
    }

    /// The rule that decides `host`/`path` (path already normalized by `ForwardAuthPath`), nil for none.
    func rule(host: String, path: String) -> ForwardAuthRule? {
        rules.first { $0.matches(host: host, path: path) }
    }

    /// The verdict for `identity` (nil: nobody signed in) at `now`.
    func verdict(host: String, path: String, identity: ForwardAuthIdentity?, now: Date) -> Verdict {
        guard let rule = rule(host: host, path: path) else { return .refused(groups: []) }
        if case .deny = rule.policy { return .refused(groups: []) }
        guard let identity else { return .signIn(fresh: false) }
        if let maxAge = rule.maxAge, now.timeIntervalSince(identity.authenticatedAt) > TimeInterval(maxAge) {
            return .signIn(fresh: true)
        }
        switch rule.policy {
        case .signedIn: return .pass
        case .groups(let needed):
            return identity.groups.contains(where: needed.contains) ? .pass : .refused(groups: needed)
        case .deny: return .refused(groups: [])
        }
    }
}
