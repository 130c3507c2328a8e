import Crypto
import Foundation
import WebAuthn

/// An Android app allowed to use this relying party's passkeys (`--android-app PACKAGE:FINGERPRINT`).
///
/// Android's Credential Manager checks the site's `/.well-known/assetlinks.json` for the app's package
/// and signing-certificate fingerprint before it lets the app use the site's passkeys, and then puts
/// the app's own origin in the client data: `android:apk-key-hash:` and the base64url (no padding) of the
/// SHA-256 of the app's signing certificate — the same 32 bytes as the fingerprint `keytool` prints as
/// `AA:BB:…`. That origin is accepted exactly like a web origin, and no other `android:` origin is.
public struct AndroidApp: Sendable, Equatable, CustomStringConvertible {
    /// The application id, e.g. `com.example.app`.
    public let packageName: String
    /// SHA-256 of the app's signing certificate.
    public let fingerprint: [UInt8]

    /// Parses `PACKAGE:AA:BB:…` (the fingerprint as `keytool -list -v` prints it: 32 hex bytes, colons
    /// between them, either case).
    public init(parsing text: String) throws(ServerConfiguration.Invalid) {
        guard let colon = text.firstIndex(of: ":") else {
            throw .init(description: "--android-app must be PACKAGE:SHA256_FINGERPRINT (as keytool prints it, AA:BB:…), not \"\(Self.printable(text))\"")
        }
        let package = String(text[..<colon]), hex = text[text.index(after: colon)...]
        guard Self.isPackageName(package) else {
            throw .init(description: "the Android package name \"\(Self.printable(package))\" is not valid (letters, digits and _, in at least two dot-separated parts each starting with a letter)")
        }
        let pairs = hex.split(separator: ":", omittingEmptySubsequences: false)
        let bytes = pairs.compactMap { pair -> UInt8? in pair.count == 2 ? UInt8(pair, radix: 16) : nil }
        guard pairs.count == 32, bytes.count == 32 else {
            throw .init(description: "the signing-certificate fingerprint of \(package) must be 32 hex bytes separated by colons (SHA-256, as keytool prints it), not \"\(Self.printable(String(hex)))\"")
        }
        self.packageName = package
        self.fingerprint = bytes
    }

    /// The origin Android puts in the client data for this app.
    public var origin: String { Self.originPrefix + Base64URL.encode(fingerprint) }

    /// The fingerprint as `assetlinks.json` and `keytool` write it: upper-case hex pairs, colon-separated.
    public var fingerprintText: String { fingerprint.map { String(format: "%02X", $0) }.joined(separator: ":") }

    public var description: String { "\(packageName):\(fingerprintText)" }

    static let originPrefix = "android:apk-key-hash:"

    /// Java package naming as Android requires of an application id: two or more segments, each a letter
    /// followed by letters, digits or underscores.
    static func isPackageName(_ name: String) -> Bool {
        let segments = name.split(separator: ".", omittingEmptySubsequences: false)
        return name.utf8.count <= 255 && segments.count >= 2 && segments.allSatisfy { segment in
            guard let first = segment.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic else { return false }
            return segment.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_") }
        }
    }

    /// At most 80 characters of what was given, for a message (it may be anything).
    private static func printable(_ text: String) -> String {
        String(text.unicodeScalars.prefix(80).map { $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F ? Character($0) : "?" })
    }
}
