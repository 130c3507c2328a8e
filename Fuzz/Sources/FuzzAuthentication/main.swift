import FuzzSupport

fuzzMain(setUp: { _ = AuthenticationFuzzTarget.record }) { data, count in
    AuthenticationFuzzTarget.run(fuzzBytes(data, count))
    return 0
}
