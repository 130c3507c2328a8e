/// The parts of a stored credential record (§4 "credential record") that authentication needs.
public struct StoredCredential: Sendable {
    public let id: [UInt8]
    public let publicKey: COSEKey
    public let signCount: UInt32
    /// The BE flag stored at registration; nil when unknown (then §7.2 step 19 is skipped).
    public let backupEligible: Bool?
    /// The user handle of the account that owns the credential; nil when the caller already matched it.
    public let userHandle: [UInt8]?

    public init(id: [UInt8], publicKey: COSEKey, signCount: UInt32, backupEligible: Bool? = nil, userHandle: [UInt8]? = nil) {
        self.id = id
        self.publicKey = publicKey
        self.signCount = signCount
        self.backupEligible = backupEligible
        self.userHandle = userHandle
    }

    /// A record whose public key is still COSE-encoded, as databases keep it.
    public init(
        id: [UInt8], publicKeyCOSE: [UInt8], signCount: UInt32, backupEligible: Bool? = nil, userHandle: [UInt8]? = nil
    ) throws(WebAuthnError) {
        self.init(
            id: id, publicKey: try COSEKey(bytes: publicKeyCOSE), signCount: signCount,
            backupEligible: backupEligible, userHandle: userHandle)
    }
}
