import CBOR

/// `compound` (L3 §8.9): two or more attestation statements of other formats about the same credential,
/// each verified by its own format; all must verify.
struct CompoundAttestation: AttestationStatementFormat {
    static let identifier = "compound"
    /// Most statements verified for one credential. §8.9 asks for two or more; no authenticator in the
    /// shared vectors sends compound at all, and four covers a platform statement plus a few others.
    static let maximumStatements = 4

    private func malformed(_ reason: String) -> WebAuthnError {
        WebAuthnError(.attestationStatementMalformed(format: Self.identifier, reason: reason))
    }

    func verify(_ input: AttestationInput) throws(WebAuthnError) -> AttestationOutcome {
        guard case .array(let items) = input.rawStatement, items.count >= 2 else {
            throw malformed("attStmt must be an array of at least two statements")
        }
        // Checked before any statement is verified: each costs signature checks, and nothing real sends
        // more than a few.
        guard items.count <= Self.maximumStatements else {
            throw malformed("attStmt has \(items.count) statements, more than the limit of \(Self.maximumStatements)")
        }
        var outcomes: [AttestationOutcome] = []
        for (index, item) in items.enumerated() {
            guard case .map(let entry) = item, let fmt = entry[text: "fmt"]?.textValue, let statement = entry[text: "attStmt"] else {
                throw malformed("statement \(index) is not {fmt, attStmt}")
            }
            guard fmt != Self.identifier else { throw malformed("statement \(index) is itself compound") }
            let format = try AttestationFormats.format(named: fmt)
            outcomes.append(try format.verify(input.replacingStatement(with: statement)))
        }
        // The first statement's type and trust path stand for the whole: every one of them verified.
        return outcomes[0]
    }
}
