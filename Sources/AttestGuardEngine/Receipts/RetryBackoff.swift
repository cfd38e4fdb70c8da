import Foundation
import AttestGuardStore
/// Jittered exponential back-off: attempt `n` (1-based) waits between half and all of
/// `min(maximum, base * 2^(n-1))`, so retries of many receipts after one outage spread out instead of
/// returning together.
struct RetryBackoff: Sendable {
    let base: TimeInterval
    let maximum: TimeInterval

    init(base: Duration, maximum: Duration) {
        self.base = base.timeInterval
        self.maximum = max(maximum.timeInterval, base.timeInterval)
    }

    func delay(forAttempt attempt: Int, using generator: inout some RandomNumberGenerator) -> TimeInterval {
        let exponent = Double(min(max(attempt - 1, 0), 30))
        let ceiling = min(maximum, base * pow(2, exponent))
        return ceiling * Double.random(in: 0.5...1, using: &generator)
    }

    func delay(forAttempt attempt: Int) -> TimeInterval {
        var generator = SystemRandomNumberGenerator()
        return delay(forAttempt: attempt, using: &generator)
    }
}
