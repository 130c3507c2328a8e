import NIOCore

/// The end of the channel pipeline that hands SMTP replies to whoever waits for one (`SMTPClient`), one
/// at a time, each with its deadline: past it, or when the connection fails or closes, the waiter gets
/// the error and the connection is closed. Lives on its channel's event loop (`next(timeout:step:)` is
/// called there).
final class SMTPConversation: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = SMTPReply

    private var context: ChannelHandlerContext?
    private var waiting: (promise: EventLoopPromise<SMTPReply>, deadline: Scheduled<Void>, step: String)?
    /// Replies that came before anyone asked (a server may pipeline them): a handful at most.
    private var early: [SMTPReply] = []
    private var ended: (any Error)?

    /// Why the conversation ended, the first cause (a failed TLS handshake, a deadline, the server closing);
    /// nil while it goes on. `SMTPConnection` reports it for a write the ended conversation made fail.
    var endCause: (any Error)? { ended }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }
    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

    /// The next reply, within `timeout`; `step` names what was awaited in the error. Called on `eventLoop`,
    /// the channel's.
    func next(on eventLoop: any EventLoop, timeout: TimeAmount, step: String) -> EventLoopFuture<SMTPReply> {
        if !early.isEmpty { return eventLoop.makeSucceededFuture(early.removeFirst()) }
        if let ended {
            // Closed before this step asked: this step is the one that found it closed.
            if let failure = ended as? SMTPFailure, case .closed = failure { return eventLoop.makeFailedFuture(SMTPFailure.closed(step: step)) }
            return eventLoop.makeFailedFuture(ended)
        }
        guard let context else { return eventLoop.makeFailedFuture(SMTPFailure.closed(step: step)) }
        guard waiting == nil else { return eventLoop.makeFailedFuture(SMTPFailure.protocolError("two replies awaited at once")) }
        let promise = context.eventLoop.makePromise(of: SMTPReply.self)
        let conversation = NIOLoopBound(self, eventLoop: eventLoop)
        let deadline = eventLoop.scheduleTask(in: timeout) {
            conversation.value.fail(SMTPFailure.timedOut(step: step))
        }
        waiting = (promise, deadline, step)
        return promise.futureResult
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let reply = unwrapInboundIn(data)
        if let waiting {
            self.waiting = nil
            waiting.deadline.cancel()
            waiting.promise.succeed(reply)
        } else if early.count < 4 {
            early.append(reply)
        } else {
            fail(SMTPFailure.protocolError("the server sent replies nobody asked for"))
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(SMTPFailure.closed(step: waiting?.step ?? "the conversation"))
        context.fireChannelInactive()
    }

    /// Ends the conversation: the waiter (if any) and every later `next` get `error`; the connection closes.
    private func fail(_ error: any Error) {
        if ended == nil { ended = error }
        if let waiting {
            self.waiting = nil
            waiting.deadline.cancel()
            waiting.promise.fail(error)
        }
        context?.close(promise: nil)
    }
}
