import NIOCore

/// Closes a TLS connection whose handshake is not over in time: `silence` after it was accepted (a client
/// that connects and says nothing, as the idle time-out closes a silent plain-HTTP connection), and
/// `handshake` after the first byte of its ClientHello (a handshake sent a byte at a time, as the head
/// deadline closes a head sent so) — whichever comes first. Until ALPN has chosen HTTP/1.1 or HTTP/2,
/// neither protocol's own deadlines are in the pipeline, so without this a connection could sit in its
/// handshake for as long as its client liked, holding a slot.
///
/// It sits first in the pipeline, before the TLS handler, on raw bytes; `HTTPSChannel` removes it once
/// the protocol is chosen. One timer per connection.
///
/// When the server stops (`ChannelShouldQuiesceEvent`, which Hummingbird's quiescing helper sends every
/// connection) a connection still here has no request in flight and no protocol handler to end it, so it
/// is closed at once: otherwise a client that opened a socket and said nothing (browsers pre-connect) held
/// the server's stop for the whole silence time-out.
package final class TLSHandshakeDeadlineHandler: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = ByteBuffer
    package typealias InboundOut = ByteBuffer

    private let silence: TimeAmount?
    private let handshake: TimeAmount?
    private var due: NIODeadline?
    private var timer: Scheduled<Void>?
    private var heard = false

    package init(silence: TimeAmount?, handshake: TimeAmount?) {
        self.silence = silence
        self.handshake = handshake
    }

    package func handlerAdded(context: ChannelHandlerContext) {
        if let silence { arm(context: context, at: context.eventLoop.now + silence) }
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if !heard {
            heard = true
            if let handshake {
                let handshakeDue = context.eventLoop.now + handshake
                if due.map({ handshakeDue < $0 }) ?? true { arm(context: context, at: handshakeDue) }
            }
        }
        context.fireChannelRead(data)
    }

    package func channelInactive(context: ChannelHandlerContext) {
        cancel()
        context.fireChannelInactive()
    }

    package func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent {
            cancel()
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        cancel()
    }

    private func arm(context: ChannelHandlerContext, at deadline: NIODeadline) {
        timer?.cancel()
        due = deadline
        let channel = context.channel
        timer = context.eventLoop.scheduleTask(deadline: deadline) { channel.close(promise: nil) }
    }

    private func cancel() {
        timer?.cancel()
        timer = nil
        due = nil
    }
}
