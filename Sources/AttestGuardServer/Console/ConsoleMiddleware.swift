import AttestGuardEngine
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// On every console response: the headers a page of its kind needs (its own resources only, nothing cached, no
/// framing, no referrer, no sniffing), and refusals drawn as an HTML page with their status and code instead of the
/// API's JSON. A failure of the server itself is a 500 page that says nothing of the cause (it is logged).
struct ConsoleMiddleware: RouterMiddleware {
    typealias Context = AttestGuardRequestContext

    /// `default-src 'self'`: the page's stylesheet and nothing else; no script, inline style, frame or plugin.
    static let contentSecurityPolicy = "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    let templates: ConsoleTemplates
    let clock: any EngineClock

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as APIError {
            response = refusal(error)
        } catch let error as EngineError {
            response = refusal(APIError(error, now: clock.now()))
        } catch is NIOTooManyBytesError {
            response = refusal(APIError(.contentTooLarge, code: .bodyTooLarge, "the form is larger than this page takes"))
        } catch let error as any HTTPResponseError where error.status.code < 500 {
            response = refusal(APIError(error.status, code: .httpError, "the request was refused (\(error.status.code))"))
        } catch {
            context.logger.error("console page failed", metadata: ["error": .string(String(reflecting: error))])
            response = refusal(APIError(.internalServerError, code: .internalError, "the page could not be drawn (request \(context.requestId))"))
        }
        response.headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
        response.headers[.cacheControl] = "no-store"
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[.xFrameOptions] = "DENY"
        // Not `no-referrer`: under it a browser posts the console's own forms with `Origin: null`, and the login and
        // logout check where a form came from. `same-origin` sends nothing to another site either.
        response.headers[.referrerPolicy] = "same-origin"
        return response
    }

    private func refusal(_ error: APIError) -> Response {
        var headers = error.headers
        if let seconds = error.retryAfterSeconds { headers[.retryAfter] = String(seconds) }
        let view = ErrorPage(
            frame: .signedOut("HTTP \(error.status.code)"), status: error.status.code, code: error.code.rawValue, message: error.message
        )
        return templates.page("error", view, status: error.status, headers: headers)
    }
}

/// Lets a request through when its session cookie names a key that may still use the console, with the key in the
/// context; otherwise 303 to the login page (an absent, expired, altered or forged cookie alike).
struct ConsoleSessionMiddleware: RouterMiddleware {
    typealias Context = AttestGuardRequestContext

    let authority: ConsoleAuthority
    let clock: any EngineClock

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let key = authority.key(of: request, now: clock.now()) else {
            return Response(status: .seeOther, headers: [.location: "/console/login"])
        }
        var context = context
        context.apiKey = key
        context.logger[metadataKey: "api_key"] = .string(key.name)
        context.accessLog.apiKeyName = key.name
        return try await next(request, context)
    }
}

extension HTTPField.Name {
    static let xFrameOptions = HTTPField.Name("X-Frame-Options")!
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
}
