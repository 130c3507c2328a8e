import CBOR

/// `compound` (L3 §8.9): two or more attestation statements of other formats about the same credential,
/// each verified by its own format; all must verify.
struct CompoundAttestation: AttestationStatementFormat {
    static let identifier = "compound"

    private func malformed(_ reason: String) -> WebAuthnError {
        WebAuthnError(.attestationStatementMalformed(format: Self.identifier, reason: reason))
    }

    func verify(_ input: AttestationInput) throws(WebAuthnError) -> AttestationOutcome {
        guard case .array(let items) = input.rawStatement, items.count >= 2 else {
            throw malformed("attStmt must be an array of at least two statements")
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
