/// A snapshot of the fake Apple's counters, also served as JSON at `GET /fake/stats`.
public struct FakeAppleStats: Sendable, Hashable, Codable {
    /// Counters for one receipt token.
    public struct TokenStats: Sendable, Hashable, Codable {
        /// Authenticated redemptions of this token that reached the handler and parsed, whatever the answer.
        public var requests: Int = 0
        /// Of those, the ones answered 200 with a new receipt (tampered ones included).
        public var redeemed: Int = 0

        public init(requests: Int = 0, redeemed: Int = 0) {
            self.requests = requests
            self.redeemed = redeemed
        }
    }

    /// Every request on an Apple path, before any check.
    public var totalRequests: Int = 0
    /// Answers 401 (bad, old or missing provider token).
    public var unauthorized: Int = 0
    /// Answers 400 for unreadable input (bad payload, bad DeviceCheck body).
    public var badRequests: Int = 0
    /// Requests to `/v1/attestationData`.
    public var redemptionRequests: Int = 0
    /// 200 answers with a new receipt.
    public var redeemed: Int = 0
    /// 304 answers.
    public var notModified: Int = 0
    /// 404 answers.
    public var noData: Int = 0
    /// 400 "incorrect environment" answers.
    public var incorrectEnvironment: Int = 0
    /// Requests to the three DeviceCheck paths.
    public var deviceCheckRequests: Int = 0
    /// Injected failures by ``FakeAppleFault`` raw value.
    public var injected: [String: Int] = [:]
    /// Per receipt token.
    public var tokens: [String: TokenStats] = [:]

    public init() {}

    /// The injected failures of one kind.
    public func injected(_ fault: FakeAppleFault) -> Int {
        injected[fault.rawValue, default: 0]
    }
}
