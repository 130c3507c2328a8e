import CBOR

/// The authenticator data structure (WebAuthn L3 §6.1), parsed strictly from the exact bytes received;
/// `rawBytes` is what assertion signatures cover.
public struct AuthenticatorData: Sendable, Equatable {
    /// The flags byte (§6.1, bit 0 UP … bit 7 ED); bits 1 and 5 are reserved and ignored.
    public struct Flags: OptionSet, Sendable, Equatable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let userPresent = Flags(rawValue: 0x01)
        public static let userVerified = Flags(rawValue: 0x04)
        public static let backupEligible = Flags(rawValue: 0x08)
        public static let backupState = Flags(rawValue: 0x10)
        public static let attestedCredentialData = Flags(rawValue: 0x40)
        public static let extensionData = Flags(rawValue: 0x80)
    }

    /// Attested credential data (§6.5.2), present on registration.
    public struct AttestedCredentialData: Sendable, Equatable {
        public let aaguid: [UInt8]
        public let credentialId: [UInt8]
        /// The COSE_Key bytes exactly as the authenticator encoded them (what a server stores).
        public let publicKeyBytes: [UInt8]
        public let publicKey: COSEKey
    }

    /// Longest credential id the spec allows (§6.5.2; §7.1 step 26).
    public static let maxCredentialIdLength = 1023

    public let rawBytes: [UInt8]
    public let rpIdHash: [UInt8]
    public let flags: Flags
    public let signCount: UInt32
    public let attestedCredentialData: AttestedCredentialData?
    /// The extension outputs map, when the ED flag is set.
    public let extensions: CBORMap?

    public var userPresent: Bool { flags.contains(.userPresent) }
    public var userVerified: Bool { flags.contains(.userVerified) }
    public var backupEligible: Bool { flags.contains(.backupEligible) }
    public var backupState: Bool { flags.contains(.backupState) }

    public init(bytes: [UInt8]) throws(WebAuthnError) {
        func malformed(_ reason: String) -> WebAuthnError { WebAuthnError(.authenticatorDataMalformed(reason)) }
        var reader = ByteReader(bytes)
        do {
            rawBytes = bytes
            rpIdHash = try reader.read(32)
            flags = Flags(rawValue: try reader.readUInt8())
            signCount = try reader.readUInt32()
            if flags.contains(.attestedCredentialData) {
                let aaguid = try reader.read(16)
                let idLength = Int(try reader.readUInt16())
                guard idLength <= Self.maxCredentialIdLength else {
                    throw WebAuthnError(.credentialIdTooLong(length: idLength))
                }
                let credentialId = try reader.read(idLength)
                let (keyValue, keyLength) = try Self.decodeCBORPrefix(reader.peekRest(), what: "credential public key")
                let publicKeyBytes = try reader.read(keyLength)
                let publicKey = try COSEKey(keyValue, bytes: publicKeyBytes)
                attestedCredentialData = AttestedCredentialData(
                    aaguid: aaguid, credentialId: credentialId, publicKeyBytes: publicKeyBytes, publicKey: publicKey)
            } else {
                attestedCredentialData = nil
            }
            if flags.contains(.extensionData) {
                let (value, length) = try Self.decodeCBORPrefix(reader.peekRest(), what: "extensions")
                guard case .map(let map) = value else { throw malformed("extensions are not a CBOR map") }
                try reader.skip(length)
                extensions = map
            } else {
                extensions = nil
            }
        } catch let shortInput as ByteReader.OutOfBytes {
            throw malformed("truncated: \(shortInput.wanted) more bytes needed at offset \(shortInput.offset)")
        } catch let error as WebAuthnError {
            throw error
        } catch {
            throw malformed("\(error)")
        }
        guard reader.isAtEnd else { throw malformed("\(reader.remaining) trailing bytes after the last member") }
        // Flag consistency: BS requires BE (§6.1.3) — checked by the verifiers as their own steps.
    }

    private static func decodeCBORPrefix(_ bytes: [UInt8], what: String) throws(WebAuthnError) -> (CBORValue, Int) {
        do {
            return try CBORDecoder().decodePrefix(bytes)
        } catch {
            throw WebAuthnError(.authenticatorDataMalformed("\(what): \(error)"))
        }
    }
}
