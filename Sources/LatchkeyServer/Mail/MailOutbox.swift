import Logging
import Metrics
import ServiceLifecycle

/// Mail work done off the request path: a request queues a job and answers at once, so that an answer
/// never waits for (or tells by its timing) a database look-up or an SMTP server. The queue holds at most
/// `capacity` jobs — what anonymous callers send cannot grow it without bound; past it a job is dropped
/// and counted (`latchkey_mail_jobs_dropped_total`) — and at most `concurrency` run at once. Jobs live in
/// this process only: one queued when it stops is lost, and the person asks again.
///
/// It is a `Service` (`Latchkey.services`): jobs queued while it is not running wait for it.
struct MailOutbox: Service {
    typealias Job = @Sendable () async -> Void

    static let defaultCapacity = 1000
    let concurrency: Int
    private let jobs: AsyncStream<Job>
    private let continuation: AsyncStream<Job>.Continuation
    private let done: Counter
    private let dropped: Counter
    private let logger: Logger

    init(capacity: Int = MailOutbox.defaultCapacity, concurrency: Int = 2, metrics: any MetricsFactory, logger: Logger) {
        (jobs, continuation) = AsyncStream.makeStream(of: Job.self, bufferingPolicy: .bufferingOldest(capacity))
        self.concurrency = max(1, concurrency)
        done = Counter(label: "latchkey_mail_jobs_total", factory: metrics)
        dropped = Counter(label: "latchkey_mail_jobs_dropped_total", factory: metrics)
        self.logger = logger
    }

    /// Queues `job`; false (and counted) when the queue is full.
    @discardableResult
    func enqueue(_ job: @escaping Job) -> Bool {
        if case .enqueued = continuation.yield(job) { return true }
        dropped.increment()
        logger.warning("mail queue full: a mail job was dropped")
        return false
    }

    /// Runs the jobs, `concurrency` at a time, until the application stops. Every job counts in
    /// `latchkey_mail_jobs_total` when it is over, whatever came of it (one number for all outcomes: the
    /// metrics are public, and a count per outcome would tell which addresses are known).
    func run() async throws {
        let jobs = jobs, concurrency = concurrency, done = done
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                var running = 0
                for await job in jobs {
                    if running >= concurrency {
                        await group.next()
                        running -= 1
                    }
                    group.addTask {
                        await job()
                        done.increment()
                    }
                    running += 1
                }
            }
        }
        continuation.finish()
    }
}
