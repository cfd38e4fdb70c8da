public import AttestGuardStore
/// A key's risk-metric history and the state of its receipt refreshes.
public struct KeyHistory: Sendable, Hashable {
    public var key: AttestedKey
    /// The current receipt: when it was last refreshed, when it is next, and how the last attempt went.
    public var receipt: KeyReceipt?
    /// One observation per verified receipt (each redemption that stored one), newest receipt first.
    public var riskMetrics: [RiskMetricObservation]
}
