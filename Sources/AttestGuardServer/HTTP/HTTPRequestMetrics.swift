import AttestVocabulary
import Metrics
import Synchronization

/// The handles of `attestguard_http_requests_total{route,method,status}` and
/// `attestguard_http_request_duration_seconds{route,method}`, made once per label set and kept for the server's life:
/// made per request, each handle asks the metrics factory again (a lock, the label arrays built and a lookup in the
/// Prometheus registry), a measurable share of a small request's CPU. At most ``maximumHandles`` label sets are kept;
/// past that a handle is made per request, as before, so that no request is refused a metric.
final class HTTPRequestMetrics: Sendable {
    /// Label sets kept per metric: the routes times the methods times the statuses a server answers with, with room.
    static let maximumHandles = 4_096

    private struct RequestKey: Hashable {
        let route: String
        let method: String
        let status: Int
    }

    private struct DurationKey: Hashable {
        let route: String
        let method: String
    }

    private let counters = Mutex<[RequestKey: Counter]>([:])
    private let timers = Mutex<[DurationKey: Timer]>([:])

    /// The `method` label of `method`: the methods of RFC 9110 and PATCH as they are, any other `other`, so that a
    /// client inventing methods cannot add series.
    static func methodLabel(_ method: String) -> String {
        switch method {
        case "GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT": method
        default: "other"
        }
    }

    /// Counts one answered request.
    func countRequest(route: String, method: String, status: Int) {
        let key = RequestKey(route: route, method: Self.methodLabel(method), status: status)
        let counter = counters.withLock { counters -> Counter in
            if let counter = counters[key] { return counter }
            let counter = Counter(
                label: MetricFamily.httpRequests.name,
                dimensions: [("route", key.route), ("method", key.method), ("status", String(key.status))]
            )
            if counters.count < Self.maximumHandles { counters[key] = counter }
            return counter
        }
        counter.increment()
    }

    /// Records one request's time from its head to its answer.
    func recordDuration(_ duration: Duration, route: String, method: String) {
        let key = DurationKey(route: route, method: Self.methodLabel(method))
        let timer = timers.withLock { timers -> Timer in
            if let timer = timers[key] { return timer }
            let timer = Timer(label: MetricFamily.httpRequestDuration.name, dimensions: [("route", key.route), ("method", key.method)])
            if timers.count < Self.maximumHandles { timers[key] = timer }
            return timer
        }
        timer.record(duration: duration)
    }
}
