import AttestVocabulary
import Foundation
import Hummingbird
import HTTPTypes
import Logging
import Metrics

/// Gives each request an id (``RequestId``: the caller's `X-Request-Id` when it is sane, else a new UUID), puts it in the
/// logger metadata and the response, and records `attestguard_http_requests_total{route,method,status}` and
/// `attestguard_http_request_duration_seconds{route,method}` (``routeLabel(_:)``: `unmatched` when no route matched;
/// `/metrics` scrapes are not API traffic and are not counted). Logs one line per request: `debug` for
/// success, `info` for 4xx, `error` for 5xx; an error answer's line names its code.
struct ObservabilityMiddleware: RouterMiddleware {
    typealias Context = AttestGuardRequestContext

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var context = context
        let requestId = request.headers[.xRequestId].flatMap(RequestId.accepting) ?? RequestId.make()
        context.requestId = requestId
        context.logger[metadataKey: "request_id"] = .string(requestId)
        let started = ContinuousClock.now
        var response: Response
        var errorCode: ErrorCode?
        do {
            response = try await next(request, context)
        } catch let error as APIError {
            response = try error.response(from: request, context: context)
            errorCode = error.code
        } catch {
            context.logger.error("unhandled error", metadata: ["error": .string(String(reflecting: error))])
            response = try APIError(.internalServerError, code: .internalError, "internal error (request \(requestId))")
                .response(from: request, context: context)
            errorCode = .internalError
        }
        response.headers[.xRequestId] = requestId
        let status = String(response.status.code)
        if let route = Self.routeLabel(context.endpointPath) {
            Counter(label: MetricFamily.httpRequests.name, dimensions: [("route", route), ("method", request.method.rawValue), ("status", status)])
                .increment()
            Timer(label: MetricFamily.httpRequestDuration.name, dimensions: [("route", route), ("method", request.method.rawValue)])
                .recordInterval(since: started)
            if let errorCode { HTTPErrorMetrics.record(errorCode, status: response.status.code) }
        }
        var metadata: Logger.Metadata = ["method": .string(request.method.rawValue), "path": .string(request.uri.path), "status": .string(status)]
        if let errorCode { metadata["code"] = .string(errorCode.rawValue) }
        switch response.status.code {
        case 500...: context.logger.error("request", metadata: metadata)
        case 400..<500: context.logger.info("request", metadata: metadata)
        default: context.logger.debug("request", metadata: metadata)
        }
        return response
    }

    /// The `route` label of a request whose matched route is `endpointPath`: the route's path; `unmatched` when no
    /// route matched (Hummingbird's router marks those `NotFound`); nil for `/metrics`, whose scrapes are not counted.
    static func routeLabel(_ endpointPath: String?) -> String? {
        switch endpointPath {
        case nil, "NotFound": "unmatched"
        case "/metrics": nil
        case let path?: path
        }
    }
}

extension HTTPField.Name {
    static let xRequestId = HTTPField.Name("X-Request-Id")!
}

extension Timer {
    func recordInterval(since start: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - start
        let (seconds, attoseconds) = elapsed.components
        recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
