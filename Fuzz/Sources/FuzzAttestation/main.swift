import FuzzSupport

fuzzMain(setUp: { _ = AttestationFuzzTarget.relyingParty }) { data, count in
    AttestationFuzzTarget.run(fuzzBytes(data, count))
    return 0
}
