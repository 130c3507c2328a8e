import FuzzSupport

fuzzMain { data, count in
    ClientDataFuzzTarget.run(fuzzBytes(data, count))
    return 0
}
