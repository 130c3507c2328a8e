/// The stretches of a workload that the counts gate measures, marked by calls to two functions whose
/// symbol names `scripts/counts` gives valgrind: `--dump-before=latchkey_counts_window_begin` and
/// `--dump-before=latchkey_counts_window_end` make callgrind write out (and restart) its counters at
/// both, and the dumps triggered by `…_end` are the windows. What runs outside the windows — start-up,
/// warm-up, the software authenticator's signing, decoding the vectors' JSON — is in the other dumps,
/// so only the code under test moves the figures. (`--zero-before` at the opening would save half the
/// dumps, but callgrind 3.19 does not restart the dump's summary there when the program has threads.)
///
/// The counters are process-wide: the instructions of every thread that works for the request while a
/// window is open (the event loop, the concurrency pool, SQLite) are counted.
/// `@_silgen_name` fixes the symbols (a Swift-mangled name would change with the module or signature);
/// `@inline(never)` keeps each a real call in a release build too.
final class MeasuredWindow {
    /// Windows opened so far; `scripts/counts` checks that it found as many dumps.
    private(set) var count = 0

    func measure<T>(_ body: () async throws -> T) async throws -> T {
        latchkeyCountsWindowBegin()
        defer {
            latchkeyCountsWindowEnd()
            count += 1
        }
        return try await body()
    }
}

@_silgen_name("latchkey_counts_window_begin")
@inline(never)
func latchkeyCountsWindowBegin() {}

@_silgen_name("latchkey_counts_window_end")
@inline(never)
func latchkeyCountsWindowEnd() {}
