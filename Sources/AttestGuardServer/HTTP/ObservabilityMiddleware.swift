import AttestVocabulary
import Foundation
import Hummingbird
import HTTPTypes
import Logging
import Metrics

/// Gives each request an id (``RequestId``: the caller's `X-Request-Id` when it is sane, else a new UUID), puts it in the
/// logger metadata and the response, and records `attestguard_http_requests_total{route,method,status}`,
/// `attestguard_http_request_duration_seconds{route,method}` and, for error answers,
/// `attestguard_http_errors_total{status_class,code}` (``routeLabel(_:)``: `unmatched` when no route matched;
/// `/metrics` scrapes are not API traffic and are not counted).
///
/// Writes the access log: one line `request` per request with method, route, path, status, duration, the request id,
/// the API key's name, the error code of an error answer and the trace id of a W3C `traceparent` the gateway sent
/// (which every other line of the request carries too). 5xx at `error`, every other answer at `info`; of the
/// successful ones (2xx, 3xx) only `successPercent` percent, spread over the requests (``AccessLogSample``).
struct ObservabilityMiddleware: RouterMiddleware {
    typealias Context = AttestGuardRequestContext
    /// The share of successful answers logged, 0-100 (`accessLog.successPercent`).
    var successPercent = 100
    /// The request metrics' handles, kept for this server's life.
    let metrics = HTTPRequestMetrics()

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var context = context
        let requestId = request.headers[.xRequestId].flatMap(RequestId.accepting) ?? RequestId.make()
        context.requestId = requestId
        context.logger[metadataKey: "request_id"] = .string(requestId)
        // Hummingbird's own per-request id would be a second id on every line.
        context.logger[metadataKey: "hb.request.id"] = nil
        if let traceId = request.headers[.traceparent].flatMap(TraceParent.traceId) {
            context.logger[metadataKey: "trace_id"] = .string(traceId)
        }
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
        let elapsed = ContinuousClock.now - started
        let status = response.status.code
        let route = Self.routeLabel(context.endpointPath)
        if let route {
            metrics.countRequest(route: route, method: request.method.rawValue, status: Int(status))
            metrics.recordDuration(elapsed, route: route, method: request.method.rawValue)
            if let errorCode { HTTPErrorMetrics.record(errorCode, status: status) }
        }
        // The access log line's metadata is built only when the line is written: below the logger's level (the
        // `warning` a busy server runs at) or outside the successes' sample, a request costs no formatting.
        let level: Logger.Level = status >= 500 ? .error : .info
        guard context.logger.logLevel <= level,
            status >= 400 || (successPercent > 0 && (successPercent >= 100 || AccessLogSample.picks(percent: successPercent)))
        else {
            return response
        }
        var metadata: Logger.Metadata = [
            "method": .string(request.method.rawValue), "route": .string(route ?? request.uri.path), "path": .string(request.uri.path),
            "status": .stringConvertible(status), "duration_ms": .string(Self.milliseconds(elapsed)),
        ]
        if let errorCode { metadata["code"] = .string(errorCode.rawValue) }
        if let keyName = context.accessLog.apiKeyName { metadata["api_key"] = .string(keyName) }
        context.logger.log(level: level, "request", metadata: metadata)
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

    /// The statuses of the server's own failures: internal, upstream (Apple) failed, unavailable.
    static let serverErrorStatuses = [500, 502, 503]

    /// Publishes `attestguard_http_requests_total` at 0 for every route and method of `routes` with each server-error
    /// status, so that `rate()` sees a route's first 5xx (a series that appears at 1 hides its first increment).
    static func publishServerErrors(of routes: [Router<Context>.RouteDescription]) {
        for route in routes {
            guard let label = routeLabel(route.path.description) else { continue }
            for status in serverErrorStatuses {
                Counter(
                    label: MetricFamily.httpRequests.name,
                    dimensions: [("route", label), ("method", HTTPRequestMetrics.methodLabel(route.method.rawValue)), ("status", String(status))]
                ).increment(by: 0)
            }
        }
    }

    /// A duration in milliseconds with three decimals (`0.412`).
    static func milliseconds(_ duration: Duration) -> String {
        let microseconds = duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000
        let fraction = String(microseconds % 1_000)
        return "\(microseconds / 1_000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}

extension HTTPField.Name {
    static let xRequestId = HTTPField.Name("X-Request-Id")!
    static let traceparent = HTTPField.Name("traceparent")!
}
