import Foundation

/// Runs async work to completion from libFuzzer's synchronous callback (the registration verifier is
/// async because certificate path validation is). The task starts on this thread (`Task.immediate`) and
/// usually finishes without suspending; if it does suspend, the rest runs on the cooperative pool while
/// this thread waits.
///
/// The wait ends only when the task has released its closure (`ReleaseSignal`), not when the result is
/// written: otherwise what the closure captured is still alive when libFuzzer checks the input for
/// leaks, and LeakSanitizer reports it (it did, now and then, on the attestation target).
public func runBlocking<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T {
    let box = ResultBox<T>()
    let released = DispatchSemaphore(value: 0)
    do {
        let signal = ReleaseSignal(released)
        Task.immediate {
            box.value = await work()
            withExtendedLifetime(signal) {}
        }
    }
    released.wait()
    return box.value!
}

/// Carries the result across the semaphore; the semaphore orders the write before the read.
private final class ResultBox<T>: @unchecked Sendable {
    var value: T?
}

/// Signals when the last reference to it goes: when the task's closure is freed.
private final class ReleaseSignal: Sendable {
    let semaphore: DispatchSemaphore
    init(_ semaphore: DispatchSemaphore) { self.semaphore = semaphore }
    deinit { semaphore.signal() }
}
