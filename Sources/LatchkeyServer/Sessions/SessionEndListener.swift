/// Something that keeps what it learnt about sessions and must drop it when they end here — the forward-auth
/// check's cache (`ForwardAuthCache`). `SessionService` tells it on a logout and on "sign out everywhere",
/// before the rows go, so this instance never answers from memory for a session it ended; a feature that
/// keeps sessions conforms in its own folder, and Sessions/ names none of them.
protocol SessionEndListener: Sendable {
    /// The session of `tokenHash` (its SHA-256) ended.
    func sessionEnded(tokenHash: [UInt8])
    /// Every session of `accountId` ended.
    func sessionsEnded(accountId: String)
}
