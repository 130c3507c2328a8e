import HTTPTypes
import Hummingbird

/// The request's span (a server span named after the route, with `http.request.method`, `http.route`,
/// `http.response.status_code`): Hummingbird's `TracingMiddleware`, which also continues a trace the caller
/// started (a W3C `traceparent` header), shown the request without its query. The log records the path
/// alone, and so do the spans: a query can carry an `id_token_hint` or another caller's state.
///
/// `buildApplication` adds it before every other middleware, and only when `Spans` is on.
struct RequestSpanMiddleware<Context: RequestContext>: RouterMiddleware {
    private let tracing = TracingMiddleware<Context>()

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.uri.query != nil else { return try await tracing.handle(request, context: context, next: next) }
        var head = request.head
        head.path = request.uri.path
        // The route runs on the request as it came; only the span's copy lost its query.
        return try await tracing.handle(Request(head: head, body: request.body), context: context) { _, context in
            try await next(request, context)
        }
    }
}
