public import AppleServices
import Synchronization

/// The fake Apple's mutable state, safe to read from any task while the server runs: its counters, each device's
/// two DeviceCheck bits, and the risk metrics set while it runs (`POST /fake/risk-metric`), which win over the
/// scenario's.
public final class FakeAppleState: Sendable {
    private struct Storage {
        var stats = FakeAppleStats()
        var attempts: [String: Int] = [:]
        var bits: [String: DeviceCheckBits] = [:]
        var riskMetrics: [String: Int] = [:]
    }

    private let storage = Mutex(Storage())

    public init() {}

    /// A snapshot of every counter.
    public var stats: FakeAppleStats {
        storage.withLock { $0.stats }
    }

    /// Authenticated, parsable redemptions of `token` that reached the handler, whatever the answer.
    public func redemptionRequests(forToken token: String) -> Int {
        storage.withLock { $0.stats.tokens[token]?.requests ?? 0 }
    }

    /// Redemptions of `token` answered 200.
    public func successfulRedemptions(forToken token: String) -> Int {
        storage.withLock { $0.stats.tokens[token]?.redeemed ?? 0 }
    }

    /// How many failures of one kind were injected.
    public func injectedFailures(_ fault: FakeAppleFault) -> Int {
        storage.withLock { $0.stats.injected(fault) }
    }

    /// The bits stored for a device identity (see ``FakeAppleServer`` for how a device token names a device).
    public func bits(forDevice device: String) -> DeviceCheckBits? {
        storage.withLock { $0.bits[device] }
    }

    /// Makes every later redemption of `token` carry `metric`, whatever the scenario says.
    public func setRiskMetric(_ metric: Int, forToken token: String) {
        storage.withLock { $0.riskMetrics[token] = metric }
    }

    /// The metric set for `token` while the fake runs, if any.
    public func riskMetric(forToken token: String) -> Int? {
        storage.withLock { $0.riskMetrics[token] }
    }

    // MARK: Recording (the server's side)

    func update(_ change: (inout FakeAppleStats) -> Void) {
        storage.withLock { change(&$0.stats) }
    }

    /// Counts a request of `key` for fault injection and returns how many came before it.
    func nextAttempt(forKey key: String) -> Int {
        storage.withLock { storage in
            let attempt = storage.attempts[key, default: 0]
            storage.attempts[key] = attempt + 1
            return attempt
        }
    }

    func recordInjected(_ fault: FakeAppleFault) {
        update { $0.injected[fault.rawValue, default: 0] += 1 }
    }

    /// Sets the bits a non-nil argument names; returns the stored bits.
    @discardableResult
    func updateBits(forDevice device: String, bit0: Bool?, bit1: Bool?, month: String) -> DeviceCheckBits {
        storage.withLock { storage in
            let previous = storage.bits[device]
            let bits = DeviceCheckBits(
                bit0: bit0 ?? previous?.bit0 ?? false,
                bit1: bit1 ?? previous?.bit1 ?? false,
                lastUpdateTime: month
            )
            storage.bits[device] = bits
            return bits
        }
    }
}
