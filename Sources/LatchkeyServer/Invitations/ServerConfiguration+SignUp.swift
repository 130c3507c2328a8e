import Foundation
import LatchkeyAPI

extension SignUpPolicy {
    /// The one refusal of a sign-up the policy does not allow, in every way in.
    static let refusal = APIError(.signupClosed, "New accounts here are by invitation only: ask the service's operator for an invitation link.")
}

extension ServerConfiguration {
    /// Refuses a new account made without an invitation (`SignUpPolicy.refusal`) unless the policy is `open`.
    func requireOpenSignUp() throws(APIError) {
        guard effectiveSignUp.admitsStrangers else { throw SignUpPolicy.refusal }
    }

    /// `--signup-domain`'s rules (part of `validate()`): domain names, mailed through `--smtp-url`, and a
    /// policy that takes new accounts by invitation.
    func validateSignUpDomains() throws(Invalid) {
        guard !signUpDomains.isEmpty else { return }
        for domain in signUpDomains where !Self.isDomainName(domain) {
            throw Invalid(description: "--signup-domain must be a domain name (example.com), not \(domain)")
        }
        guard smtpURL != nil else {
            throw Invalid(description: "--signup-domain needs --smtp-url: the sign-up links are mailed through it")
        }
        guard effectiveSignUp != .closed else {
            throw Invalid(description: "--signup-domain lets people sign up, and --signup closed lets nobody: use --signup invite")
        }
    }

    /// Whether `domain` is one `--signup-domain` takes: dot-separated labels of letters, digits and dashes.
    static func isDomainName(_ domain: String) -> Bool {
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        return domain.utf8.count <= 253 && labels.count >= 2 && labels.allSatisfy { label in
            (1...63).contains(label.utf8.count) && label.first != "-" && label.last != "-"
                && label.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-") }
        }
    }

    /// Whether `address` (already checked to be one) is at one of the `--signup-domain`s, in any case.
    func admitsSignUp(byEmail address: String) -> Bool {
        guard let at = address.lastIndex(of: "@") else { return false }
        let domain = address[address.index(after: at)...].lowercased()
        return signUpDomains.contains { $0.lowercased() == domain }
    }
}
