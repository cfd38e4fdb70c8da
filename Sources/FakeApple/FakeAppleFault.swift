/// A failure the fake Apple injects instead of (or before) its ordinary answer.
public enum FakeAppleFault: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// 429 with `Retry-After`.
    case throttled
    /// 500 or 503.
    case serverError
    /// The ordinary answer, after ``FakeAppleFaults/slowDelay``.
    case slow
    /// The connection is closed without an HTTP answer.
    case dropped
    /// A refreshed receipt signed by a key outside the simulated PKI.
    case tampered
    /// ``FakeAppleFaults/forcedStatus`` instead of the ordinary answer.
    case forcedStatus

    public var description: String { rawValue }
}
