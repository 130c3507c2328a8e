import LatchkeyClient
import SoftAuthenticator
import WebAuthn

/// The software authenticator as the client's `Authenticator`, with its refusals in the client's terms.
extension SoftAuthenticator: Authenticator {
    public func create(_ options: PublicKeyCredentialCreationOptionsJSON, origin: String) async throws -> RegistrationResponseJSON {
        do {
            return try makeCredential(options, origin: origin)
        } catch {
            throw ClientError.authenticatorRefused("\(error.domExceptionName): \(error)")
        }
    }

    public func get(_ options: PublicKeyCredentialRequestOptionsJSON, origin: String) async throws -> AuthenticationResponseJSON {
        do {
            return try getAssertion(options, origin: origin)
        } catch .noCredentials {
            throw ClientError.noPasskeyForServer
        } catch {
            throw ClientError.authenticatorRefused("\(error.domExceptionName): \(error)")
        }
    }
}
