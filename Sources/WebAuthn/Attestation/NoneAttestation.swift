/// `none` (§8.7): no statement at all; the statement must be the empty map.
struct NoneAttestation: AttestationStatementFormat {
    static let identifier = "none"

    func verify(_ input: AttestationInput) throws(WebAuthnError) -> AttestationOutcome {
        guard input.statement.count == 0 else {
            throw WebAuthnError(.attestationStatementMalformed(format: Self.identifier, reason: "attStmt must be an empty map"))
        }
        return AttestationOutcome(type: .none, trustPath: [])
    }
}
