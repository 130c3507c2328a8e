// Compiled only where AuthenticationServices exists (iOS and macOS); Linux builds and tests everything
// else in this target. This file is not built or tested by `scripts/test`: it only turns the plain
// request values into AuthenticationServices objects and the framework's answers back into plain values.
#if canImport(AuthenticationServices) && (os(iOS) || os(macOS))
import AuthenticationServices
import Foundation
import LatchkeyClient

/// The platform passkey provider of iOS and macOS: runs `ASAuthorizationController` with platform
/// (iCloud Keychain, or the user's credential-provider app) passkey requests, presenting from the window
/// `anchor` gives. The app needs the `webcredentials:` associated domain of the server's RP ID, and the
/// server must list the app among its Apple app ids (`--apple-app-id`) and its origin among `--origin`.
@available(iOS 16.0, macOS 13.0, *)
public struct AuthenticationServicesProvider: PlatformPasskeyProvider {
    private let anchor: @MainActor @Sendable () -> ASPresentationAnchor

    /// - Parameter anchor: the window to present the passkey sheet from, asked for on the main actor
    ///   each time a ceremony starts (e.g. `{ view.window! }` is wrong if the view can leave its window:
    ///   return the scene's key window).
    public init(anchor: @escaping @MainActor @Sendable () -> ASPresentationAnchor) {
        self.anchor = anchor
    }

    public func register(_ request: PlatformRegistrationRequest) async throws -> PlatformRegistration {
        try await Self.register(request, anchor: anchor)
    }

    public func authenticate(_ request: PlatformAssertionRequest) async throws -> PlatformAssertion {
        try await Self.authenticate(request, anchor: anchor)
    }

    @MainActor
    private static func register(
        _ request: PlatformRegistrationRequest, anchor: @MainActor @Sendable () -> ASPresentationAnchor
    ) async throws -> PlatformRegistration {
        let provider = ASAuthorizationPlatformPublicKeyCredentialProvider(relyingPartyIdentifier: request.relyingPartyIdentifier)
        let platformRequest = provider.createCredentialRegistrationRequest(
            challenge: Data(request.challenge), name: request.userName, userID: Data(request.userID))
        platformRequest.displayName = request.userDisplayName
        platformRequest.userVerificationPreference = request.userVerification.authenticationServices
        platformRequest.attestationPreference = request.attestation.authenticationServices
        // Passkey registration requests honour excludedCredentials from iOS 17.4 and macOS 14.4; before,
        // the server's own check (a second passkey on the same device is refused at verify) still holds.
        if #available(iOS 17.4, macOS 14.4, *) {
            platformRequest.excludedCredentials = request.excludedCredentialIDs.map {
                ASAuthorizationPlatformPublicKeyCredentialDescriptor(credentialID: Data($0))
            }
        }
        switch try await AuthorizationSession(anchor: anchor()).perform(platformRequest) {
        case .registration(let registration): return registration
        case .assertion: throw ClientError.authenticatorRefused("AuthenticationServices answered a registration with an assertion")
        }
    }

    @MainActor
    private static func authenticate(
        _ request: PlatformAssertionRequest, anchor: @MainActor @Sendable () -> ASPresentationAnchor
    ) async throws -> PlatformAssertion {
        let provider = ASAuthorizationPlatformPublicKeyCredentialProvider(relyingPartyIdentifier: request.relyingPartyIdentifier)
        let platformRequest = provider.createCredentialAssertionRequest(challenge: Data(request.challenge))
        platformRequest.userVerificationPreference = request.userVerification.authenticationServices
        // Empty for Latchkey's discoverable login: the sheet offers every passkey for the RP.
        platformRequest.allowedCredentials = request.allowedCredentialIDs.map {
            ASAuthorizationPlatformPublicKeyCredentialDescriptor(credentialID: Data($0))
        }
        switch try await AuthorizationSession(anchor: anchor()).perform(platformRequest) {
        case .assertion(let assertion): return assertion
        case .registration: throw ClientError.authenticatorRefused("AuthenticationServices answered a login with a registration")
        }
    }
}

@available(iOS 16.0, macOS 13.0, *)
extension PlatformAuthenticator where Provider == AuthenticationServicesProvider {
    /// The `Authenticator` an iOS or macOS app gives `PasskeyClient`: passkeys through AuthenticationServices,
    /// the sheet presented from the window `anchor` returns.
    public init(anchor: @escaping @MainActor @Sendable () -> ASPresentationAnchor) {
        self.init(provider: AuthenticationServicesProvider(anchor: anchor))
    }
}

/// One run of an `ASAuthorizationController`, its delegate callbacks turned into one async result. The
/// framework's credential objects are read into plain values here, on the main actor, so that nothing
/// non-Sendable leaves it.
@available(iOS 16.0, macOS 13.0, *)
@MainActor
private final class AuthorizationSession: NSObject, ASAuthorizationControllerDelegate,
    ASAuthorizationControllerPresentationContextProviding
{
    enum Outcome: Sendable {
        case registration(PlatformRegistration)
        case assertion(PlatformAssertion)
    }

    private let anchor: ASPresentationAnchor
    private var controller: ASAuthorizationController?
    private var continuation: CheckedContinuation<Outcome, any Error>?

    init(anchor: ASPresentationAnchor) {
        self.anchor = anchor
    }

    func perform(_ request: ASAuthorizationRequest) async throws -> Outcome {
        let controller = ASAuthorizationController(authorizationRequests: [request])
        controller.delegate = self
        controller.presentationContextProvider = self
        // The controller holds its delegate weakly; this session holds the controller until it finishes.
        self.controller = controller
        return try await withCheckedThrowingContinuation { continuation in
            self.continuation = continuation
            controller.performRequests()
        }
    }

    func authorizationController(controller: ASAuthorizationController, didCompleteWithAuthorization authorization: ASAuthorization) {
        switch authorization.credential {
        case let registration as ASAuthorizationPlatformPublicKeyCredentialRegistration:
            finish(.success(.registration(PlatformRegistration(
                credentialID: [UInt8](registration.credentialID), rawClientDataJSON: [UInt8](registration.rawClientDataJSON),
                rawAttestationObject: registration.rawAttestationObject.map { [UInt8]($0) },
                attachment: Self.attachment(of: registration)))))
        case let assertion as ASAuthorizationPlatformPublicKeyCredentialAssertion:
            // rawAuthenticatorData, signature and userID are implicitly unwrapped: read them as optionals.
            let authenticatorData: Data? = assertion.rawAuthenticatorData
            let signature: Data? = assertion.signature
            let userID: Data? = assertion.userID
            finish(.success(.assertion(PlatformAssertion(
                credentialID: [UInt8](assertion.credentialID), rawClientDataJSON: [UInt8](assertion.rawClientDataJSON),
                rawAuthenticatorData: authenticatorData.map { [UInt8]($0) }, signature: signature.map { [UInt8]($0) },
                userID: userID.map { [UInt8]($0) }, attachment: Self.attachment(of: assertion)))))
        default:
            finish(.failure(ClientError.authenticatorRefused(
                "AuthenticationServices returned \(type(of: authorization.credential)), not a platform passkey")))
        }
    }

    func authorizationController(controller: ASAuthorizationController, didCompleteWithError error: any Error) {
        if let authorizationError = error as? ASAuthorizationError {
            finish(.failure(AuthorizationFailure.clientError(
                code: authorizationError.code.rawValue, message: authorizationError.localizedDescription)))
        } else {
            finish(.failure(ClientError.authenticatorRefused(error.localizedDescription)))
        }
    }

    func presentationAnchor(for controller: ASAuthorizationController) -> ASPresentationAnchor {
        anchor
    }

    private func finish(_ result: Result<Outcome, any Error>) {
        continuation?.resume(with: result)
        continuation = nil
        controller = nil
    }

    private static func attachment(of registration: ASAuthorizationPlatformPublicKeyCredentialRegistration) -> PlatformAttachment? {
        guard #available(iOS 16.6, macOS 13.5, *) else { return nil }
        return PlatformAttachment(registration.attachment)
    }

    private static func attachment(of assertion: ASAuthorizationPlatformPublicKeyCredentialAssertion) -> PlatformAttachment? {
        guard #available(iOS 16.6, macOS 13.5, *) else { return nil }
        return PlatformAttachment(assertion.attachment)
    }
}

extension PlatformAttachment {
    @available(iOS 16.6, macOS 13.5, *)
    init?(_ attachment: ASAuthorizationPublicKeyCredentialAttachment) {
        switch attachment {
        case .platform: self = .platform
        case .crossPlatform: self = .crossPlatform
        @unknown default: return nil
        }
    }
}

extension PlatformUserVerification {
    var authenticationServices: ASAuthorizationPublicKeyCredentialUserVerificationPreference {
        switch self {
        case .required: ASAuthorizationPublicKeyCredentialUserVerificationPreference.required
        case .preferred: ASAuthorizationPublicKeyCredentialUserVerificationPreference.preferred
        case .discouraged: ASAuthorizationPublicKeyCredentialUserVerificationPreference.discouraged
        }
    }
}

extension PlatformAttestation {
    var authenticationServices: ASAuthorizationPublicKeyCredentialAttestationKind {
        switch self {
        case .none: ASAuthorizationPublicKeyCredentialAttestationKind.none
        case .indirect: ASAuthorizationPublicKeyCredentialAttestationKind.indirect
        case .direct: ASAuthorizationPublicKeyCredentialAttestationKind.direct
        case .enterprise: ASAuthorizationPublicKeyCredentialAttestationKind.enterprise
        }
    }
}
#endif
