import LatchkeyRuntime
import Foundation

/// A lock that waits by suspending, for work that spans several statements (a transaction); holders do
/// not suspend while they hold it, so it is held for microseconds.
package final class AsyncLock: @unchecked Sendable {
    private let state = NSLock()
    private var locked = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    package func acquire() async {
        if tryAcquire() { return }
        await withCheckedContinuation { continuation in
            enqueue(continuation)
        }
    }

    private func tryAcquire() -> Bool {
        state.withLock {
            guard !locked else { return false }
            locked = true
            return true
        }
    }

    /// Queues the waiter, unless the lock was released in the meantime: then it is taken at once.
    private func enqueue(_ continuation: CheckedContinuation<Void, Never>) {
        let acquired: Bool = state.withLock {
            if !locked {
                locked = true
                return true
            }
            waiters.append(continuation)
            return false
        }
        if acquired { continuation.resume() }
    }

    package func release() {
        let next: CheckedContinuation<Void, Never>? = state.withLock {
            if waiters.isEmpty {
                locked = false
                return nil
            }
            return waiters.removeFirst()
        }
        next?.resume() // ownership passes to the next waiter
    }
}
