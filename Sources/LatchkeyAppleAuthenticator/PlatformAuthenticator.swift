import LatchkeyClient
import WebAuthn

/// Whatever performs the platform's passkey ceremonies given plain request values: on iOS and macOS
/// `AuthenticationServicesProvider` (ASAuthorizationController); in tests, anything that can play the
/// platform. Keeping the framework behind this seam is what lets Linux run every other line of the path.
///
/// Throw `ClientError` for refusals the user interface should tell apart (see `AuthorizationFailure`).
public protocol PlatformPasskeyProvider: Sendable {
    func register(_ request: PlatformRegistrationRequest) async throws -> PlatformRegistration
    func authenticate(_ request: PlatformAssertionRequest) async throws -> PlatformAssertion
}

/// `LatchkeyClient`'s `Authenticator` over a platform passkey provider: the server's options become plain
/// request values, the provider runs the ceremony, and its raw answer becomes the WebAuthn JSON the
/// server verifies. On Apple platforms use `PlatformAuthenticator(anchor:)`, which runs
/// AuthenticationServices; `PasskeyClient` needs nothing else.
///
/// Options the platform cannot use are the server's fault and surface as `ClientError.invalidResponse`;
/// an incomplete platform answer surfaces as `ClientError.authenticatorRefused`. The platform builds
/// clientDataJSON for the app's associated domain, so `origin` only supplies a missing RP ID.
public struct PlatformAuthenticator<Provider: PlatformPasskeyProvider>: Authenticator {
    public let provider: Provider

    public init(provider: Provider) {
        self.provider = provider
    }

    public func create(_ options: PublicKeyCredentialCreationOptionsJSON, origin: String) async throws -> RegistrationResponseJSON {
        let request: PlatformRegistrationRequest
        do {
            request = try PlatformRegistrationRequest(options: options, origin: origin)
        } catch {
            throw ClientError.invalidResponse("registration options: \(error)")
        }
        let registration = try await provider.register(request)
        do {
            return try request.response(from: registration)
        } catch {
            throw ClientError.authenticatorRefused("the platform's registration is incomplete: \(error)")
        }
    }

    public func get(_ options: PublicKeyCredentialRequestOptionsJSON, origin: String) async throws -> AuthenticationResponseJSON {
        let request: PlatformAssertionRequest
        do {
            request = try PlatformAssertionRequest(options: options, origin: origin)
        } catch {
            throw ClientError.invalidResponse("login options: \(error)")
        }
        let assertion = try await provider.authenticate(request)
        do {
            return try request.response(from: assertion)
        } catch {
            throw ClientError.authenticatorRefused("the platform's assertion is incomplete: \(error)")
        }
    }
}
