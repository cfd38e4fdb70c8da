import AttestVocabulary
import Metrics

/// `attestguard_http_errors_total{status_class,code}`: every error answer by its stable code, so that an alert on
/// 5xx answers can leave out configuration states that are no failure of the service (`devicecheck_unavailable`:
/// Apple's credentials are not configured). The codes are the registry's, so the label is bounded; each is
/// published at 0 from the start in the class it is answered with.
enum HTTPErrorMetrics {
    static let clientErrors = "4xx"
    static let serverErrors = "5xx"

    /// The codes answered with a 5xx status: the store or Apple unavailable or failing, the server's own faults
    /// (`gateway_unauthorized` is the gateway's key being refused, a configuration fault answered with 500).
    static let serverErrorCodes: Set<ErrorCode> = [
        .internalError, .storeUnavailable, .gatewayUnauthorized, .devicecheckUnavailable, .devicecheckUnauthorized,
        .devicecheckForbidden, .devicecheckMethodNotAllowed, .devicecheckServerError, .devicecheckTimedOut,
        .devicecheckConnectionFailed, .devicecheckUnexpectedResponse, .httpError,
    ]

    /// Codes only the shipped gateway configurations answer; AttestGuard never does.
    static let gatewayOnlyCodes: Set<ErrorCode> = [.attestguardUnavailable, .gatewayHeaderForbidden, .gatewayError]

    /// Publishes every code at 0 in its class (`http_error` in both: it carries whatever status the HTTP layer chose).
    static func publishZeros() {
        for code in ErrorCode.allCases where !gatewayOnlyCodes.contains(code) {
            if serverErrorCodes.contains(code) { counter(serverErrors, code).increment(by: 0) }
            if !serverErrorCodes.contains(code) || code == .httpError { counter(clientErrors, code).increment(by: 0) }
        }
    }

    /// Counts one error answer.
    static func record(_ code: ErrorCode, status: Int) {
        counter(status >= 500 ? serverErrors : clientErrors, code).increment()
    }

    private static func counter(_ statusClass: String, _ code: ErrorCode) -> Counter {
        Counter(label: MetricFamily.httpErrors.name, dimensions: [("status_class", statusClass), ("code", code.rawValue)])
    }
}
