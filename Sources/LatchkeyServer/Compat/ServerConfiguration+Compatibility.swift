import Foundation

extension ServerConfiguration {
    /// The compatibility APIs' settings: the PassKeysDemo path (`CompatibilityAPI`).
    func validateCompatibility() throws(Invalid) {
        if let problem = CompatibilityAPI.problem(withPassKeysDemoPath: passKeysDemoPath) {
            throw Invalid(description: "the PassKeysDemo path (--compat-passkeysdemo-path) \(problem), not \"\(passKeysDemoPath)\"")
        }
    }
}
