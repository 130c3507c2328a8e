/// The invitations' own storage, handed out by the store that every feature shares.
extension Store {
    /// The invitations' own storage (`InvitationStore`), over these connections and this audit trail.
    var invitations: InvitationStore { InvitationStore(store: self) }
}
