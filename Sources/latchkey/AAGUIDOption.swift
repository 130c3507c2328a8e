import ArgumentParser
import Foundation

/// `--aaguid UUID`: the AAGUID the software authenticator writes into the passkeys it makes, so that a
/// person (or a test) can see how a relying party names a provider — Apple Passwords' (iCloud Keychain)
/// is fbfc3007-154e-4ecc-8c0b-6e020557d7bd, Google Password Manager's ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4.
enum AAGUIDOption {
    static let help: ArgumentHelp = "The AAGUID new passkeys carry (a UUID; default the software authenticator's own)."

    static func bytes(_ text: String?) throws -> [UInt8]? {
        guard let text else { return nil }
        guard let uuid = UUID(uuidString: text) else {
            throw ValidationError("--aaguid must be a UUID such as fbfc3007-154e-4ecc-8c0b-6e020557d7bd, not \"\(text)\"")
        }
        return withUnsafeBytes(of: uuid.uuid) { Array($0) }
    }
}
