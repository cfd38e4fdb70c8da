import AttestGuardEngine
import Hummingbird
import NIOHTTP1

/// Turns engine refusals, Hummingbird's own errors (unknown route, body too large) and broken HTTP framing
/// (`HTTPParserError`, thrown while a body is read) into the contract's JSON error bodies. Anything else propagates
/// to ``ObservabilityMiddleware`` as a logged 500.
struct ErrorMappingMiddleware: RouterMiddleware {
    typealias Context = AttestGuardRequestContext
    let clock: any EngineClock

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as EngineError {
            throw APIError(error, now: clock.now())
        } catch let error as HTTPParserError {
            throw APIError.malformedRequest("the HTTP message is malformed (\(error))")
        } catch let error as HTTPError {
            switch error.status {
            case .notFound: throw APIError(.notFound, code: .notFound, "no such route")
            case .methodNotAllowed: throw APIError(.methodNotAllowed, code: .methodNotAllowed, "method not allowed on this route")
            case .contentTooLarge: throw APIError(.contentTooLarge, code: .bodyTooLarge, "the body is too large")
            default: throw APIError(error.status, code: .httpError, error.body ?? error.status.reasonPhrase)
            }
        } catch {
            guard let unavailable = EngineError(storeFailure: error) else { throw error }
            throw APIError(unavailable, now: clock.now())
        }
    }
}
