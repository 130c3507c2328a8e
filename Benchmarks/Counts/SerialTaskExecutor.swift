import Foundation

/// One thread that runs every job of the workload, in the order they were enqueued: the workload runs
/// with this as its task executor preference (`withTaskExecutorPreference`), which its child tasks —
/// Hummingbird's test client, the service group, the server's task groups — inherit, and actors without
/// an executor of their own run on too. On the concurrency pool the request's tasks would race each
/// other across threads (the test client writing the body while the responder waits for it, or not
/// yet), and who wins changes how many continuations and buffers are allocated: the allocations of a
/// login moved by 2 % from run to run. In one queue the interleaving, and so the count, is the same
/// every time.
final class SerialTaskExecutor: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    /// Guarded by `condition`.
    private var jobs: [UnownedJob] = []
    private var next = 0

    init() {
        let thread = Thread { [unowned self] in self.run() }
        thread.name = "latchkey-counts"
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// The thread's loop; it never returns (the process exits when the workload is done).
    private func run() {
        while true {
            condition.lock()
            while next == jobs.count { condition.wait() }
            let job = jobs[next]
            next += 1
            if next == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                next = 0
            }
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
