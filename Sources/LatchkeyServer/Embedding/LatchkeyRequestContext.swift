import Hummingbird
import LatchkeyAPI

/// What Latchkey needs from an application's request context to serve its routes inside that
/// application: the peer address (the rate limit keys on it) and a place for the signed-in account,
/// which `LatchkeyAuthenticationMiddleware` fills for the application's own handlers.
///
/// ```swift
/// struct AppContext: LatchkeyRequestContext {
///     var coreContext: CoreRequestContextStorage
///     let remoteAddress: SocketAddress?
///     var latchkeyAccount: LatchkeyAccount?
///     init(source: ApplicationRequestContextSource) {
///         coreContext = .init(source: source)
///         remoteAddress = source.channel.remoteAddress
///     }
/// }
/// ```
public protocol LatchkeyRequestContext: RequestContext, RemoteAddressRequestContext {
    /// The account that signed in with a passkey, once the authentication middleware has run; nil for
    /// an anonymous request.
    var latchkeyAccount: LatchkeyAccount? { get set }
}

/// A signed-in account, as the application's handlers see it.
public struct LatchkeyAccount: Sendable, Equatable {
    /// The account's id (a UUID, lowercase): the key to store the application's own data under.
    public let id: String
    public let displayName: String
    public let credo: String
    /// The caller as the authentication middleware found it — the session token it presented and the
    /// whole account record: Latchkey's own routes need them (logout ends this session, removing a
    /// passkey keeps it, the account route answers with the record it already read); never shown to
    /// the application.
    let caller: RequestAuthentication.Caller?

    public init(id: String, displayName: String, credo: String) {
        self.id = id
        self.displayName = displayName
        self.credo = credo
        self.caller = nil
    }

    init(_ caller: RequestAuthentication.Caller) {
        self.id = caller.account.id
        self.displayName = caller.account.displayName
        self.credo = caller.account.credo
        self.caller = caller
    }

    public static func == (lhs: LatchkeyAccount, rhs: LatchkeyAccount) -> Bool {
        lhs.id == rhs.id && lhs.displayName == rhs.displayName && lhs.credo == rhs.credo && lhs.caller?.token == rhs.caller?.token
    }
}

extension LatchkeyRequestContext {
    /// The signed-in caller that `LatchkeyAuthenticationMiddleware` put into the context: what Latchkey's
    /// own protected routes act for. A handler behind the middleware always finds one; anywhere else it
    /// is a 401.
    func signedInCaller() throws -> RequestAuthentication.Caller {
        guard let caller = latchkeyAccount?.caller else { throw APIError.notAuthenticated }
        return caller
    }

    /// The caller when the request came with a session, nil for an anonymous one (behind the middleware
    /// with `required: false`).
    func optionalCaller() -> RequestAuthentication.Caller? {
        try? signedInCaller()
    }
}
