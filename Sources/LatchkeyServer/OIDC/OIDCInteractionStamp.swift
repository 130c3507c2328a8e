import Crypto
import Foundation
import LatchkeyDatabase
import WebAuthn

/// When a sign-in interaction began, vouched for by the server. `prompt=login` and `max_age` ask for a
/// sign-in that happened after the request (Core §3.1.2.1); the page signs in — a new session — and asks
/// again, showing this stamp, and the session counts as fresh when it was made after the stamp's time.
/// The stamp is `<milliseconds>.<HMAC-SHA256>` under a server key, so a page cannot move it back, and it
/// is good for ten minutes.
struct OIDCInteractionStamp: Sendable {
    static let keyName = "oidc-interaction"
    static let lifetime: TimeInterval = 600

    let key: SymmetricKey

    func make(at date: Date) -> String {
        let millis = String(Timestamp.milliseconds(date))
        return millis + "." + Base64URL.encode(Array(HMAC<SHA256>.authenticationCode(for: Array(millis.utf8), using: key)))
    }

    /// The time a stamp made by `make` holds, when it is genuine and not older than `lifetime` at `now`.
    func time(of stamp: String, now: Date) -> Date? {
        let parts = stamp.split(separator: ".", maxSplits: 1)
        guard stamp.count <= 80, parts.count == 2, let millis = Int64(parts[0]), let mac = Base64URL.decode(String(parts[1])),
              HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: Array(parts[0].utf8), using: key)
        else { return nil }
        let date = Timestamp.date(millis)
        guard date <= now.addingTimeInterval(5), now.timeIntervalSince(date) <= Self.lifetime else { return nil }
        return date
    }
}
