import FuzzSupport

fuzzMain(setUp: { _ = RegistrationFuzzTarget.verifier }) { data, count in
    RegistrationFuzzTarget.run(fuzzBytes(data, count))
    return 0
}
