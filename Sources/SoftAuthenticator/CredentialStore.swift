import Foundation

/// Where the software authenticator keeps its state. Reads and writes are whole-state so that a
/// file implementation can replace its file atomically.
public protocol CredentialStore: Sendable {
    func load() throws(SoftAuthenticatorError) -> AuthenticatorState
    func save(_ state: AuthenticatorState) throws(SoftAuthenticatorError)
}

/// A store that lives as long as the process: for tests and short-lived tools.
public final class InMemoryCredentialStore: CredentialStore, @unchecked Sendable {
    private let lock = NSLock()
    private var state: AuthenticatorState

    public init(_ state: AuthenticatorState = AuthenticatorState()) {
        self.state = state
    }

    public func load() -> AuthenticatorState {
        lock.withLock { state }
    }

    public func save(_ state: AuthenticatorState) {
        lock.withLock { self.state = state }
    }
}
