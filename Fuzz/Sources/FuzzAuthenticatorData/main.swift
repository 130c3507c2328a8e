import FuzzSupport

fuzzMain { data, count in
    AuthenticatorDataFuzzTarget.run(fuzzBytes(data, count))
    return 0
}
