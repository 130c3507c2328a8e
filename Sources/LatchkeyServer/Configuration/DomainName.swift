/// A host name as the forward-auth settings and return addresses take it: lower-case ASCII labels of letters,
/// digits and inner hyphens, at most 63 bytes each and 253 in all (one label allowed: `localhost`). The
/// sign-up domains' check (`ServerConfiguration.isDomainName`) differs on purpose: any case, two labels at least.
enum DomainName {
    static func isLowercase(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 253 else { return false }
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        return labels.allSatisfy { label in
            !label.isEmpty && label.utf8.count <= 63 && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.unicodeScalars.allSatisfy { ($0 >= "a" && $0 <= "z") || ($0 >= "0" && $0 <= "9") || $0 == "-" }
        }
    }
}
