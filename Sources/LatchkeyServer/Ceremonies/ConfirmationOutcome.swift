/// How a write that a confirming passkey assertion guards ended (`CeremonyService.confirm`): the store that
/// runs the write (a device's approval, `DeviceApprovalStore.approve`) answers it, and the ceremony maps it to
/// the API's errors. In Ceremonies/ because the confirmation is a ceremony's; its users depend on it, not the
/// other way round.
enum ConfirmationOutcome: Sendable {
    case approved
    case unknownChallenge
    case unknownCredential
    case rejected(Refusal)
    /// What the confirmation was for is gone (a device's request expired or was decided meanwhile).
    case requestGone

    /// A verification's refusal, carried out of the transaction (the storage does not interpret it).
    struct Refusal: Error, Sendable { let verdict: LoginVerdict }
}
