import Foundation

/// Runs async work to completion from libFuzzer's synchronous callback (the registration verifier is
/// async because certificate path validation is). The callback thread waits on a semaphore while the
/// work runs on the cooperative pool, which never needs that thread.
public func runBlocking<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        box.value = await work()
        done.signal()
    }
    done.wait()
    return box.value!
}

/// Carries the result across the semaphore; the semaphore orders the write before the read.
private final class ResultBox<T>: @unchecked Sendable {
    var value: T?
}
