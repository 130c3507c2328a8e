import HTTPTypes
import Hummingbird
import LatchkeyAPI
import LatchkeyTransport
import Metrics

/// Applies the rate limiter to the API: it is the `/api` route group's middleware, so it sees every
/// request the router resolves to an API route, whatever the raw path looked like; the page, its files,
/// `/healthz`, `/metrics` and the well-known documents are not counted. A refused request gets 429
/// `rate_limited` with `Retry-After`. With a shared limit (instances on one PostgreSQL), a request the
/// instance's own limiter lets through is also counted in the shared bucket.
struct RateLimitMiddleware<Context: RemoteAddressRequestContext>: RouterMiddleware {
    let limiter: RateLimiter
    let shared: SharedRateLimit?
    /// Behind a reverse proxy every connection comes from the proxy (`ClientAddress`).
    let trustForwardedFor: Bool
    let refused: Counter

    init(limiter: RateLimiter, shared: SharedRateLimit? = nil, trustForwardedFor: Bool, refused: Counter) {
        self.limiter = limiter
        self.shared = shared
        self.trustForwardedFor = trustForwardedFor
        self.refused = refused
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let client = client(of: request, context: context) else {
            return try await next(request, context)
        }
        var decision = limiter.admit(client)
        if decision == .allowed, let shared {
            decision = await shared.admit(client)
        }
        switch decision {
        case .allowed:
            return try await next(request, context)
        case .limited(let seconds):
            refused.increment()
            var response = try APIError(.rateLimited, "Too many requests from this address; try again in \(seconds) seconds."
            ).response(from: request, context: context)
            response.headers[.retryAfter] = "\(seconds)"
            return response
        }
    }

    private func client(of request: Request, context: Context) -> RateLimitClient? {
        if let last = ClientAddress.forwarded(in: request, trusted: trustForwardedFor), let client = RateLimitClient(text: last) {
            return client
        }
        return context.remoteAddress.flatMap(RateLimitClient.init)
    }
}
