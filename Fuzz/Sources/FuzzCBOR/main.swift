import FuzzSupport

fuzzMain { data, count in
    CBORFuzzTarget.run(fuzzBytes(data, count))
    return 0
}
