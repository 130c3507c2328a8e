import Foundation

/// What a browser checks before it lets a page use an RP ID (WebAuthn L3 §5.1.3 step 8 / §5.1.4.1
/// step 7): the origin is a secure context, and the RP ID is its host or a registrable domain suffix.
enum OriginCheck {
    /// The origin's host, after checking it is https, or http on localhost.
    static func host(of origin: String) throws(SoftAuthenticatorError) -> String {
        guard let components = URLComponents(string: origin), let scheme = components.scheme?.lowercased(),
              let host = components.host?.lowercased(), !host.isEmpty,
              components.path.isEmpty || components.path == "/", components.query == nil, components.fragment == nil
        else { throw .invalidOrigin(origin) }
        let isLocal = host == "localhost" || host.hasSuffix(".localhost") || host == "127.0.0.1" || host == "[::1]"
        guard scheme == "https" || (scheme == "http" && isLocal) else { throw .invalidOrigin(origin) }
        return host
    }

    /// The RP ID to use: the one asked for, checked against the origin, or the origin's host.
    ///
    /// An Android app's origin (`android:apk-key-hash:` and the base64url SHA-256 of its signing
    /// certificate) has no host: Credential Manager lets the app use the RP ID it asks for once the site's
    /// `assetlinks.json` lists the app, and the relying party then checks the origin itself. Acting as such
    /// an app, the authenticator takes the requested RP ID (one must be given).
    static func rpId(_ requested: String?, origin: String) throws(SoftAuthenticatorError) -> String {
        if origin.hasPrefix(androidOriginPrefix) {
            let hash = origin.dropFirst(androidOriginPrefix.count)
            guard hash.utf8.count == 43, hash.utf8.allSatisfy({ $0.isBase64URLCharacter }), let requested, !requested.isEmpty else {
                throw .invalidOrigin(origin)
            }
            return requested.lowercased()
        }
        let host = try host(of: origin)
        guard let requested else { return host }
        let rpId = requested.lowercased()
        if rpId == host { return rpId }
        // A registrable suffix: the host ends in "." + rpId, rpId is a domain (not an IP address) and has
        // more than one label (no public suffix such as "com"; without the Public Suffix List, a single
        // label is the conservative stand-in).
        let isIPAddress = host.allSatisfy { $0.isNumber || $0 == "." } || host.hasPrefix("[")
        guard !isIPAddress, host.hasSuffix("." + rpId), rpId.contains("."), !rpId.hasPrefix("."), !rpId.hasSuffix(".") else {
            throw .rpIdNotValidForOrigin(rpId: requested, origin: origin)
        }
        return rpId
    }
}

/// The prefix of an Android app's origin in client data.
let androidOriginPrefix = "android:apk-key-hash:"

private extension UInt8 {
    var isBase64URLCharacter: Bool {
        (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self) || (0x30...0x39).contains(self) || self == 0x2D || self == 0x5F
    }
}
