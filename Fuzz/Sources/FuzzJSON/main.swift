import FuzzSupport

fuzzMain { data, count in
    JSONFuzzTarget.run(fuzzBytes(data, count))
    return 0
}
