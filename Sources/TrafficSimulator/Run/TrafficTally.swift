import AttestVocabulary

/// The live counters of a traffic run, shared by every persona's tasks and read by the progress display: requests
/// sent, outcomes per persona, rules firing, and receipts redeemed with the risk metrics they brought.
public actor TrafficTally {
    /// A copy of the counters at one moment.
    public struct Snapshot: Sendable {
        public var requests = 0
        /// Per persona, each outcome's short form (`allow`, `409 assertion_already_accepted`) and its count.
        public var outcomes: [Persona: [String: Int]] = [:]
        public var rulesFiring: [String: Int] = [:]
        public var keysAttested = 0
        /// Risk metric -> keys whose redeemed receipt carries it.
        public var riskMetrics: [Int: Int] = [:]
        public var receiptsRedeemed: Int { riskMetrics.values.reduce(0, +) }
    }

    private var snapshot = Snapshot()
    private var redeemedKeys: [String: Int] = [:]
    private var pendingKeys: [(keyId: String, since: ContinuousClock.Instant)] = []
    private var keysByPersona: [Persona: [String]] = [:]

    public init() {}

    public var current: Snapshot { snapshot }

    func countRequest() {
        snapshot.requests += 1
    }

    /// Counts what a persona's request got.
    func record(_ outcome: ObservedOutcome, for persona: Persona) {
        let label: String
        switch outcome {
        case .verdict(let verdict):
            label = verdict.decision.rawValue
            for rule in verdict.ruleIds { snapshot.rulesFiring[rule, default: 0] += 1 }
        case .error(let status, let code):
            label = "\(status) \(code)"
        case .unexpected:
            label = "unexpected"
        }
        snapshot.outcomes[persona, default: [:]][label, default: 0] += 1
    }

    /// A key the server registered: the receipt watcher follows it until its receipt is redeemed.
    func keyAttested(_ keyId: String, by persona: Persona) {
        snapshot.keysAttested += 1
        pendingKeys.append((keyId, ContinuousClock.now))
        keysByPersona[persona, default: []].append(keyId)
    }

    /// The keys (standard base64) a persona registered, in order.
    public func keys(of persona: Persona) -> [String] { keysByPersona[persona] ?? [] }

    /// The keys registered within `patience` whose receipt has not been seen redeemed yet; older ones are given up
    /// (a server without receipt refresh never redeems any).
    func keysAwaitingRedemption(patience: Duration) -> [String] {
        let oldest = ContinuousClock.now - patience
        pendingKeys.removeAll { $0.since < oldest }
        return pendingKeys.map(\.keyId)
    }

    func receiptRedeemed(keyId: String, riskMetric: Int) {
        guard redeemedKeys[keyId] == nil else { return }
        redeemedKeys[keyId] = riskMetric
        pendingKeys.removeAll { $0.keyId == keyId }
        snapshot.riskMetrics[riskMetric, default: 0] += 1
    }

    /// The risk metric the key's redeemed receipt carries, once seen.
    func riskMetric(ofKey keyId: String) -> Int? { redeemedKeys[keyId] }
}
