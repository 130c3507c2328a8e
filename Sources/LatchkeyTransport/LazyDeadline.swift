import NIOCore

/// A clock that closes its channel when it runs past `limit`, with one timer per connection, armed
/// lazily: starting the clock only notes the time, and the timer, when it fires, closes the channel if
/// the clock then running is overdue, or re-arms itself for that clock's own deadline. Scheduling and
/// cancelling a timer for every request cost about 2 µs of a request's CPU (issue 16); a busy keep-alive
/// connection schedules about one per `limit`. The body deadline (`RequestDeadlineHandler`) and the head
/// deadline (`RequestHeadDeadlineHandler`) each keep one. Used on the channel's event loop only.
package final class LazyDeadline {
    package let limit: TimeAmount
    /// When the running clock started; nil while nothing is being timed.
    private(set) var started: NIODeadline?
    private var timer: Scheduled<Void>?

    package init(limit: TimeAmount) {
        self.limit = limit
    }

    /// Starts the clock now (again, if it was running) and makes sure a timer will look at it.
    package func start(context: ChannelHandlerContext) {
        let now = context.eventLoop.now
        started = now
        if timer == nil { arm(context: context, at: now + limit) }
    }

    /// Stops the clock; the timer, if armed, finds nothing to do when it fires.
    package func clear() {
        started = nil
    }

    /// Stops the clock and the timer (the channel is going away).
    package func stop() {
        timer?.cancel()
        timer = nil
        started = nil
    }

    private func arm(context: ChannelHandlerContext, at due: NIODeadline) {
        let deadline = NIOLoopBound(self, eventLoop: context.eventLoop)
        let context = NIOLoopBound(context, eventLoop: context.eventLoop)
        timer = context.value.eventLoop.scheduleTask(deadline: due) { deadline.value.check(context: context.value) }
    }

    private func check(context: ChannelHandlerContext) {
        timer = nil
        guard let started else { return }
        let due = started + limit
        if due <= context.eventLoop.now {
            context.channel.close(promise: nil)
        } else {
            arm(context: context, at: due)
        }
    }
}
