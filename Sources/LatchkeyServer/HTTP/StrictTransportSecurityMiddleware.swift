import Hummingbird
import LatchkeyTransport

/// HSTS (RFC 6797) on every response of a server that speaks TLS itself (`--tls-cert`): a browser that has
/// seen it once goes to https for this host for a year, even when a link or a typed address says http, so
/// an attacker on the network cannot strip TLS from a later visit. Only over TLS: a browser ignores the
/// header on plain http, and a server behind a TLS proxy leaves the header to the proxy.
///
/// `latchkey serve` adds it before every other middleware, so the error middleware's JSON answers carry
/// it too; `MalformedHeadHandler`'s hand-written 400 adds it itself.
struct StrictTransportSecurityMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        response.headers[.strictTransportSecurity] = StrictTransportSecurity.value
        return response
    }
}
