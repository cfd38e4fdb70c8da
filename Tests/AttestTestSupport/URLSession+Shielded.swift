public import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

extension URLSession {
    /// `data(for:)`, shielded from the calling task's cancellation: the request runs in a detached task, which is not
    /// cancelled with the task awaiting it, so it ends with an answer or its own timeout.
    ///
    /// On Linux, swift-corelibs-foundation's async `data(for:)` cancels its `URLSessionTask` from the task's
    /// cancellation handler, which runs while holding the task's status lock and waits synchronously for the session's
    /// queue; when that queue is at the same moment resuming the same task's continuation (the answer arrived), it
    /// needs the lock, and the two threads deadlock. The test process then hangs, its CPU idle (seen when a test
    /// cancelled a loop of requests in the middle of one). Tests send every request through this instead.
    public func dataShieldedFromCancellation(for request: URLRequest) async throws -> (Data, URLResponse) {
        let session = UncheckedSendable(self)
        let answer = try await Task.detached { () async throws -> UncheckedSendable<(Data, URLResponse)> in
            UncheckedSendable(try await session.value.data(for: request))
        }.value
        return answer.value
    }

    /// ``dataShieldedFromCancellation(for:)`` for a GET of `url`.
    public func dataShieldedFromCancellation(from url: URL) async throws -> (Data, URLResponse) {
        try await dataShieldedFromCancellation(for: URLRequest(url: url))
    }
}

/// Carries a value Foundation on Linux does not mark `Sendable` (`URLSession`, `URLResponse`) across a task boundary;
/// each is handed from one task to the other and not used by both at once.
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
