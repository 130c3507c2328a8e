import CLibFuzzer
import Foundation

/// Runs libFuzzer's loop over `target` with this process's arguments (`-max_total_time=…`, corpus
/// directories, …) and exits with its status. SwiftPM links executables with their own `main`, so the
/// targets start libFuzzer through `LLVMFuzzerRunDriver` rather than libFuzzer's `main`.
///
/// `setUp` builds the target's fixed state before the first input, outside leak detection (see
/// CLibFuzzer.h), so that what lives for the whole run is not reported as a leak of the first input.
public func fuzzMain(setUp: () -> Void = {}, _ target: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
    __lsan_disable()
    setUp()
    __lsan_enable()
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, target))
}
