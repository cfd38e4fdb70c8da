/// What the fake Apple's receipt data says: each receipt token's risk metric, the tokens Apple has no data for,
/// and the tokens whose refreshed receipts come back tampered.
///
/// Every choice is a pure function of the scenario, so a test computes the expected answer for any token with
/// ``riskMetric(forToken:)``, ``hasNoData(token:)`` and ``isTampered(token:)``.
public struct FakeAppleScenario: Sendable, Hashable {
    /// The seed of the stable hash behind ``farmFraction`` and ``tamperFraction``.
    public var seed: String
    /// The metric of an ordinary token.
    public var defaultRiskMetric: Int
    /// Explicit metrics per token (field 5); they win over every other rule.
    public var riskMetricOverrides: [String: Int]
    /// The share of tokens (0...1), chosen by a stable hash of the token, that belong to a device farm.
    public var farmFraction: Double
    /// The metric a farm token gets.
    public var farmRiskMetric: Int
    /// Tokens answered with 404 (no data).
    public var noDataTokens: Set<String>
    /// Tokens whose refreshed receipt is signed by a key outside the simulated PKI (it parses but never verifies).
    public var tamperedTokens: Set<String>
    /// The share of tokens (0...1), chosen by a stable hash of the token, that are tampered as well.
    public var tamperFraction: Double

    public init(
        seed: String = "fake-apple",
        defaultRiskMetric: Int = 1,
        riskMetricOverrides: [String: Int] = [:],
        farmFraction: Double = 0,
        farmRiskMetric: Int = 40,
        noDataTokens: Set<String> = [],
        tamperedTokens: Set<String> = [],
        tamperFraction: Double = 0
    ) {
        self.seed = seed
        self.defaultRiskMetric = defaultRiskMetric
        self.riskMetricOverrides = riskMetricOverrides
        self.farmFraction = farmFraction
        self.farmRiskMetric = farmRiskMetric
        self.noDataTokens = noDataTokens
        self.tamperedTokens = tamperedTokens
        self.tamperFraction = tamperFraction
    }

    /// Whether the stable hash puts a token in the farm.
    public func isFarmed(token: String) -> Bool {
        farmFraction > 0 && StableFraction.of(seed, "farm", token) < farmFraction
    }

    /// The metric a refreshed receipt for `token` carries: the override, else the farm metric, else the default.
    public func riskMetric(forToken token: String) -> Int {
        if let metric = riskMetricOverrides[token] { return metric }
        return isFarmed(token: token) ? farmRiskMetric : defaultRiskMetric
    }

    /// Whether redemption of `token` answers 404.
    public func hasNoData(token: String) -> Bool {
        noDataTokens.contains(token)
    }

    /// Whether the refreshed receipt for `token` is tampered.
    public func isTampered(token: String) -> Bool {
        tamperedTokens.contains(token) || (tamperFraction > 0 && StableFraction.of(seed, "tamper", token) < tamperFraction)
    }
}
