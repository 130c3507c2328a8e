import Hummingbird
import LatchkeyAPI
import LatchkeyDatabase
import NIOCore
import NIOHTTP1
import Logging

/// Turns every error into the API's JSON error shape, and logs each request (method, path, status,
/// duration — never headers, bodies, tokens or challenges). A database that cannot be reached is a 503
/// `database_unavailable` (every unit of work is one transaction, so nothing was half-done); other
/// unknown errors become a 500 whose body says nothing about the cause; the cause goes to the log.
struct ErrorAndLogMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        context.logger.debug("request start", metadata: ["method": "\(request.method.rawValue)", "path": "\(request.uri.path)"])
        let response: Response
        do {
            response = try await next(request, context)
        } catch let error as APIError {
            response = try error.response(from: request, context: context)
        } catch let error as HTTPError {
            response = try Self.apiError(for: error).response(from: request, context: context)
        } catch is NIOTooManyBytesError {
            response = try APIError.bodyTooLarge.response(from: request, context: context)
        } catch is HTTPParserError {
            // Reading the body found broken HTTP framing (a chunk size that is not hex, a body cut short):
            // the client's fault, and the connection cannot be trusted for another request.
            var refusal = try APIError(.malformedHTTP, "The request body's HTTP framing is malformed.")
                .response(from: request, context: context)
            refusal.headers[.connection] = "close"
            response = refusal
        } catch where DatabaseAvailability.isUnavailable(error) {
            context.logger.warning("database unavailable", metadata: ["error": "\(String(reflecting: type(of: error)))"])
            response = try APIError.databaseUnavailable.response(from: request, context: context)
        } catch {
            context.logger.error("request failed", metadata: ["error": "\(String(reflecting: type(of: error)))", "detail": "\(error)"])
            response = try APIError.internalError.response(from: request, context: context)
        }
        let elapsed = ContinuousClock.now - start
        context.logger.info("request", metadata: [
            "method": "\(request.method.rawValue)", "path": "\(request.uri.path)", "status": "\(response.status.code)",
            "duration_ms": "\(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)",
        ])
        return response
    }

    static func apiError(for error: HTTPError) -> APIError {
        switch error.status {
        case .notFound: APIError(.notFound, "There is nothing at this path.")
        case .methodNotAllowed: APIError(.methodNotAllowed, "This path does not take this method.")
        case .contentTooLarge: APIError.bodyTooLarge
        case .badRequest: APIError(.badRequest, "The request is malformed.")
        default:
            error.status.code >= 500
                ? APIError.internalError
                : APIError(.badRequest, "The request was refused (\(error.status.code)).")
        }
    }
}
