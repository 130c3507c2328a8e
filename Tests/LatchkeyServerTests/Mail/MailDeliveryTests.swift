import Foundation
import Logging
import MetricsTestKit
import NIOConcurrencyHelpers
import Testing
@testable import LatchkeyServer

/// How a mail gets out, in process: `MailSender` tries a passing failure again (a 4xx, unlike the
/// closed connection `SMTPStartTLSTests` tries three times for nothing) and the next attempt delivers;
/// a 5xx to the recipient is given up at once. `MailOutbox` bounds what waits and what runs: a job past
/// its capacity is dropped and counted, the queued ones run once the outbox does, `concurrency` at a time.
@Suite("Mail delivery: retries and the outbox")
struct MailDeliveryTests {
    @Test("a 4xx is passing: the sender tries again after its delay, and the second attempt delivers")
    func passingFailureThenDelivered() async throws {
        let relay = try await TestRelay(startTLS: .notOffered, requireTLS: false, replies: ["MAIL": "451 4.3.0 try again later"], misbehaving: 1)
        let outcome = try await SMTPStartTLSTests.sendThroughSender(try SMTPStartTLSTests.client(relay, scheme: .startTLSWhenOffered, trustRoots: nil))
        try await relay.stop()
        #expect(outcome.sent && outcome.failures == 0, "\(outcome.lines)")
        #expect(relay.connections == 2 && relay.messages.count == 1)
        #expect(outcome.lines.count == 2, "\(outcome.lines)")
        #expect(outcome.lines.first?.contains("trying again") == true && outcome.lines.first?.contains("451 4.3.0") == true, "\(outcome.lines)")
        #expect(outcome.lines.last?.contains("mail sent") == true, "\(outcome.lines)")
    }

    @Test("a 5xx to the recipient is permanent: one attempt, one line, counted, no mail")
    func permanentRefusal() async throws {
        let relay = try await TestRelay(startTLS: .notOffered, requireTLS: false, replies: ["RCPT": "550 5.1.1 no such user"])
        let outcome = try await SMTPStartTLSTests.sendThroughSender(try SMTPStartTLSTests.client(relay, scheme: .startTLSWhenOffered, trustRoots: nil))
        try await relay.stop()
        #expect(!outcome.sent && outcome.failures == 1)
        #expect(relay.connections == 1 && relay.messages.isEmpty, "not tried again")
        #expect(outcome.lines.count == 1 && outcome.lines.first?.contains("550 5.1.1 no such user") == true, "\(outcome.lines)")
        #expect(outcome.lines.first?.contains("ada@latchkey.test") == false, "the recipient is not logged: \(outcome.lines)")
    }

    @Test("the outbox drops and counts a job past its capacity; the queued ones run once it runs, never more than its concurrency at once")
    func outboxBounds() async throws {
        let metrics = TestMetrics()
        let outbox = MailOutbox(capacity: 4, concurrency: 2, metrics: metrics, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        struct Tally { var running = 0, most = 0, done = 0 }
        let tally = NIOLockedValueBox(Tally())
        let job: MailOutbox.Job = {
            tally.withLockedValue { $0.running += 1; $0.most = max($0.most, $0.running) }
            try? await Task.sleep(for: .milliseconds(40))
            tally.withLockedValue { $0.running -= 1; $0.done += 1 }
        }
        let queued = (0..<5).map { _ in outbox.enqueue(job) }
        #expect(queued == [true, true, true, true, false], "capacity 4")
        #expect(metrics.counterTotal(label: "latchkey_mail_jobs_dropped_total") == 1)
        #expect(tally.withLockedValue { $0.done } == 0, "nothing runs before the outbox does")

        let running = Task { try await outbox.run() }
        // Up to a minute: the whole suite shares two cores' cooperative threads with the jobs (it failed once at 10 s on a
        // loaded machine); the wait ends as soon as the condition holds.
        #expect(try await eventually(within: 60) { tally.withLockedValue { $0.done } == 4 })
        #expect(try await eventually(within: 60) { metrics.counterTotal(label: "latchkey_mail_jobs_total") == 4 })
        #expect(outbox.enqueue(job), "room again once the queue emptied")
        #expect(try await eventually(within: 60) { tally.withLockedValue { $0.done } == 5 })
        running.cancel()
        _ = try? await running.value
        #expect(tally.withLockedValue { $0.most } == 2, "at most two at once")
    }
}
