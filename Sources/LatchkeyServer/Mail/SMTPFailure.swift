/// Why a message was not handed over. `isPermanent` (the server refused it for good: a 5xx reply, a
/// password it would not take, TLS that failed, a message that cannot be written) means trying again is pointless;
/// everything else (a time-out, a closed connection, a 4xx) may pass later.
enum SMTPFailure: Error, Sendable, CustomStringConvertible {
    case timedOut(step: String)
    case closed(step: String)
    case protocolError(String)
    /// A reply that is not the positive one the step needs.
    case refused(step: String, reply: SMTPReply)
    /// Latchkey will not do this without TLS (send a password over a network in clear, or mail to a relay
    /// that does not offer the STARTTLS smtp+starttls:// requires), or TLS failed — a
    /// certificate it does not trust, a handshake the server broke, over smtps:// or after STARTTLS: the
    /// configuration's to fix, not a moment's.
    case insecure(String)
    case invalidMessage(MailMessage.Invalid)

    var isPermanent: Bool {
        switch self {
        case .refused(_, let reply): reply.code >= 500
        case .insecure, .invalidMessage: true
        case .timedOut, .closed, .protocolError: false
        }
    }

    var description: String {
        switch self {
        case .timedOut(let step): "the SMTP server did not answer \(step) in time"
        case .closed(let step): "the SMTP server closed the connection during \(step)"
        case .protocolError(let reason): "SMTP protocol error: \(reason)"
        case .refused(let step, let reply): "the SMTP server refused \(step): \(reply)"
        case .insecure(let reason): reason
        case .invalidMessage(let invalid): invalid.description
        }
    }
}
