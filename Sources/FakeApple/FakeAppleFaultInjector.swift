import Hummingbird
import NIOCore

/// Applies ``FakeAppleFaults`` to one request: answers 429, 5xx or the forced status instead of the handler,
/// closes the connection, or waits before letting the handler answer.
struct FakeAppleFaultInjector: Sendable {
    let faults: FakeAppleFaults
    let state: FakeAppleState
    let sleep: @Sendable (Duration) async throws -> Void

    /// The answer to send instead of the ordinary one, or `nil` to go on (after a slow fault's delay).
    /// - Parameter key: The request's fault key (receipt token or device identity, prefixed by the path).
    func intercept(key: String, context: FakeAppleRequestContext) async throws -> Response? {
        let attempt = state.nextAttempt(forKey: key)
        guard let fault = faults.fault(forKey: key, attempt: attempt) else { return nil }
        state.recordInjected(fault)
        switch fault {
        case .throttled:
            var headers = HTTPFields()
            headers[.retryAfter] = String(faults.retryAfterSeconds)
            return FakeAppleResponses.text(429, "Too Many Requests", headers: headers)
        case .serverError:
            let status = faults.serverErrorStatus(forKey: key, attempt: attempt)
            return FakeAppleResponses.text(status, status == 503 ? "Service Unavailable" : "Internal Server Error")
        case .forcedStatus:
            let status = faults.forcedStatus ?? 500
            return FakeAppleResponses.text(status, "Injected status \(status)")
        case .dropped:
            try? await context.channel.close()
            return FakeAppleResponses.empty(500)
        case .slow:
            try await sleep(faults.slowDelay)
            return nil
        case .tampered:
            return nil
        }
    }
}
