#if canImport(Glibc)
import Glibc
#endif

/// Gives the C library's free heap pages back to the system (glibc's `malloc_trim(0)`). Start-up parses
/// documents (the API document, the AAGUID table, the schema) into short-lived trees: about 14 MiB at the
/// peak in a debug build, freed at once but kept resident by glibc's arenas, which only shrink from
/// their top — the largest part of the server's anonymous memory while idle. The server trims once it
/// listens, and after each housekeeping round (what a burst of requests left). Where there is no
/// `malloc_trim` (another C library) it does nothing.
package enum HeapTrim {
    private typealias Trim = @convention(c) (Int) -> Int32

    /// Returns what the heap can give back now; true when it gave something. `malloc_trim` is looked up
    /// at each call (Swift's Glibc module does not export `malloc.h`): a call is rare, once a round.
    @discardableResult
    package static func now() -> Bool {
        #if canImport(Glibc)
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "malloc_trim") else { return false }
        return unsafeBitCast(symbol, to: Trim.self)(0) == 1
        #else
        return false
        #endif
    }
}
