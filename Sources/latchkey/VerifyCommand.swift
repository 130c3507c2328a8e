import ArgumentParser
import Foundation
import WebAuthn

/// `latchkey verify`: the offline ceremony debugger. Reads one vector-shaped document and prints the
/// verified result, or the step that failed.
struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Verify a WebAuthn registration or authentication offline.",
        discussion: """
            Reads a JSON document with the credential and the relying party's expectations (the schema of \
            the shared test vectors: credential, expected_challenge, expected_origins, expected_rp_id, \
            require_user_verification, stored_credential, verification_time, attestation_trust.roots_pem, \
            policy) from FILE or standard input.
            Exit status: 0 verified (result JSON on stdout); 1 verification failed (error JSON on stdout); \
            2 the document is unusable (message on stderr).
            """
    )

    enum Kind: String, ExpressibleByArgument, CaseIterable {
        case registration
        case authentication
    }

    @Argument(help: "registration or authentication")
    var ceremony: Kind

    @Argument(help: "The document to read; standard input when omitted or '-'.")
    var file: String?

    func run() async throws {
        let data: Data
        do {
            if let file, file != "-" {
                data = try Data(contentsOf: URL(fileURLWithPath: file))
            } else {
                data = FileHandle.standardInput.readDataToEndOfFile()
            }
        } catch {
            throw usage("cannot read \(file ?? "standard input"): \(error.localizedDescription)")
        }

        let outcome: CeremonyDocument.Outcome
        do {
            let document = try CeremonyDocument(json: data)
            outcome = try await document.verify(as: ceremony == .registration ? .registration : .authentication)
        } catch let failure as WebAuthnError {
            Output.printJSON(["error": ["code": failure.code, "message": failure.message]])
            throw ExitCode(1)
        } catch let unusable as CeremonyDocument.Unusable {
            throw usage(unusable.description)
        }
        Output.printJSON(VerifyResultJSON.object(for: outcome))
    }

    private func usage(_ message: String) -> ExitCode {
        Output.printError("latchkey verify: \(message).")
        return ExitCode(2)
    }
}
