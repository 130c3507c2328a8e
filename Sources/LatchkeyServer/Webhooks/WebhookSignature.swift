import Crypto
import Foundation

/// The signature a receiver checks (the scheme Stripe uses): the header
/// `Latchkey-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`. The time is inside
/// what is signed, so a receiver that refuses a `t` more than a few minutes old refuses replays; `v1`
/// names the scheme, so a later one can be sent beside it during a change.
enum WebhookSignature {
    static let header = "Latchkey-Signature"

    static func value(body: [UInt8], timestamp: Int64, secret: [UInt8]) -> String {
        var signed = Array("\(timestamp).".utf8)
        signed.append(contentsOf: body)
        let mac = HMAC<SHA256>.authenticationCode(for: signed, using: SymmetricKey(data: secret))
        return "t=\(timestamp),v1=" + mac.map { String(format: "%02x", $0) }.joined()
    }
}
