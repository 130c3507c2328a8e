import FuzzSupport

fuzzMain { data, count in
    RequestBodiesFuzzTarget.run(fuzzBytes(data, count))
    return 0
}
