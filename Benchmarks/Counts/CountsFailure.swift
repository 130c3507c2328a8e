/// Why a workload of `latchkey-counts` could not run as it must (a wrong vectors file, a request the
/// server refused): the run stops with this sentence rather than count something else.
struct CountsFailure: Error, CustomStringConvertible {
    let description: String
}
