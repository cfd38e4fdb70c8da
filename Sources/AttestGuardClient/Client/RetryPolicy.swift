/// How often and how patiently the client retries App Attest's `serverUnavailable` (Apple unreachable or
/// throttling), always with the same key, and how long it then leaves attestation alone.
public struct RetryPolicy: Sendable, Hashable {
    /// Tries of one `attestKey` or `generateAssertion`, the first included.
    public var attempts: Int
    /// The wait after the first failure; each later wait doubles, up to ``maximumDelay``.
    public var initialDelay: Double
    /// The longest wait between two tries, in seconds.
    public var maximumDelay: Double
    /// After attestation gave up (`serverUnavailable` on every try), requests go unattested, with
    /// `X-AppAttest-Status: throttled`, for this many seconds before the client attests again.
    public var attestationCooldown: Double
    /// After a session token could not be bought, requests carry assertions for this many seconds before the client
    /// asks for a token again.
    public var sessionTokenCooldown: Double

    /// The default tries App Attest four times, after waits of 1, 2 and 4 seconds, and then leaves attestation alone
    /// for five minutes, and session tokens for one. Values below their minimum (one attempt, no wait) are raised to it.
    public init(
        attempts: Int = 4, initialDelay: Double = 1, maximumDelay: Double = 16, attestationCooldown: Double = 300, sessionTokenCooldown: Double = 60
    ) {
        self.attempts = max(1, attempts)
        self.initialDelay = max(0, initialDelay)
        self.maximumDelay = max(0, maximumDelay)
        self.attestationCooldown = max(0, attestationCooldown)
        self.sessionTokenCooldown = max(0, sessionTokenCooldown)
    }

    /// The wait after failed try number `attempt` (1 for the first).
    public func delay(afterAttempt attempt: Int) -> Double {
        let doubled = initialDelay * Double(1 << min(max(attempt - 1, 0), 30))
        return min(doubled, maximumDelay)
    }
}
