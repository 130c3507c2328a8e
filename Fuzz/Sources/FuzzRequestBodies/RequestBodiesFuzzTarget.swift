import Foundation
import FuzzSupport
import WebAuthn
// `@testable`: LatchkeyAPI's declarations are `package`, which another package sees only this way (the
// main package builds it with -enable-testing under LATCHKEY_FUZZ_INSTRUMENT=1).
@testable import LatchkeyAPI

/// The server's request-body decoders: `RequestBody.decode` (the strict parser, then the type's own
/// reader) for every `JSONReadable` body of the API, then the field rules the controllers apply to what
/// decoded. These are the server's own types from its LatchkeyAPI target (APIModels, RequestBody,
/// APIError, ErrorCode, InputRules and its profile rules), which has no Hummingbird, so the bodies are fuzzed as the server
/// reads them without building the HTTP stack.
///
/// The first byte picks the body type, the rest is the body. What must hold is what keeps every answer a
/// 4xx: a body is refused only with a 400 `APIError`, and a decoded field only with a 422 `APIError`.
enum RequestBodiesFuzzTarget {
    static func run(_ bytes: [UInt8]) {
        guard let selector = bytes.first else { return }
        let body = Data(bytes.dropFirst())
        switch selector % 6 {
        case 0:
            guard let request = decode(RegistrationOptionsRequest.self, body) else { return }
            if let name = request.displayName { checkRule { try InputRules.displayName(name) } }
            if let name = request.name { checkRule { try InputRules.passkeyName(name) } }
        case 1:
            guard let request = decode(RegistrationVerifyRequest.self, body) else { return }
            _ = InputRules.transports(request.credential.response.transports ?? [])
        case 2:
            guard let request = decode(LoginVerifyRequest.self, body), let results = request.credential.clientExtensionResults.prf?.results else { return }
            checkPRF { try InputRules.prfResults(results) }
        case 3:
            // The account's PATCH bodies: the person's, and the operator's profile (OpenID Connect) and
            // client bodies, read from the same bytes.
            if let request = decode(AccountUpdateRequest.self, body) {
                if let name = request.displayName { checkRule { try InputRules.displayName(name) } }
                if let credo = request.credo { checkRule { try InputRules.credo(credo) } }
                if let name = request.username.value { checkRule { try InputRules.username(name) } }
            }
            if let profile = decode(AccountProfileRequest.self, body) {
                if let name = profile.username.value { checkRule { try InputRules.username(name) } }
                if let email = profile.email.value { checkRule { try InputRules.email(email) } }
                for group in profile.groups.value ?? [] { checkRule { try InputRules.groupName(group, field: "groups") } }
            }
            if let client = decode(OIDCClientRequest.self, body) {
                for group in client.allowedGroups ?? [] { checkRule { try InputRules.groupName(group, field: "allowedGroups") } }
            }
        case 4:
            guard let request = decode(RenamePasskeyRequest.self, body) else { return }
            checkRule { try InputRules.passkeyName(request.name) }
        default:
            guard let request = decode(LoginOptionsRequest.self, body), let prf = request.prf else { return }
            checkPRF { try InputRules.prfInputs(prf) }
        }
    }

    /// The PRF rules: a value is refused only with a 422, and an accepted one is canonical base64url of
    /// the allowed sizes, for at most `InputRules.prfCredentials` credentials.
    private static func checkPRF<T>(_ rule: () throws -> T) {
        do {
            let accepted = try rule()
            let values: [PRFValuesJSON]
            switch accepted {
            case let inputs as PRFInputsJSON:
                fuzzCheck((inputs.evalByCredential?.count ?? 0) <= InputRules.prfCredentials, "more credentials than allowed")
                values = [inputs.eval].compactMap { $0 } + (inputs.evalByCredential.map { Array($0.values) } ?? [])
            case let outputs as PRFValuesJSON:
                values = [outputs]
            default:
                values = []
            }
            for text in values.flatMap({ [$0.first] + [$0.second].compactMap { $0 } }) {
                let bytes = Base64URL.decode(text)
                fuzzCheck(bytes.map { Base64URL.encode($0) == text && (1...64).contains($0.count) } == true, "an accepted PRF value is not canonical")
            }
        } catch let error as APIError {
            fuzzCheck(error.kind == .invalidField, "a PRF value refused with \(error.kind), not 422")
        } catch {
            fuzzCheck(false, "a PRF value refused with \(type(of: error)), which the server answers with 500")
        }
    }

    private static func decode<T: JSONReadable>(_ bodyType: T.Type, _ body: Data) -> T? {
        do {
            return try RequestBody.decode(bodyType, from: body)
        } catch let error as APIError {
            fuzzCheck(error.kind == .badRequest, "\(T.self): a body refused with \(error.kind), not 400")
        } catch {
            fuzzCheck(false, "\(T.self): a body refused with \(type(of: error)), which the server answers with 500")
        }
        return nil
    }

    private static func checkRule(_ rule: () throws -> String) {
        do {
            let accepted = try rule()
            fuzzCheck(accepted.utf8.count <= InputRules.textBytes, "a rule accepted \(accepted.utf8.count) bytes")
        } catch let error as APIError {
            fuzzCheck(error.kind == .invalidField, "a field refused with \(error.kind), not 422")
        } catch {
            fuzzCheck(false, "a field refused with \(type(of: error)), which the server answers with 500")
        }
    }
}
