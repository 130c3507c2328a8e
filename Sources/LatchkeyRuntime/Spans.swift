import Tracing

/// The spans Latchkey makes (docs/operating.md, Tracing): the ceremony, its WebAuthn verification and
/// each database unit of work, under the request's span that `RequestSpanMiddleware` opens.
///
/// Off unless a tracer was bootstrapped (`InstrumentationSystem.bootstrap`, which `latchkey serve` does
/// from the `OTEL_*` variables) before the value was made: `Latchkey.open` makes its values after that,
/// once. Off, `span` is one test of a stored `Bool` and a direct call of the body: no tracer look-up (a
/// lock and dynamic casts in swift-distributed-tracing), no clock read, no task-local context pushed.
package struct Spans: Sendable {
    /// Whether spans are made at all.
    package let isOn: Bool

    /// On when the process's tracer is not swift-distributed-tracing's no-op one.
    package init() {
        isOn = !(InstrumentationSystem.tracer is NoOpTracer)
    }

    package init(isOn: Bool) {
        self.isOn = isOn
    }

    /// Runs `body` inside a span named `name`, a child of the task's current span (or of `parent`), or
    /// runs it plainly when off (`body` then gets nil). A thrown error is recorded on the span and marks
    /// it failed.
    package func span<R>(
        _ name: String, parent: InstrumentationContext? = nil, isolation: isolated (any Actor)? = #isolation,
        _ body: ((any Tracing.Span)?) async throws -> R
    ) async rethrows -> R {
        guard isOn else { return try await body(nil) }
        return try await withSpan(name, context: parent ?? .current ?? .topLevel) { span in try await body(span) }
    }

    /// The synchronous `span`: for work that runs where the task's context is not the caller's, such as a
    /// SQLite commit group running every member's body in its leader's task (then `parent` says whose it is).
    /// Its errors keep their type (the verifiers throw `WebAuthnError` only).
    package func span<R, Failure: Error>(
        _ name: String, parent: InstrumentationContext? = nil, _ body: ((any Tracing.Span)?) throws(Failure) -> R
    ) throws(Failure) -> R {
        guard isOn else { return try body(nil) }
        let result: Result<R, Failure> = withSpan(name, context: parent ?? .current ?? .topLevel) { span in
            do throws(Failure) {
                return .success(try body(span))
            } catch {
                span.recordError(error)
                span.setStatus(SpanStatus(code: .error))
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// The task's current context, to hand to work that runs in another task (nil when off: nothing read).
    package var context: InstrumentationContext? {
        isOn ? InstrumentationContext.current : nil
    }
}
